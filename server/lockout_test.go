package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

// holdEnv makes the test binary a process that holds connections open
// (TestHelperHoldConnections): "SOCKET COUNT hello|silent".
const holdEnv = "ACPMUX_TEST_HOLD"

// TestHelperHoldConnections is not a test: run with holdEnv set, it opens
// COUNT connections to SOCKET, each making one hello call (or none),
// prints how many the server answered, then holds them all until its
// stdin closes.
func TestHelperHoldConnections(t *testing.T) {
	spec := os.Getenv(holdEnv)
	if spec == "" {
		t.Skip("a helper process, not a test")
	}
	f := strings.Fields(spec)
	n, _ := strconv.Atoi(f[1])
	var conns []net.Conn
	answered := 0
	for range n {
		nc, err := net.Dial("unix", f[0])
		if err != nil {
			continue
		}
		conns = append(conns, nc)
		if f[2] != "hello" {
			continue
		}
		nc.SetDeadline(time.Now().Add(hangDeadline))
		fmt.Fprintf(nc, `{"jsonrpc":"2.0","id":1,"method":"_acpmux/hello"}`+"\n")
		if line, err := bufio.NewReader(nc).ReadString('\n'); err == nil && strings.Contains(line, `"result"`) {
			answered++
		}
		nc.SetDeadline(time.Time{})
	}
	fmt.Printf("answered %d\n", answered)
	io.Copy(io.Discard, os.Stdin)
	for _, nc := range conns {
		nc.Close()
	}
}

// holder is a helper process holding connections.
type holder struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	answered int
}

func holdConnections(t *testing.T, r *rig, count int, mode string) *holder {
	t.Helper()
	h := &holder{cmd: exec.Command(os.Args[0], "-test.run=^TestHelperHoldConnections$", "-test.v=false")}
	h.cmd.Env = append(os.Environ(), holdEnv+"="+r.home+"/"+proto.SocketName+" "+strconv.Itoa(count)+" "+mode)
	var err error
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.stdin.Close(); h.cmd.Wait() })
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- l
		io.Copy(io.Discard, out)
	}()
	select {
	case l := <-line:
		if _, err := fmt.Sscanf(l, "answered %d", &h.answered); err != nil {
			t.Fatalf("the holder said %q", l)
		}
	case <-time.After(hangDeadline):
		t.Fatalf("the holder of %d connections did not say it holds them", count)
	}
	return h
}

// TestNoLockOut: two processes that each open 600 connections and hold
// them (the server's 512 slots and more) shut nobody else out: a fresh
// hello, a list and a status report are answered, and each holder got at
// most its share. Connections that never make a call are closed after
// FirstCallWait.
func TestNoLockOut(t *testing.T) {
	r := newRig(t, rigOpt{opt: func(o *Options) { o.FirstCallWait = time.Second }})
	var chat proto.ChatJSON
	r.dial().ok(proto.MethodNew, proto.NewParams{Name: "still listed"}, &chat)

	a := holdConnections(t, r, 600, "hello")
	b := holdConnections(t, r, 600, "hello")
	t.Logf("held: %d and %d connections answered, %d clients now", a.answered, b.answered, r.srv.stats().clients)
	if a.answered > DefaultMaxPerPeer || b.answered > DefaultMaxPerPeer {
		t.Fatalf("a process held %d and %d connections, past the cap of %d", a.answered, b.answered, DefaultMaxPerPeer)
	}
	for i := range 20 {
		w := r.dial()
		w.ok(proto.MethodHello, nil, nil)
		var list proto.ListResult
		w.ok(proto.MethodList, nil, &list)
		if len(list.Chats) != 1 || list.Chats[0].Name != "still listed" {
			t.Fatalf("call %d: list %+v", i, list.Chats)
		}
		// A report for a chat that is not running: answered (refused), not
		// left waiting behind the cap.
		w.fails(proto.CodeInvalidParams, proto.MethodHook, proto.HookParams{ID: chat.ID, Event: "Stop"})
		w.nc.Close()
	}

	// Connections that never call are closed.
	before := r.srv.stats().clients
	holdConnections(t, r, 100, "silent")
	waitFor(t, fmt.Sprintf("100 silent connections closed (back to at most %d clients)", before), func() bool {
		return r.srv.stats().clients <= before
	})
}
