package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/screen"
)

// attachClient is a raw attached client: it reads every line the server
// writes on a goroutine of its own, hands answers to their callers, and
// draws the stream on a terminal emulator of its size the way a terminal
// would show it, following generations as the protocol says.
type attachClient struct {
	t          testing.TB
	w          *wire
	id         string
	cols, rows int

	mu       sync.Mutex
	answers  map[string]chan viewLine
	next     int
	scr      *screen.Screen
	cur      uint64
	held     []proto.OutputParams
	exited   *proto.ExitedParams
	redraws  int // redraws taken after the first
	received int // output bytes taken
	readErr  error
	// pause, when set, stops the reader before its next read until it is
	// closed.
	pause chan struct{}
	// slow makes the reader read a few KiB at a time, pausing between
	// reads: a client slower than the harness, not a stopped one.
	slow bool
}

func newAttachClient(r *rig, id string, cols, rows int) *attachClient {
	a := &attachClient{t: r.t, w: r.dial(), id: id, cols: cols, rows: rows,
		answers: map[string]chan viewLine{}, scr: screen.New(cols, rows, 0)}
	return a
}

// run starts the reader.
func (a *attachClient) run() {
	go func() {
		var r *bytesReader
		for {
			a.mu.Lock()
			pause, slow := a.pause, a.slow
			a.mu.Unlock()
			if pause != nil {
				<-pause
			}
			if slow && r == nil {
				r = &bytesReader{nc: a.w, pace: time.NewTicker(time.Millisecond)}
				defer r.pace.Stop()
				a.w.r.Reset(r)
			}
			a.w.nc.SetReadDeadline(time.Now().Add(hangDeadline))
			line, err := a.w.r.ReadBytes('\n')
			if err != nil {
				a.mu.Lock()
				a.readErr = err
				for _, ch := range a.answers {
					close(ch)
				}
				a.answers = map[string]chan viewLine{}
				a.mu.Unlock()
				return
			}
			var l viewLine
			if err := json.Unmarshal(line, &l); err != nil {
				a.t.Errorf("not JSON: %v\n%s", err, line)
				return
			}
			a.take(l)
		}
	}()
}

// bytesReader reads a connection as a slow terminal does: at most 4 KiB a
// read, and a read a tick of pace.
type bytesReader struct {
	nc   *wire
	pace *time.Ticker
}

func (b *bytesReader) Read(p []byte) (int, error) {
	<-b.pace.C
	return b.nc.nc.Read(p[:min(len(p), 4096)])
}

func (a *attachClient) take(l viewLine) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch l.Method {
	case "":
		if ch, ok := a.answers[string(l.ID)]; ok {
			delete(a.answers, string(l.ID))
			ch <- l
		}
	case proto.NotifyOutput:
		var p proto.OutputParams
		if err := json.Unmarshal(l.Params, &p); err != nil || p.ID != a.id {
			a.t.Errorf("output: %v %s", err, l.Params)
			return
		}
		a.received += len(p.Data)
		if p.Snapshot {
			a.redrawLocked(p.Gen, p.Data)
			return
		}
		switch {
		case p.Gen == a.cur:
			a.scr.Write(p.Data)
		case p.Gen > a.cur:
			a.held = append(a.held, p)
		}
	case proto.NotifyExited:
		var p proto.ExitedParams
		if err := json.Unmarshal(l.Params, &p); err != nil {
			a.t.Errorf("exited: %v", err)
		}
		a.exited = &p
	}
}

// redrawLocked starts a generation on a fresh terminal, as the protocol's
// redraw replaces everything before it.
func (a *attachClient) redrawLocked(gen uint64, snapshot []byte) {
	if gen <= a.cur {
		return
	}
	if a.cur != 0 {
		a.redraws++
	}
	a.cur = gen
	a.scr = screen.New(a.cols, a.rows, 0)
	a.scr.Write(snapshot)
	kept := a.held[:0]
	for _, h := range a.held {
		switch {
		case h.Gen == gen:
			a.scr.Write(h.Data)
		case h.Gen > gen:
			kept = append(kept, h)
		}
	}
	a.held = kept
}

// call sends a request and waits for its answer.
func (a *attachClient) call(method string, params any) viewLine {
	a.t.Helper()
	a.mu.Lock()
	a.next++
	id := fmt.Sprint(a.next)
	ch := make(chan viewLine, 1)
	a.answers[id] = ch
	a.mu.Unlock()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": a.next, "method": method, "params": params})
	if err != nil {
		a.t.Fatal(err)
	}
	a.w.send(string(b))
	select {
	case l, ok := <-ch:
		if !ok {
			a.t.Fatalf("%s: the connection ended: %v", method, a.readErr)
		}
		return l
	case <-time.After(hangDeadline):
		a.t.Fatalf("%s: no answer", method)
	}
	return viewLine{}
}

