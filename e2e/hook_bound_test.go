//go:build linux

package e2e

import (
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/hookearly"
	"github.com/acpmux/acpmux-tui/proto"
)

// These tests hold the hook to its documented ceiling (docs/cli.md: 100 ms
// from exec to exit whatever the server does) when nothing it waits for
// comes: a server that accepts and never answers, one that never accepts,
// and a stdin that is never closed.

// openStdin returns the read end of a pipe whose write end stays open to
// the test's end, after data was written to it: a caller that leaves the
// hook's stdin open.
func openStdin(t *testing.T, data string) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	if _, err := w.WriteString(data); err != nil {
		t.Fatal(err)
	}
	return r
}

// newFullListener makes the agent home's socket one that never accepts:
// a listener whose queue of connections waiting to be accepted is full, so
// a connect to it waits (as on a server too busy to accept).
func newFullListener(t *testing.T, home string) {
	t.Helper()
	addr, done, err := proto.ShortAddr(proto.SocketPath(home))
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: addr}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	for range 64 {
		c, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		err = syscall.Connect(c, &syscall.SockaddrUnix{Name: addr})
		if err == syscall.EAGAIN {
			syscall.Close(c)
			return // full: the next connect waits
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Close(c) })
	}
	t.Fatal("the listener's queue did not fill with 64 connections")
}

// TestHookBoundedByItsCeiling: against a server that accepts and never
// answers, and one that never accepts, with a stdin that is never closed,
// every kind of hook call ends by itself, silent, and within the
// documented ceiling. The hook's own deadline is what bounds it; a loaded
// machine can still delay one run's exec or exit past the ceiling, so each
// case has five runs and the fastest must be under it: the hook as it was
// (250 ms for stdin and the answer) could never be. Each run has a TMPDIR
// of its own, so none is cut short by the marker an earlier one left
// (hook_hung_test.go), and must end on its own (silent's deadline is a
// hang's).
func TestHookBoundedByItsCeiling(t *testing.T) {
	type deafness struct {
		name string
		make func(t *testing.T, home string)
	}
	for _, deaf := range []deafness{
		{"accepts, never answers", func(t *testing.T, home string) { newHookListener(t, home, answerNever) }},
		{"never accepts", newFullListener},
	} {
		for _, tc := range []struct {
			name  string
			stdin string // written to a stdin never closed
			args  []string
		}{
			{"pre tool use", preToolUse, []string{"PreToolUse"}},
			{"notification, its JSON not whole", `{"hook_event_name":"Notification","message":"Claude needs`, []string{"Notification"}},
			{"notification, nothing on stdin", "", []string{"Notification"}},
			{"codex", "", []string{harness.CodexHookEvent, `{"type":"agent-turn-complete"}`}},
		} {
			t.Run(deaf.name+"/"+tc.name, func(t *testing.T) {
				home := hookHome(t)
				deaf.make(t, home)
				var took []time.Duration
				for range 5 {
					stdin := openStdin(t, tc.stdin)
					env := append(hookEnv(home), "TMPDIR="+t.TempDir())
					begin := time.Now()
					startHook(t, env, stdin, tc.args...).silent()
					took = append(took, time.Since(begin))
					if took[len(took)-1] < hookearly.Ceiling {
						return
					}
				}
				t.Fatalf("no run of five was under the %v ceiling: %v", hookearly.Ceiling, took)
			})
		}
	}
}

// TestHookNotificationWithStdinLeftOpen: a Notification whose JSON is all
// there is reported with its fields at once, even if its stdin is never
// closed: the hook does not wait for an end that does not come.
func TestHookNotificationWithStdinLeftOpen(t *testing.T) {
	home := hookHome(t)
	l := newHookListener(t, home, answerResult)
	stdin := openStdin(t, `{"hook_event_name":"Notification","message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}`+"\n")
	hookSilent(t, hookEnv(home), stdin, "Notification")
	want := []string{hookLine(`{"id":"k3x9q2","event":"Notification","notificationType":"permission_prompt","message":"Claude needs your permission to use Bash"}`)}
	if got := l.got(); !slices.Equal(got, want) {
		t.Fatalf("the server got %q, want %q", got, want)
	}
}
