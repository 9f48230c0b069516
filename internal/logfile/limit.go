package logfile

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// Defaults for the limiter: a record repeated more than 20 times within
// 10 s is counted, not written, until the window ends.
const (
	DefaultWindow = 10 * time.Second
	DefaultBurst  = 20
)

// maxKeys bounds the records the limiter remembers; past it, windows that
// have ended and dropped nothing are forgotten first.
const maxKeys = 4096

// Limiter is a slog.Handler that passes each kind of record (the same
// level, message and "chat" attribute) Burst times per Window and counts
// the rest. When a window in which records were dropped ends, one record
// says how many: `refused a connection (… 14,203 more in the last 10 s)`,
// written at the window's end even if no record follows.
type Limiter struct {
	next  slog.Handler
	state *limitState
}

type limitState struct {
	window time.Duration
	burst  int
	now    func() time.Time

	mu   sync.Mutex
	seen map[limitKey]*limitCount
}

type limitKey struct {
	level   slog.Level
	message string
	chat    string
}

type limitCount struct {
	start   time.Time
	passed  int
	dropped int
	// last is the handler (with its attributes) and record that the
	// summary repeats: the most recent dropped one.
	last    slog.Record
	handler slog.Handler
	timer   *time.Timer
}

// NewLimiter wraps next so that each kind of record passes burst times per
// window.
func NewLimiter(next slog.Handler, window time.Duration, burst int) *Limiter {
	return &Limiter{next: next, state: &limitState{window: window, burst: burst, now: time.Now, seen: map[limitKey]*limitCount{}}}
}

// Enabled reports whether the wrapped handler takes records at level.
func (l *Limiter) Enabled(ctx context.Context, level slog.Level) bool {
	return l.next.Enabled(ctx, level)
}

// WithAttrs returns a Limiter over next.WithAttrs that shares this one's
// counts.
func (l *Limiter) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Limiter{next: l.next.WithAttrs(attrs), state: l.state}
}

// WithGroup returns a Limiter over next.WithGroup that shares this one's
// counts.
func (l *Limiter) WithGroup(name string) slog.Handler {
	return &Limiter{next: l.next.WithGroup(name), state: l.state}
}

// Handle writes r unless its kind has passed Burst times in this window.
func (l *Limiter) Handle(ctx context.Context, r slog.Record) error {
	s := l.state
	key := limitKey{level: r.Level, message: r.Message}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "chat" {
			key.chat = a.Value.String()
			return false
		}
		return true
	})
	now := s.now()
	s.mu.Lock()
	c := s.seen[key]
	if c != nil && now.Sub(c.start) >= s.window && c.dropped == 0 {
		c = nil // a window that ended quietly: start afresh
	}
	if c == nil {
		if len(s.seen) >= maxKeys {
			s.forgetLocked(now)
		}
		c = &limitCount{start: now}
		s.seen[key] = c
	}
	if c.passed < s.burst && c.dropped == 0 {
		c.passed++
		s.mu.Unlock()
		return l.next.Handle(ctx, r)
	}
	c.dropped++
	c.last = r.Clone()
	c.handler = l.next
	if c.timer == nil {
		wait := s.window - now.Sub(c.start)
		c.timer = time.AfterFunc(max(wait, 0), func() { s.flush(key, c) })
	}
	s.mu.Unlock()
	return nil
}

// flush writes the summary of c's window and forgets it, so the next
// record of its kind starts a new window.
func (s *limitState) flush(key limitKey, c *limitCount) {
	s.mu.Lock()
	if s.seen[key] == c {
		delete(s.seen, key)
	}
	dropped, r, h := c.dropped, c.last, c.handler
	s.mu.Unlock()
	if dropped == 0 || h == nil {
		return
	}
	sum := slog.NewRecord(s.now(), r.Level, r.Message+" (… "+thousands(dropped)+" more in the last "+s.window.String()+")", 0)
	r.Attrs(func(a slog.Attr) bool {
		sum.AddAttrs(a)
		return true
	})
	_ = h.Handle(context.Background(), sum)
}

// Flush writes the summary of every window that dropped records now,
// without waiting for the windows to end (a process that exits calls it).
func (l *Limiter) Flush() {
	s := l.state
	s.mu.Lock()
	type pending struct {
		key limitKey
		c   *limitCount
	}
	var all []pending
	for k, c := range s.seen {
		if c.dropped > 0 {
			if c.timer != nil {
				c.timer.Stop()
			}
			all = append(all, pending{k, c})
		}
	}
	s.mu.Unlock()
	for _, p := range all {
		s.flush(p.key, p.c)
	}
}

// forgetLocked drops the remembered windows that have ended and dropped
// nothing; if every one is still open, all quiet ones go.
func (s *limitState) forgetLocked(now time.Time) {
	for k, c := range s.seen {
		if c.dropped == 0 && now.Sub(c.start) >= s.window {
			delete(s.seen, k)
		}
	}
	if len(s.seen) < maxKeys {
		return
	}
	for k, c := range s.seen {
		if c.dropped == 0 {
			delete(s.seen, k)
		}
	}
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if len(s) <= 3 {
		return s
	}
	var b []byte
	lead := len(s) % 3
	if lead > 0 {
		b = append(b, s[:lead]...)
	}
	for i := lead; i < len(s); i += 3 {
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = append(b, s[i:i+3]...)
	}
	return string(b)
}