func (a *attachClient) ok(method string, params any, result any) {
	a.t.Helper()
	l := a.call(method, params)
	if l.Error != nil {
		a.t.Fatalf("%s: error %d %s %s", method, l.Error.Code, l.Error.Message, l.Error.Data)
	}
	if result != nil {
		if err := json.Unmarshal(l.Result, result); err != nil {
			a.t.Fatal(err)
		}
	}
}

// attach attaches and draws the answer's redraw; it returns the screen the
// redraw alone draws.
func (a *attachClient) attach() []string {
	a.t.Helper()
	var res proto.AttachResult
	a.ok(proto.MethodAttach, proto.AttachParams{ID: a.id, Cols: a.cols, Rows: a.rows}, &res)
	alone := screen.New(a.cols, a.rows, 0)
	alone.Write(res.Snapshot)
	a.mu.Lock()
	a.redrawLocked(res.Gen, res.Snapshot)
	a.mu.Unlock()
	return plain(alone)
}

func (a *attachClient) input(s string) {
	a.t.Helper()
	a.ok(proto.MethodAttachInput, proto.AttachInputParams{ID: a.id, Data: []byte(s)}, nil)
}

// screenText is the client's screen as plain text.
func (a *attachClient) screenText() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return strings.Join(plain(a.scr), "\n")
}

func (a *attachClient) waitScreen(text string) {
	a.t.Helper()
	waitFor(a.t, fmt.Sprintf("%q on the attached screen", text), func() bool {
		return strings.Contains(a.screenText(), text)
	})
}

func plain(s *screen.Screen) []string {
	_, rows := s.Size()
	out := make([]string, rows)
	for i := range out {
		out[i] = s.PlainLine(i)
	}
	return out
}

// newShellChat makes a chat of the echoing fake harness.
func newShellChat(r *rig) proto.ChatJSON {
	var c proto.ChatJSON
	r.dial().ok(proto.MethodNew, proto.NewParams{Harness: "shell"}, &c)
	return c
}

// TestAttachDetachLeavesTheHarnessRunning attaches, types, detaches: the
// harness still runs, and a second attach shows the same screen from its
// redraw alone, and can type.
func TestAttachDetachLeavesTheHarnessRunning(t *testing.T) {
	r := newRig(t, rigOpt{})
	chat := newShellChat(r)
	first := newAttachClient(r, chat.ID, 70, 20)
	first.run()
	first.attach()
	first.waitScreen("ready>")
	rec := r.waitRecords(1)[0]
	if rec.Cols != 70 || rec.Rows != 20 {
		t.Errorf("the harness started at %dx%d, want the client's 70x20", rec.Cols, rec.Rows)
	}
	first.input("through the server\r")
	first.waitScreen("echo: through the server")
	first.ok(proto.MethodDetach, proto.DetachParams{ID: chat.ID}, nil)
	if err := first.w.nc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(rec.Pid, 0); err != nil {
		t.Fatalf("the harness is gone after a detach: %v", err)
	}

	second := newAttachClient(r, chat.ID, 70, 20)
	second.run()
	drawn := strings.Join(second.attach(), "\n")
	if !strings.Contains(drawn, "echo: through the server") || !strings.Contains(drawn, "ready>") {
		t.Fatalf("the second attach's redraw shows:\n%s", drawn)
	}
	second.input("again\r")
	second.waitScreen("echo: again")
	if n := len(r.records()); n != 1 {
		t.Fatalf("the harness was started %d times", n)
	}
	var list proto.ListResult
	second.ok(proto.MethodList, nil, &list)
	if st := list.Chats[0].Status; st != "running" && st != "waiting" {
		t.Fatalf("the chat is %s", st)
	}
}

// TestAttachTwoClients: two clients attached to one chat both see its
// output and both type into it.
func TestAttachTwoClients(t *testing.T) {
	r := newRig(t, rigOpt{})
	chat := newShellChat(r)
	a := newAttachClient(r, chat.ID, 80, 24)
	b := newAttachClient(r, chat.ID, 80, 24)
	a.run()
	b.run()
	a.attach()
	b.attach()
	a.waitScreen("ready>")
	b.waitScreen("ready>")
	a.input("from a\r")
	b.waitScreen("echo: from a")
	b.input("from b\r")
	a.waitScreen("echo: from b")
	b.waitScreen("echo: from b")
}

// TestAttachSizeFollowsTheLastClient: the pty takes the size of the client
// that last resized or typed.
func TestAttachSizeFollowsTheLastClient(t *testing.T) {
	r := newRig(t, rigOpt{})
	chat := newShellChat(r)
	a := newAttachClient(r, chat.ID, 80, 24)
	b := newAttachClient(r, chat.ID, 100, 30)
	a.run()
	b.run()
	a.attach()
	a.waitScreen("ready>")
	size := func() (int, int) {
		tm := r.srv.opt.Mux.Terminal(chat.ID)
		return tm.Cols, tm.Rows
	}
	b.attach()
	if c, rw := size(); c != 100 || rw != 30 {
		t.Fatalf("after b attached the pty is %dx%d", c, rw)
	}
	a.input("x")
	if c, rw := size(); c != 80 || rw != 24 {
		t.Fatalf("after a typed the pty is %dx%d", c, rw)
	}
	b.ok(proto.MethodAttachResize, proto.AttachResizeParams{ID: chat.ID, Cols: 90, Rows: 25}, nil)
	if c, rw := size(); c != 90 || rw != 25 {
		t.Fatalf("after b resized the pty is %dx%d", c, rw)
	}
}

