package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/internal/testharness/startrecord"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
)

// These tests run the real binary's `server` and `kill-server` as a user
// (or a service manager) would, with fake harnesses in real ptys.

// srvHang is how long these tests wait before calling something a hang.
const srvHang = 3 * time.Minute

// srvWaitFor waits for cond (see wait.Until).
func srvWaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	wait.Until(t, what, cond)
}

// srvProcessAlive reports whether pid is a live process (a zombie is dead).
func srvProcessAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

// srvWaitGroupGone waits until a process group is empty (init reaps an
// orphan killed with its group).
func srvWaitGroupGone(t testing.TB, pgid int) {
	t.Helper()
	srvWaitFor(t, fmt.Sprintf("process group %d to empty", pgid), func() bool {
		return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
	})
}

// foregroundServer is `acpmux-tui server` run as a service manager would.
type foregroundServer struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	exited         chan struct{}
	err            error
}

// startForeground starts the server in the foreground and waits until it
// answers hello.
func startForeground(t *testing.T, c *cli) *foregroundServer {
	t.Helper()
	s := &foregroundServer{exited: make(chan struct{})}
	s.cmd = exec.Command(binary, "server")
	s.cmd.Env = c.env()
	s.cmd.Dir = c.root
	s.cmd.Stdout, s.cmd.Stderr = &s.stdout, &s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.err = s.cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			s.cmd.Process.Signal(syscall.SIGTERM)
			<-s.exited
		}
	})
	srvWaitFor(t, "the server to answer", func() bool {
		select {
		case <-s.exited:
			t.Fatalf("the server exited: %v\n%s", s.err, s.stderr.String())
		default:
		}
		conn, err := client.Dial(c.home)
		if err != nil {
			return false
		}
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), srvHang)
		defer cancel()
		h, err := conn.Hello(ctx)
		return err == nil && h.Pid == s.cmd.Process.Pid
	})
	return s
}

// wait waits for the server to exit and returns its exit status.
func (s *foregroundServer) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-s.exited:
	case <-time.After(srvHang):
		t.Fatal("the server did not exit")
	}
	return s.cmd.ProcessState.ExitCode()
}

// srvCall makes one call on a fresh connection.
func srvCall(t *testing.T, home, method string, params, result any) {
	t.Helper()
	conn, err := client.Dial(home)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), srvHang)
	defer cancel()
	if err := conn.Call(ctx, method, params, result); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// fakeHarnesses writes a config whose harnesses are the fake in the modes
// given, recording their starts in the returned file.
func fakeHarnesses(t *testing.T, c *cli, modes map[string]string) string {
	t.Helper()
	fake := buildFakeHarness(t)
	rec := filepath.Join(c.root, "starts.jsonl")
	var cfg strings.Builder
	cfg.WriteString("default_harness = \"shell\"\n")
	for name, mode := range modes {
		fmt.Fprintf(&cfg, "[harness.%s]\ncommand = %q\nenv = { ACPMUX_FAKE_RECORD = %q, ACPMUX_FAKE_MODE = %q }\n", name, fake, rec, mode)
	}
	if err := os.WriteFile(c.config, []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return rec
}

func srvRecords(t *testing.T, path string, n int) []startrecord.Record {
	t.Helper()
	var recs []startrecord.Record
	srvWaitFor(t, fmt.Sprintf("%d harness starts", n), func() bool {
		// A record being written is a partial last line: read again.
		var err error
		recs, err = startrecord.Read(path)
		return err == nil && len(recs) >= n
	})
	return recs
}

// TestServerSecondServerRefused: a second `server` on the same home exits
// 1 at once, naming the running one; kill-server ends the first, which
// exits 0.
func TestServerSecondServerRefused(t *testing.T) {
	c := newCLI(t)
	first := startForeground(t, c)
	r := c.run("server")
	want := fmt.Sprintf("acpmux-tui: a server is already running for %s (pid %d)\n", c.home, first.cmd.Process.Pid)
	if r.code != 1 || r.stderr != want || r.stdout != "" {
		t.Fatalf("second server: exit %d\nstderr %q\nwant   %q", r.code, r.stderr, want)
	}
	if r := c.run("kill-server"); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("kill-server: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	if code := first.wait(t); code != 0 {
		t.Fatalf("the server exited %d after kill-server\n%s", code, first.stderr.String())
	}
	if r := c.run("kill-server"); r.code != 1 || r.stderr != "acpmux-tui: no server running\n" {
		t.Fatalf("kill-server with none running: exit %d, %q", r.code, r.stderr)
	}
}

// TestServerKillServerStopsEveryHarness: a server started in the
// background by a client runs a harness with a child in its group and one
// that ignores SIGTERM and SIGHUP; kill-server returns once the server has
// gone, and no process of either harness is left. The chats stay, and a
// second kill-server finds no server.
func TestServerKillServerStopsEveryHarness(t *testing.T) {
	c := newCLI(t)
	rec := fakeHarnesses(t, c, map[string]string{"shell": "child", "stubborn": "stubborn"})
	for _, kv := range c.env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	conn, err := client.EnsureServer(c.home, binary)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), srvHang)
	defer cancel()
	hello, err := conn.Hello(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"shell", "stubborn"} {
		var chat proto.ChatJSON
		if err := conn.Call(ctx, proto.MethodNew, proto.NewParams{Harness: h}, &chat); err != nil {
			t.Fatal(err)
		}
		if err := conn.Call(ctx, proto.MethodStart, proto.ChatParams{ID: chat.ID}, nil); err != nil {
			t.Fatal(err)
		}
	}
	recs := srvRecords(t, rec, 2)
	conn.Close()

	if r := c.run("kill-server"); r.code != 0 {
		t.Fatalf("kill-server: exit %d, %q", r.code, r.stderr)
	}
	if srvProcessAlive(hello.Pid) {
		t.Fatalf("kill-server returned while the server %d runs", hello.Pid)
	}
	for _, r := range recs {
		if srvProcessAlive(r.Pid) || (r.ChildPid != 0 && srvProcessAlive(r.ChildPid)) {
			t.Errorf("a process of harness %d (child %d) is left", r.Pid, r.ChildPid)
		}
		srvWaitGroupGone(t, r.Pgid)
	}
	if _, err := os.Lstat(filepath.Join(c.home, proto.SocketName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is left: %v", err)
	}
	if n := len(c.ls()); n != 2 {
		t.Fatalf("%d chats after kill-server, want 2", n)
	}
	if r := c.run("kill-server"); r.code != 1 || r.stderr != "acpmux-tui: no server running\n" {
		t.Fatalf("second kill-server: exit %d, %q", r.code, r.stderr)
	}
}

