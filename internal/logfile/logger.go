package logfile

import (
	"log/slog"
	"time"
)

// Limits are a log's size cap and rate limit; the zero value of a field
// means its default.
type Limits struct {
	MaxBytes int64         // rotate past this size (DefaultMaxBytes)
	Keep     int           // rotated files kept (DefaultKeep)
	Window   time.Duration // the rate limit's window (DefaultWindow)
	Burst    int           // records of one kind passed per window (DefaultBurst)
}

// Logger is the agent home's logger: text records, a line each, through a
// Limiter into a rotating File.
type Logger struct {
	*slog.Logger
	file  *File
	limit *Limiter
}

// OpenLogger opens the log at path with the default limits.
func OpenLogger(path string) (*Logger, error) { return OpenLoggerWith(path, Limits{}) }

// OpenLoggerWith opens the log at path with the given limits.
func OpenLoggerWith(path string, lim Limits) (*Logger, error) {
	if lim.MaxBytes == 0 {
		lim.MaxBytes = DefaultMaxBytes
	}
	if lim.Keep == 0 {
		lim.Keep = DefaultKeep
	}
	if lim.Window == 0 {
		lim.Window = DefaultWindow
	}
	if lim.Burst == 0 {
		lim.Burst = DefaultBurst
	}
	f, err := Open(path, lim.MaxBytes, lim.Keep)
	if err != nil {
		return nil, err
	}
	limit := NewLimiter(slog.NewTextHandler(f, nil), lim.Window, lim.Burst)
	return &Logger{Logger: slog.New(limit), file: f, limit: limit}, nil
}

// Close writes the counts of records dropped so far and closes the file.
func (l *Logger) Close() error {
	l.limit.Flush()
	return l.file.Close()
}
