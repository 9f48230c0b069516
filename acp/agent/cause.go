package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	acp "github.com/coder/acp-go-sdk"
)

// Why an ACP call failed. The SDK reports every failure of the connection
// itself (the agent exited, its output ended, a write to it failed, a
// deadline passed) as the same -32603 "Internal error"; these name the
// cause instead, with the agent's last stderr lines.

// stderrTailLines and stderrTailWidth bound the stderr lines an error shows.
const (
	stderrTailLines = 5
	stderrTailWidth = 300
)

// BadMessage is why the wire guard gave up on an agent's output.
type BadMessage struct {
	what   string // "sent invalid JSON"
	detail string // the start of the line, quoted, or ""
}

func (b BadMessage) In(phase string) string {
	s := "agent " + b.what
	if phase != "" {
		s += " " + phase
	}
	if b.detail != "" {
		s += ": " + b.detail
	}
	return s
}

// PhaseOf names when a step's failure happened.
func PhaseOf(step string) string {
	if step == "session/prompt" {
		return "during the turn"
	}
	return "before answering " + step
}

// DescribeExit says how a process ended, as "exited with status 3", and
// whether a signal ended it.
func DescribeExit(cmd *exec.Cmd, err error) (string, bool) {
	ps := cmd.ProcessState
	if ps == nil {
		return fmt.Sprintf("could not be waited for (%v)", err), false
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("was killed by signal %d (%s)", int(ws.Signal()), ws.Signal()), true
	}
	return fmt.Sprintf("exited with status %d", ps.ExitCode()), false
}

// SDKDetail is the "error" the SDK puts in the data of an error it makes
// itself, or "".
func SDKDetail(re *acp.RequestError) string {
	m, ok := re.Data.(map[string]any)
	if !ok || len(m) != 1 {
		return ""
	}
	s, _ := m["error"].(string)
	return s
}

// ErrInitTimeout is what the error of an ACP chat's start wraps when its
// agent did not answer initialize within [acp] init_timeout (counted from
// the agent's spawn): a caller that started many chats at once can tell
// its own load from an agent that failed.
var ErrInitTimeout = errors.New("initialize timed out")

// TimeoutError is an agent that did not answer a step in time; one for
// initialize is ErrInitTimeout.
type TimeoutError struct {
	Msg  string
	Init bool
}

func (e *TimeoutError) Error() string { return e.Msg }

func (e *TimeoutError) Is(target error) bool { return e.Init && target == ErrInitTimeout }

// ShortDuration writes 30s, 2m or 1h rather than 2m0s.
func ShortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Sanitize makes text from an agent safe to show: escape sequences and
// control characters (C0, DEL, C1) other than newline and tab are removed,
// and invalid UTF-8 is replaced.
func Sanitize(s string) string {
	s = ansi.Strip(strings.ToValidUTF8(s, "\uFFFD"))
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return -1
		}
		return r
	}, s)
}

// Truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// StderrLog sends a harness's stderr to the log, a line at a time, and
// keeps its last few lines for errors.
type StderrLog struct {
	Log  *slog.Logger
	Chat string
	mu   sync.Mutex
	buf  []byte
	tail []string
}

func (w *StderrLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := strings.IndexByte(string(w.buf), '\n')
		if i < 0 {
			break
		}
		w.line(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > 64*1024 {
		w.line(string(w.buf))
		w.buf = w.buf[:0]
	}
	return len(p), nil
}

func (w *StderrLog) line(s string) {
	// The record is made here, not by Logger.Info, which looks up its
	// caller (runtime.Callers) for every record: for an agent that logs a
	// line a turn that was a third of what its stderr cost the server.
	if h := w.Log.Handler(); h.Enabled(context.Background(), slog.LevelInfo) {
		r := slog.NewRecord(time.Now(), slog.LevelInfo, "harness stderr", 0)
		r.AddAttrs(slog.String("chat", w.Chat), slog.String("line", s))
		_ = h.Handle(context.Background(), r)
	}
	s = strings.TrimSpace(Sanitize(s))
	if s == "" {
		return
	}
	if len(w.tail) == stderrTailLines {
		w.tail = append(w.tail[:0], w.tail[1:]...)
	}
	w.tail = append(w.tail, Truncate(s, stderrTailWidth))
}

// LastLines returns the last few non-blank lines written, sanitized, with
// an unfinished last line.
func (w *StderrLog) LastLines() []string {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	lines := append([]string(nil), w.tail...)
	if s := strings.TrimSpace(Sanitize(string(w.buf))); s != "" {
		lines = append(lines, Truncate(s, stderrTailWidth))
		if len(lines) > stderrTailLines {
			lines = lines[1:]
		}
	}
	return lines
}
