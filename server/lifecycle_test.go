package server

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestIdleServerEnds: a server no one uses ends by itself.
func TestIdleServerEnds(t *testing.T) {
	r := newRig(t, rigOpt{opt: func(o *Options) { o.IdleGrace = 10 * time.Millisecond }})
	r.waitEnd()
	if _, err := os.Lstat(proto.SocketPath(r.home)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the socket is left: %v", err)
	}
}

// TestServerStaysWhileAHarnessRuns: with no client left but a harness
// running, the server stays; once the harness is stopped and the last
// client leaves, it ends.
func TestServerStaysWhileAHarnessRuns(t *testing.T) {
	var mu sync.Mutex
	sawBusyAlone := false
	r := newRig(t, rigOpt{
		opt: func(o *Options) { o.IdleGrace = 10 * time.Millisecond },
		server: func(s *Server) {
			s.checked = func(idle bool) {
				if !idle && s.stats().clients == 0 {
					mu.Lock()
					sawBusyAlone = true
					mu.Unlock()
				}
			}
		},
	})
	a := r.dial()
	var c proto.ChatJSON
	a.ok(proto.MethodNew, nil, &c)
	a.ok(proto.MethodStart, proto.ChatParams{ID: c.ID}, nil)
	rec := r.waitRecords(1)[0]
	a.nc.Close()
	waitFor(t, "the monitor to find no client but a harness running", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return sawBusyAlone
	})
	select {
	case <-r.finished:
		t.Fatal("the server ended while a harness ran")
	default:
	}
	b := r.dial()
	var list proto.ListResult
	b.ok(proto.MethodList, nil, &list)
	if len(list.Chats) != 1 || !live(list.Chats[0].Status) {
		t.Fatalf("after the client left: %+v", list.Chats)
	}
	b.ok(proto.MethodStop, proto.ChatParams{ID: c.ID}, nil)
	b.nc.Close()
	r.waitEnd()
	if processAlive(rec.Pid) {
		t.Fatal("the harness outlived the server")
	}
	waitGroupGone(t, rec.Pgid)
}

// TestKillStopsEveryHarnessAndTheServer: kill is answered, then every
// harness (a child in its group too, and one that ignores SIGTERM) is
// stopped, the connection closes, the socket goes and the lock is free.
func TestKillStopsEveryHarnessAndTheServer(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()
	var a, b proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Harness: "child"}, &a)
	w.ok(proto.MethodNew, proto.NewParams{Harness: "shell"}, &b)
	w.ok(proto.MethodStart, proto.ChatParams{ID: a.ID}, nil)
	w.ok(proto.MethodStart, proto.ChatParams{ID: b.ID}, nil)
	recs := r.waitRecords(2)
	other := r.dial()

	var k proto.KillResult
	w.ok(proto.MethodKill, nil, &k)
	if k.Pid != os.Getpid() {
		t.Fatalf("kill answered %+v", k)
	}
	if err := w.closedByServer(); err != nil {
		t.Fatal(err)
	}
	if err := other.closedByServer(); err != nil {
		t.Fatal(err)
	}
	r.waitEnd()
	for _, rec := range recs {
		if processAlive(rec.Pid) || (rec.ChildPid != 0 && processAlive(rec.ChildPid)) {
			t.Errorf("a process of harness %d (child %d) is left", rec.Pid, rec.ChildPid)
		}
		waitGroupGone(t, rec.Pgid)
	}
	if _, err := os.Lstat(proto.SocketPath(r.home)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the socket is left: %v", err)
	}
	lock, err := TakeLock(r.home)
	if err != nil {
		t.Fatalf("the lock is still held: %v", err)
	}
	lock.Release()
	if len(r.chatFiles()) != 2 {
		t.Fatal("the chats' files did not stay")
	}
}

// pokeCounter counts a server's requests to the monitor's idle check.
type pokeCounter struct {
	mu sync.Mutex
	n  int
}

// hook counts s's requests from now on.
func (p *pokeCounter) hook(s *Server) {
	s.poked = func() {
		p.mu.Lock()
		p.n++
		p.mu.Unlock()
	}
}

func (p *pokeCounter) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

// TestLinesDoNotAskTheIdleCheck: a chat printing line after line asks the
// monitor's idle check nothing (its harness neither starts nor ends); its
// harness's end does. It counts the requests to look again, not the looks,
// which coalesce: every request a start makes precedes its first screen.
func TestLinesDoNotAskTheIdleCheck(t *testing.T) {
	var pokes pokeCounter
	r := newRig(t, rigOpt{server: pokes.hook})
	count := pokes.count
	a := newViewClient(r)
	c := a.started(80, 24, "")[0]
	a.waitScreen(c.ID, "ready>")
	before := count()
	if before == 0 {
		t.Fatal("the chat's start asked the idle check nothing")
	}
	for i := range 20 {
		line := "line " + string(rune('a'+i))
		a.write(c.ID, line+"\r")
		a.waitScreen(c.ID, "echo: "+line)
	}
	if got := count(); got != before {
		t.Fatalf("20 lines echoed asked the idle check %d times, want none", got-before)
	}
	a.ok(proto.MethodStop, proto.ChatParams{ID: c.ID}, nil)
	waitFor(t, "the harness's end to reach the idle check", func() bool { return count() > before })
}

// TestTurnsDoNotAskTheIdleCheck: an ACP chat's turns ask the monitor's
// idle check nothing either: a turn neither starts nor ends a harness, and
// the connection that sent it counts as a client until it closes.
func TestTurnsDoNotAskTheIdleCheck(t *testing.T) {
	var pokes pokeCounter
	p := newPromptRig(t, pokes.hook)
	count := pokes.count
	b := p.stream()
	b.observe()
	b.prompt("first", true) // starts the agent
	before := count()
	for i := range 5 {
		b.prompt(fmt.Sprintf("turn %d", i), true)
	}
	if got := count(); got != before {
		t.Fatalf("5 turns asked the idle check %d times, want none", got-before)
	}
}