// TestServerExitsWhenIdle: a server with no client and no harness ends by
// itself, with status 0, and takes its socket with it.
func TestServerExitsWhenIdle(t *testing.T) {
	c := newCLI(t)
	s := startForeground(t, c)
	if code := s.wait(t); code != 0 {
		t.Fatalf("idle server exited %d\n%s", code, s.stderr.String())
	}
	if _, err := os.Lstat(filepath.Join(c.home, proto.SocketName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is left: %v", err)
	}
	if s.stdout.Len() != 0 || s.stderr.Len() != 0 {
		t.Errorf("the server printed %q %q", s.stdout.String(), s.stderr.String())
	}
}

// TestServerSIGTERMStopsEveryHarness: SIGTERM to a foreground server (a
// service manager's stop) stops its harnesses and exits 0.
func TestServerSIGTERMStopsEveryHarness(t *testing.T) {
	c := newCLI(t)
	rec := fakeHarnesses(t, c, map[string]string{"shell": "child"})
	s := startForeground(t, c)
	var chat proto.ChatJSON
	srvCall(t, c.home, proto.MethodNew, nil, &chat)
	srvCall(t, c.home, proto.MethodStart, proto.ChatParams{ID: chat.ID}, nil)
	r := srvRecords(t, rec, 1)[0]
	s.cmd.Process.Signal(syscall.SIGTERM)
	if code := s.wait(t); code != 0 {
		t.Fatalf("server exited %d on SIGTERM\n%s", code, s.stderr.String())
	}
	if srvProcessAlive(r.Pid) || srvProcessAlive(r.ChildPid) {
		t.Fatal("a harness process outlived the server")
	}
	srvWaitGroupGone(t, r.Pgid)
}

// TestServerRefusesAnotherUser runs kill-server as another user (nobody)
// against a running server. With the modes the server sets (home 0700,
// socket 0600) the connect itself is refused; with both loosened, the
// connection is made and the server closes it before reading: the server
// keeps running either way.
func TestServerRefusesAnotherUser(t *testing.T) {
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv is not installed: cannot run a client as another user")
	}
	if os.Getuid() != 0 {
		t.Skip("not root: cannot run a client as another user")
	}
	c := newCLI(t)
	// Everything up to the agent home is open to others, so the home's own
	// mode is what stops them.
	for d := c.root; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(c.root, "bin", "acpmux-tui")
	if err := copyExecutable(binary, bin); err != nil {
		t.Fatal(err)
	}
	s := startForeground(t, c)
	asNobody := func() result {
		t.Helper()
		cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", bin, "kill-server")
		cmd.Env = c.env()
		cmd.Dir = "/"
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return result{out.String(), errb.String(), code}
	}
	stillServing := func() {
		t.Helper()
		var h proto.HelloResult
		srvCall(t, c.home, proto.MethodHello, nil, &h)
		if h.Pid != s.cmd.Process.Pid {
			t.Fatalf("hello from %d, want %d", h.Pid, s.cmd.Process.Pid)
		}
	}

	r := asNobody()
	if r.code != 1 || !strings.Contains(r.stderr, "permission denied") {
		t.Fatalf("nobody, default modes: exit %d, %q", r.code, r.stderr)
	}
	stillServing()

	// Loosened: the kernel lets nobody connect; the guard does not.
	if err := os.Chmod(c.home, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(c.home, proto.SocketName), 0o666); err != nil {
		t.Fatal(err)
	}
	r = asNobody()
	if r.code != 1 || !strings.Contains(r.stderr, "closed the connection") {
		t.Fatalf("nobody, loosened modes: exit %d, %q", r.code, r.stderr)
	}
	stillServing()
	log, _ := os.ReadFile(filepath.Join(c.home, "logs", "acpmux-tui.log"))
	if !strings.Contains(string(log), "refused a connection") || !strings.Contains(string(log), "peerUid=65534") {
		t.Fatalf("the log does not record the refusal:\n%s", log)
	}
}

func copyExecutable(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
