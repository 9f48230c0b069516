package mux

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// lingerGrace is how long an agent whose output has ended may take to exit
// before it is stopped: its connection is gone, so it can do no more.
const lingerGrace = 5 * time.Second

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

// connectionFailed reports whether err is the SDK's word that the
// connection to p's agent broke, not an answer from the agent.
func (p *acpProcess) connectionFailed(err error) bool {
	var re *acp.RequestError
	if !errors.As(err, &re) {
		return false
	}
	detail := SDKDetail(re)
	switch {
	case detail == "":
		return false
	case re.Code == -32603 && strings.HasPrefix(detail, "peer disconnected"):
		return p.broken() // else an agent's own error that reads the same
	case re.Code == -32603 && p.writeFailed.Load():
		return true
	}
	// The process's own context ends when it has exited.
	return p.ctx.Err() != nil && (re.Code == -32800 || re.Code == -32603) &&
		(detail == context.Canceled.Error() || detail == context.DeadlineExceeded.Error())
}

// cause says why p's connection ended, phase naming the step. It waits for
// the agent to exit, to give its status; lingerGrace after its output ended
// it is stopped, so the wait is bounded.
func (p *acpProcess) cause(phase string) string {
	if b, ok := p.bad.Load().(BadMessage); ok {
		return b.In(phase)
	}
	wait := time.NewTimer(lingerGrace + 10*time.Second)
	defer wait.Stop()
	select {
	case <-p.exited:
	case <-wait.C:
		if p.writeFailed.Load() {
			return "agent stopped reading its input " + phase
		}
		return "the connection to the agent failed " + phase
	}
	if b, ok := p.bad.Load().(BadMessage); ok {
		return b.In(phase)
	}
	switch {
	case p.connGaveUp.Load():
		// Not the agent's doing: the SDK closed the connection (it logged why).
		return "the ACP connection gave up on the agent " + phase + " (see the log); the agent was stopped"
	case p.lingered.Load() && p.exitSignaled:
		return "agent closed its output " + phase + " but did not exit; it was stopped"
	}
	return "agent " + p.exitHow + " " + phase
}

// withStderr adds the agent's last stderr lines to msg.
func (p *acpProcess) withStderr(msg string) string {
	lines := p.stderr.LastLines()
	if len(lines) == 0 {
		return msg
	}
	return msg + "\nthe agent's last stderr lines:\n  " + strings.Join(lines, "\n  ")
}

// explain turns an error from an ACP call into what the user should know,
// for the chat's process that most likely made it: the newest one whose
// connection has ended, else the newest.
func (c *acpChat) explain(step string, err error, methods []acp.AuthMethod) error {
	c.mu.Lock()
	var p *acpProcess
	for i := len(c.recent) - 1; i >= 0 && p == nil; i-- {
		if c.recent[i].broken() {
			p = c.recent[i]
		}
	}
	if p == nil && len(c.recent) > 0 {
		p = c.recent[len(c.recent)-1]
	}
	c.mu.Unlock()
	return c.explainProc(p, step, err, methods)
}

// explainProc turns an error from an ACP call to p into what the user
// should know: why the connection failed, with the agent's last stderr
// lines; how to log in for auth_required; else the agent's own refusal,
// code, message and data.
func (c *acpChat) explainProc(p *acpProcess, step string, err error, methods []acp.AuthMethod) error {
	if p != nil && p.connectionFailed(err) {
		return errors.New(p.withStderr(p.cause(PhaseOf(step))))
	}
	var re *acp.RequestError
	if !errors.As(err, &re) {
		return fmt.Errorf("%s: %w", step, err)
	}
	if re.Code == -32000 {
		var ways []string
		for _, m := range methods {
			ways = append(ways, DescribeAuth(m))
		}
		msg := "the agent needs you to log in first"
		if len(ways) > 0 {
			msg += ": " + strings.Join(ways, "; ")
		}
		return errors.New(Sanitize(msg))
	}
	if d := SDKDetail(re); d == context.Canceled.Error() || d == context.DeadlineExceeded.Error() {
		return fmt.Errorf("%s: gave up waiting for the agent: %s", step, d)
	}
	msg := fmt.Sprintf("%s: agent refused (%d): %s", step, re.Code, re.Message)
	if re.Data != nil {
		if data, err := json.Marshal(re.Data); err == nil {
			msg += " " + Truncate(string(data), 500)
		}
	}
	return errors.New(Sanitize(msg))
}

// broken reports whether p's connection has ended or a write to it failed.
func (p *acpProcess) broken() bool {
	select {
	case <-p.conn.Done():
		return true
	default:
		return p.writeFailed.Load()
	}
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

// timedOut is the error for an agent that did not answer step in d.
func (p *acpProcess) timedOut(step string, d time.Duration) error {
	return &TimeoutError{Msg: p.withStderr(fmt.Sprintf("agent did not answer %s within %s", step, ShortDuration(d))), Init: step == "initialize"}
}

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
	Log  interface{ Info(string, ...any) }
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
	w.Log.Info("harness stderr", "chat", w.Chat, "line", s)
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
