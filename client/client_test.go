package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"golang.org/x/sys/unix"
)

// binary is acpmux-tui, built once: EnsureServer starts it.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "acpmux-client-test")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "acpmux-tui")
	if out, err := exec.Command("go", "build", "-o", binary, "..").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build acpmux-tui: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const hangDeadline = 3 * time.Minute

// home returns a fresh agent home (not created) with the config file
// pointed at a file that does not exist: built-in defaults.
func home(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("ACPMUX_CONFIG", filepath.Join(root, "config.toml"))
	return filepath.Join(root, "agent")
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), hangDeadline)
	t.Cleanup(cancel)
	return c
}

// killAtEnd stops the home's server when the test ends, whatever happened.
func killAtEnd(t *testing.T, h string) {
	t.Cleanup(func() {
		if _, err := KillServer(context.Background(), h); err != nil && !errors.Is(err, ErrNoServer) {
			t.Errorf("kill the server: %v", err)
		}
	})
}

func TestDialWithoutServer(t *testing.T) {
	h := home(t)
	if _, err := Dial(h); !errors.Is(err, ErrNoServer) {
		t.Fatalf("no home: %v", err)
	}
	if err := os.MkdirAll(h, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(h); !errors.Is(err, ErrNoServer) {
		t.Fatalf("no socket: %v", err)
	}
	// The socket of a server that was killed: nothing listens.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: proto.SocketPath(h), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := Dial(h); !errors.Is(err, ErrNoServer) {
		t.Fatalf("stale socket: %v", err)
	}
	if LiveStatuses(h) != nil {
		t.Fatal("live statuses without a server")
	}
	if _, err := KillServer(ctx(t), h); !errors.Is(err, ErrNoServer) {
		t.Fatalf("kill without a server: %v", err)
	}
}

// TestLiveStatusesNeverStartsAServer: with no server, nothing is started
// and nothing is made in the agent home.
func TestLiveStatusesNeverStartsAServer(t *testing.T) {
	h := home(t)
	if LiveStatuses(h) != nil {
		t.Fatal("statuses without a server")
	}
	if _, err := os.Stat(h); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the agent home was made: %v", err)
	}
	if StatusOf(nil, "abc") != "stopped" || StatusOf(map[string]proto.ChatJSON{"abc": {Status: "running"}}, "abc") != "running" {
		t.Fatal("StatusOf")
	}
}

// TestEnsureServerStartsOneDetached: the server started is detached (its
// own session, stdio on /dev/null), answers calls, is shared by later
// clients, and kill-server leaves no process.
func TestEnsureServerStartsOneDetached(t *testing.T) {
	h := home(t)
	killAtEnd(t, h)
	c, err := EnsureServer(h, binary)
	if err != nil {
		t.Fatal(err)
	}
	hello, err := c.Hello(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	pid := hello.Pid
	if sid, err := unix.Getsid(pid); err != nil || sid != pid {
		t.Errorf("server %d is in session %d (%v), want its own", pid, sid, err)
	}
	for fd := range 3 {
		if target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, fd)); err != nil || target != "/dev/null" {
			t.Errorf("server fd %d is %q (%v), want /dev/null", fd, target, err)
		}
	}
	if _, err := os.Stat(filepath.Join(h, "logs", "acpmux-tui.log")); err != nil {
		t.Errorf("no log: %v", err)
	}

	var chat proto.ChatJSON
	if err := c.Call(ctx(t), proto.MethodNew, proto.NewParams{Name: "from the client"}, &chat); err != nil {
		t.Fatal(err)
	}
	err = c.Call(ctx(t), "_acpmux/nosuch", nil, nil)
	var rpcErr *RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != proto.CodeMethodNotFound {
		t.Fatalf("unknown method: %v", err)
	}
	err = c.Call(ctx(t), proto.MethodSetDirectories, map[string]any{"id": chat.ID, "additionalDirectories": []string{"relative"}}, nil)
	if !errors.As(err, &rpcErr) || rpcErr.Code != proto.CodeInvalidParams {
		t.Fatalf("relative folder: %v", err)
	}
	live := LiveStatuses(h)
	if live == nil || StatusOf(live, chat.ID) != "stopped" {
		t.Fatalf("live statuses: %v", live)
	}

	// Clients that come later, at once, share the one server.
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c2, err := EnsureServer(h, binary)
			if err != nil {
				t.Error(err)
				return
			}
			defer c2.Close()
			if h2, err := c2.Hello(ctx(t)); err != nil || h2.Pid != pid {
				t.Errorf("a later client reached %d (%v), want %d", h2.Pid, err, pid)
			}
		}()
	}
	wg.Wait()
	c.Close()

	got, err := KillServer(ctx(t), h)
	if err != nil || got != pid {
		t.Fatalf("kill: %d %v", got, err)
	}
	if processStart(pid) != "" {
		t.Fatalf("server %d is still there after kill", pid)
	}
	if LiveStatuses(h) != nil {
		t.Fatal("statuses after kill")
	}
}

// TestEnsureServerRaceStartsOne: clients that find no server at the same
// moment start one between them; every client reaches it, and the others
// that were started give way.
func TestEnsureServerRaceStartsOne(t *testing.T) {
	h := home(t)
	killAtEnd(t, h)
	pids := make(chan int, 6)
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := EnsureServer(h, binary)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			hello, err := c.Hello(ctx(t))
			if err != nil {
				t.Error(err)
				return
			}
			pids <- hello.Pid
		}()
	}
	wg.Wait()
	close(pids)
	first := 0
	for pid := range pids {
		if first == 0 {
			first = pid
		}
		if pid != first {
			t.Fatalf("two servers: %d and %d", first, pid)
		}
	}
}

// TestCallAfterTheServerCloses: a call on a connection the server has
// closed fails at once, with the reason.
func TestCallAfterTheServerCloses(t *testing.T) {
	h := home(t)
	killAtEnd(t, h)
	c, err := EnsureServer(h, binary)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := KillServer(ctx(t), h); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
	case <-time.After(hangDeadline):
		t.Fatal("the connection did not end")
	}
	if err := c.Call(ctx(t), proto.MethodHello, nil, nil); err == nil {
		t.Fatal("a call on a closed connection succeeded")
	}
}