// TestAttachExited: the harness exiting by itself ends the stream with how
// it ended, after its last output.
func TestAttachExited(t *testing.T) {
	r := newRig(t, rigOpt{})
	chat := newShellChat(r)
	a := newAttachClient(r, chat.ID, 80, 24)
	a.run()
	a.attach()
	a.waitScreen("ready>")
	a.input("last words\r\x04")
	waitFor(t, "the exited notification", func() bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.exited != nil
	})
	if e := a.exited; e.How != "exit status 0" || e.Status != "exited" || e.ExitCode != 0 {
		t.Fatalf("exited: %+v", e)
	}
	if s := a.screenText(); !strings.Contains(s, "echo: last words") {
		t.Fatalf("the last output did not come before the end:\n%s", s)
	}
	// The stream is over: input is refused, not sent anywhere.
	if l := a.call(proto.MethodAttachInput, proto.AttachInputParams{ID: chat.ID, Data: []byte("x")}); l.Error == nil {
		t.Fatal("input after the end was taken")
	}
}

// TestAttachRefusals: an ACP chat, an unknown chat, a bad size, input
// without an attachment.
func TestAttachRefusals(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()
	var acp proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Harness: "opencode"}, &acp)
	e := w.fails(proto.CodeInvalidParams, proto.MethodAttach, proto.AttachParams{ID: acp.ID, Cols: 80, Rows: 24})
	if !strings.Contains(e.Message, "ACP") {
		t.Errorf("ACP refusal: %q", e.Message)
	}
	w.fails(proto.CodeChatNotFound, proto.MethodAttach, proto.AttachParams{ID: "nosuch", Cols: 80, Rows: 24})
	chat := newShellChat(r)
	w.fails(proto.CodeInvalidParams, proto.MethodAttach, proto.AttachParams{ID: chat.ID, Cols: -1, Rows: 24})
	w.fails(proto.CodeInvalidParams, proto.MethodAttach, proto.AttachParams{Cols: 80, Rows: 24})
	w.fails(proto.CodeFailed, proto.MethodAttachInput, proto.AttachInputParams{ID: chat.ID, Data: []byte("x")})
	w.fails(proto.CodeFailed, proto.MethodAttachResize, proto.AttachResizeParams{ID: chat.ID, Cols: 80, Rows: 24})
	w.fails(proto.CodeFailed, proto.MethodAttach, proto.AttachParams{ID: chat.ID, Resync: true})
	if n := len(r.records()); n != 0 {
		t.Fatalf("a refused attach started %d harnesses", n)
	}
}

// TestAttachFloodWithAStoppedAndASlowReader: while a harness floods its
// pty, one attached client stops reading and another reads slowly. The
// harness and the slow client are not held up: the slow client gets to the
// end of the flood (its screen shows the last line), through gathered
// output and redraws, and is not dropped; the stopped one is never waited
// on.
func TestAttachFloodWithAStoppedAndASlowReader(t *testing.T) {
	flood := filepath.Join(t.TempDir(), "flood.txt")
	var b bytes.Buffer
	for i := 0; b.Len() < 8<<20; i++ {
		fmt.Fprintf(&b, "\x1b[3%dmline %d of the flood, ü ✓\x1b[0m\r\n", i%8, i)
	}
	if err := os.WriteFile(flood, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, rigOpt{flood: flood})
	var chat proto.ChatJSON
	r.dial().ok(proto.MethodNew, proto.NewParams{Harness: "flood"}, &chat)

	stopped := newAttachClient(r, chat.ID, 80, 24)
	stopped.pause = make(chan struct{})
	stopped.run()
	// Attached with a raw call: its answer is never read.
	stopped.w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{"id":%q,"cols":80,"rows":24}}`, proto.MethodAttach, chat.ID))
	r.waitRecords(1)

	slow := newAttachClient(r, chat.ID, 80, 24)
	slow.slow = true
	slow.run()
	slow.attach()
	slow.waitScreen("FLOOD-DONE")
	slow.mu.Lock()
	redraws, received, readErr := slow.redraws, slow.received, slow.readErr
	slow.mu.Unlock()
	if readErr != nil {
		t.Fatalf("the slow client was dropped: %v", readErr)
	}
	t.Logf("the slow client read %d bytes of stream for an %d-byte flood, with %d redraws", received, b.Len(), redraws)
	slow.ok(proto.MethodHello, nil, nil)
	close(stopped.pause)
}
