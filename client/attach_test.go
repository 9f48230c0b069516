package client

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/startrecord"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/screen"
	"github.com/creack/pty"
	"golang.org/x/term"
)

// testTerminal is a terminal for Attach: a pty whose terminal side Attach
// borrows, and whose other side the test types into and reads, drawing
// what arrives on a terminal emulator as a terminal would.
type testTerminal struct {
	t      *testing.T
	ptmx   *os.File
	tty    *os.File
	before *term.State

	mu  sync.Mutex
	scr *screen.Screen
}

func newTestTerminal(t *testing.T, cols, rows int) *testTerminal {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	if err := pty.Setsize(ptmx, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		t.Fatal(err)
	}
	before, err := term.GetState(int(tty.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	tt := &testTerminal{t: t, ptmx: ptmx, tty: tty, before: before, scr: screen.New(cols, rows, 100)}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := ptmx.Read(buf)
			tt.mu.Lock()
			tt.scr.Write(buf[:n])
			tt.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return tt
}

func (tt *testTerminal) text() string {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	_, rows := tt.scr.Size()
	lines := make([]string, rows)
	for i := range lines {
		lines[i] = tt.scr.PlainLine(i)
	}
	return strings.Join(lines, "\n")
}

func (tt *testTerminal) modes() proto.TerminalModes {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	return tt.scr.Modes()
}

func (tt *testTerminal) waitText(text string) {
	tt.t.Helper()
	wait.UntilShow(tt.t, "\""+text+"\" on the terminal", func() bool { return strings.Contains(tt.text(), text) }, tt.text)
}

func (tt *testTerminal) typeIn(s string) {
	tt.t.Helper()
	if _, err := tt.ptmx.WriteString(s); err != nil {
		tt.t.Fatal(err)
	}
}

// restored fails unless the terminal's termios are back as they were.
func (tt *testTerminal) restored() {
	tt.t.Helper()
	after, err := term.GetState(int(tt.tty.Fd()))
	if err != nil {
		tt.t.Fatal(err)
	}
	if *after != *tt.before {
		tt.t.Fatal("the terminal's termios were not restored")
	}
}

// attachRun is one Attach running on a test terminal.
type attachRun struct {
	done chan struct{}
	how  string
	err  error
}

func startAttach(t *testing.T, h, id string, tt *testTerminal) *attachRun {
	t.Helper()
	c, err := EnsureServer(h, binary)
	if err != nil {
		t.Fatal(err)
	}
	a := &attachRun{done: make(chan struct{})}
	go func() {
		defer close(a.done)
		defer c.Close()
		a.how, a.err = Attach(c, id, tt.tty, tt.tty)
	}()
	return a
}

func (a *attachRun) wait(t *testing.T) (string, error) {
	t.Helper()
	select {
	case <-a.done:
		return a.how, a.err
	case <-time.After(hangDeadline):
		t.Fatal("attach did not return")
	}
	return "", nil
}

// attachChat makes a chat of the echoing pty fake and returns its id.
func attachChat(t *testing.T) (home, id, rec string) {
	t.Helper()
	h, rec := remoteHome(t)
	c, err := EnsureServer(h, binary)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var chat proto.ChatJSON
	if err := c.Call(ctx(t), proto.MethodNew, proto.NewParams{Harness: "fake"}, &chat); err != nil {
		t.Fatal(err)
	}
	return h, chat.ID, rec
}

// TestAttachDetachAndAttachAgain: attach shows the harness, takes input,
// and ctrl+] gives the terminal back with the harness still running; a
// second attach shows the same screen and types into it.
func TestAttachDetachAndAttachAgain(t *testing.T) {
	h, id, rec := attachChat(t)
	tt := newTestTerminal(t, 90, 20)
	run := startAttach(t, h, id, tt)
	tt.waitText("ready>")
	tt.typeIn("first words\r")
	tt.waitText("echo: first words")
	tt.typeIn("\x1d")
	if how, err := run.wait(t); how != "detached" || err != nil {
		t.Fatalf("attach returned %q, %v", how, err)
	}
	tt.restored()
	recs, err := startrecord.Read(rec)
	if err != nil || len(recs) != 1 {
		t.Fatalf("starts: %v %v", recs, err)
	}
	if recs[0].Cols != 90 || recs[0].Rows != 20 {
		t.Errorf("the harness started at %dx%d, want the terminal's 90x20", recs[0].Cols, recs[0].Rows)
	}
	if !alive(recs[0].Pid) {
		t.Fatal("the harness is gone after a detach")
	}

	again := newTestTerminal(t, 90, 20)
	run = startAttach(t, h, id, again)
	again.waitText("echo: first words")
	again.typeIn("second words\r")
	again.waitText("echo: second words")
	again.typeIn("\x1d")
	if how, err := run.wait(t); how != "detached" || err != nil {
		t.Fatalf("the second attach returned %q, %v", how, err)
	}
	again.restored()
	if recs, _ := startrecord.Read(rec); len(recs) != 1 || !alive(recs[0].Pid) {
		t.Fatalf("starts after the second attach: %v", recs)
	}
}

// TestAttachTwoAtOnce: two terminals attached to one chat both show its
// output, and both type into it.
func TestAttachTwoAtOnce(t *testing.T) {
	h, id, _ := attachChat(t)
	a, b := newTestTerminal(t, 80, 24), newTestTerminal(t, 80, 24)
	runA := startAttach(t, h, id, a)
	a.waitText("ready>")
	runB := startAttach(t, h, id, b)
	b.waitText("ready>")
	a.typeIn("typed in a\r")
	b.waitText("echo: typed in a")
	b.typeIn("typed in b\r")
	a.waitText("echo: typed in b")
	a.typeIn("\x1d")
	b.typeIn("\x1d")
	for _, r := range []*attachRun{runA, runB} {
		if how, err := r.wait(t); how != "detached" || err != nil {
			t.Fatalf("attach returned %q, %v", how, err)
		}
	}
}

// TestAttachHarnessExits: the harness exiting by itself ends attach with
// how it ended, after its last output, and the terminal is given back with
// the modes the harness set reset.
func TestAttachHarnessExits(t *testing.T) {
	h, id, _ := attachChat(t)
	tt := newTestTerminal(t, 80, 24)
	run := startAttach(t, h, id, tt)
	tt.waitText("ready>")
	// The pty fake echoes what it reads; these set modes on the terminal.
	tt.typeIn("\x1b[?2004h\x1b[?1h\r")
	wait.UntilShow(t, "the echoed modes", func() bool { m := tt.modes(); return m.BracketedPaste && m.AppCursor }, tt.text)
	tt.typeIn("last\r\x04")
	how, err := run.wait(t)
	if how != "exit status 0" || err != nil {
		t.Fatalf("attach returned %q, %v", how, err)
	}
	tt.waitText("echo: last")
	tt.restored()
	wait.UntilShow(t, "the modes reset", func() bool { m := tt.modes(); return !m.BracketedPaste && !m.AppCursor }, tt.text)
}

// TestAttachStreamOrder: the client's side of the generations. Output that
// comes before its redraw waits for it; output of an older generation is
// dropped; a redraw replaces what has not been written; the end waits for
// its generation; falling behind drops the stream and asks for a redraw
// once.
func TestAttachStreamOrder(t *testing.T) {
	st := newAttachStream("c")
	resyncs := 0
	st.resync = func() { resyncs++ }
	note := func(method string, p any) {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		st.notified(method, b)
	}
	take := func() string {
		st.mu.Lock()
		defer st.mu.Unlock()
		s := string(st.pending)
		st.pending, st.redrawLen = nil, 0
		return s
	}
	note(proto.NotifyOutput, proto.OutputParams{ID: "c", Gen: 1, Data: []byte("after-1 ")})
	note(proto.NotifyOutput, proto.OutputParams{ID: "other", Gen: 1, Data: []byte("not ours")})
	if got := take(); got != "" {
		t.Fatalf("output was written before its redraw: %q", got)
	}
	st.redraw(1, []byte("redraw-1 "))
	if got := take(); got != "redraw-1 after-1 " {
		t.Fatalf("after the first redraw: %q", got)
	}
	note(proto.NotifyOutput, proto.OutputParams{ID: "c", Gen: 1, Data: []byte("more ")})
	note(proto.NotifyOutput, proto.OutputParams{ID: "c", Gen: 2, Snapshot: true, Data: []byte("redraw-2 ")})
	note(proto.NotifyOutput, proto.OutputParams{ID: "c", Gen: 1, Data: []byte("stale ")})
	note(proto.NotifyOutput, proto.OutputParams{ID: "c", Gen: 2, Data: []byte("after-2 ")})
	st.redraw(1, []byte("an old answer"))
	if got := take(); got != "redraw-2 after-2 " {
		t.Fatalf("after the second redraw: %q", got)
	}

	note(proto.NotifyOutput, proto.OutputParams{ID: "c", Gen: 2, Data: bytes.Repeat([]byte("x"), maxBehind+1)})
	note(proto.NotifyOutput, proto.OutputParams{ID: "c", Gen: 2, Data: []byte("dropped too")})
	if got := take(); got != "" || resyncs != 1 {
		t.Fatalf("behind: %d bytes kept, %d redraws asked for", len(got), resyncs)
	}
	note(proto.NotifyExited, proto.ExitedParams{ID: "c", Gen: 3, How: "exit status 0", Status: "exited"})
	st.mu.Lock()
	if st.end == nil {
		t.Fatal("the end was not kept")
	}
	st.mu.Unlock()
	st.redraw(3, []byte("redraw-3 "))
	if got := take(); got != "redraw-3 " {
		t.Fatalf("after the redraw asked for: %q", got)
	}
}
