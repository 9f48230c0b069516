package e2e

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
)

// socketActivation is what systemd does for acpmux-tui.socket, done by
// the test: it binds the agent home's socket and holds it, and starts the
// server with it as descriptor 3.
type socketActivation struct {
	t  *testing.T
	c  *cli
	ln *net.UnixListener
	f  *os.File
}

func newSocketActivation(t *testing.T, c *cli, path string) *socketActivation {
	t.Helper()
	if err := os.MkdirAll(c.home, 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := ln.File()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(); ln.Close() })
	return &socketActivation{t: t, c: c, ln: ln, f: f}
}

// start runs `acpmux-tui server` as systemd would: the socket as
// descriptor 3, LISTEN_FDS=1 and LISTEN_PID its own pid (a shell sets it
// and execs the server, keeping its pid).
func (s *socketActivation) start() *activated { return s.startTo(nil) }

// activated is a server started with the socket; done is closed once it
// has ended, with its exit in err.
type activated struct {
	cmd  *exec.Cmd
	pid  int
	done chan struct{}
	err  error
}

// wait waits for the server's end.
func (a *activated) wait(t *testing.T, what string) error {
	t.Helper()
	select {
	case <-a.done:
		return a.err
	case <-time.After(wait.Hang):
		t.Fatalf("%s: the server (pid %d) did not end within %v", what, a.pid, wait.Hang)
		return nil
	}
}

// startTo is start with the server's stderr to w.
func (s *socketActivation) startTo(w io.Writer) *activated {
	s.t.Helper()
	cmd := exec.Command("/bin/sh", "-c", `LISTEN_PID=$$ exec "$0" server`, binary)
	cmd.Env = append(s.c.env(), "LISTEN_FDS=1", "LISTEN_FDNAMES=acpmux-tui.socket")
	cmd.Dir, cmd.Stderr = s.c.root, w
	cmd.ExtraFiles = []*os.File{s.f}
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	a := &activated{cmd: cmd, pid: cmd.Process.Pid, done: make(chan struct{})}
	go func() { a.err = cmd.Wait(); close(a.done) }()
	s.t.Cleanup(func() { cmd.Process.Kill(); <-a.done })
	return a
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// helloOn sends hello on a raw connection and reads the answer's line.
func helloOn(t *testing.T, nc net.Conn) string {
	t.Helper()
	if _, err := fmt.Fprintf(nc, `{"jsonrpc":"2.0","id":1,"method":%q,"params":{}}`+"\n", proto.MethodHello); err != nil {
		t.Fatal(err)
	}
	nc.SetReadDeadline(time.Now().Add(wait.Hang))
	line, err := bufio.NewReader(nc).ReadString('\n')
	if err != nil {
		t.Fatalf("read hello's answer: %v", err)
	}
	return line
}

// TestServerServesSystemdSocket: the server serves the listening socket
// it is handed as descriptor 3 (the same inode: nothing re-bound), keeps
// the lock, leaves the socket's file in place when killed, and the next
// server takes the connection that waited meanwhile.
func TestServerServesSystemdSocket(t *testing.T) {
	c := newCLI(t)
	rec := fakeHarnesses(t, c, map[string]string{"shell": "echo"})
	chat := c.chat("new", "--json")
	sock := proto.SocketPath(c.home)
	sa := newSocketActivation(t, c, sock)
	before := inode(t, sock)
	first := sa.start()
	var conn *client.Conn
	wait.Until(t, "the server to answer on the handed-over socket", func() bool {
		var err error
		conn, err = client.Dial(c.home)
		if err != nil {
			return false
		}
		return true
	})
	ctx, cancel := context.WithTimeout(context.Background(), wait.Hang)
	defer cancel()
	hello, err := conn.Hello(ctx)
	if err != nil {
		t.Fatalf("hello on the handed-over socket: %v", err)
	}
	// A harness it starts inherits none of systemd's variables.
	startChat(t, conn, chat.ID)
	for _, kv := range srvRecords(t, rec, 1)[0].Env {
		if strings.HasPrefix(kv, "LISTEN_") {
			t.Errorf("the harness inherited %s", kv)
		}
	}
	conn.Close()
	if hello.Pid != first.pid {
		t.Fatalf("hello from pid %d, the server started is %d", hello.Pid, first.pid)
	}
	if got := inode(t, sock); got != before {
		t.Fatalf("socket inode %d, was %d: the server re-bound it", got, before)
	}
	if fi, _ := os.Lstat(sock); fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v", fi.Mode())
	}
	// The lock still keeps a second server away.
	if r := c.run("server"); r.code == 0 || !strings.Contains(r.stderr, fmt.Sprintf("a server is already running for %s (pid %d)", c.home, hello.Pid)) {
		t.Fatalf("a second server: exit %d, %s", r.code, r.stderr)
	}
	if got := inode(t, sock); got != before {
		t.Fatalf("socket inode %d after a second server was refused, was %d", got, before)
	}

	first.cmd.Process.Signal(syscall.SIGKILL)
	first.wait(t, "kill -9")
	if got := inode(t, sock); got != before {
		t.Fatalf("socket inode %d after kill -9, was %d", got, before)
	}
	// A client connecting now waits in the socket's backlog, as under
	// systemd, and the next server answers it.
	nc, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatalf("connect while no server runs: %v", err)
	}
	defer nc.Close()
	second := sa.start()
	if line := helloOn(t, nc); !strings.Contains(line, fmt.Sprintf(`"pid":%d`, second.pid)) {
		t.Fatalf("hello answered %s, want the second server's pid %d", line, second.pid)
	}
	if got := inode(t, sock); got != before {
		t.Fatalf("socket inode %d with the second server, was %d", got, before)
	}
	// An orderly end leaves the file too.
	if r := c.run("kill-server"); r.code != 0 {
		t.Fatalf("kill-server: %d %s", r.code, r.stderr)
	}
	second.wait(t, "kill-server")
	if got := inode(t, sock); got != before {
		t.Fatalf("socket inode %d after kill-server, was %d", got, before)
	}
}

// TestServerRefusesAnotherSocket: a socket handed over that is bound
// elsewhere is refused with the reason, and nothing is served.
func TestServerRefusesAnotherSocket(t *testing.T) {
	c := newCLI(t)
	other := filepath.Join(c.root, "other.sock")
	sa := newSocketActivation(t, c, other)
	var stderr strings.Builder
	err := sa.startTo(&stderr).wait(t, "a socket bound elsewhere")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("server with another socket: %v\n%s", err, stderr.String())
	}
	want := "acpmux-tui: the socket systemd handed over (LISTEN_FDS=1): it is bound to " + other + "; the socket unit must have one ListenStream=" + proto.SocketPath(c.home) + " with SocketMode=0600"
	if !strings.Contains(stderr.String(), want) {
		t.Fatalf("server with another socket said:\n%s\nwant:\n%s", stderr.String(), want)
	}
	if _, err := os.Lstat(proto.SocketPath(c.home)); err == nil {
		t.Fatal("the refused server made a socket of its own")
	}
}

// serviceEnv is the environment of a service command: c's, with
// XDG_CONFIG_HOME in c's root.
func serviceEnv(c *cli) (unitDir string, env []string) {
	xdg := filepath.Join(c.root, "xdg")
	return filepath.Join(xdg, "systemd", "user"), []string{"XDG_CONFIG_HOME=" + xdg}
}

// wantUnits checks the text of the two units for c's home.
func wantUnits(t *testing.T, c *cli, service, socket string) {
	t.Helper()
	self, err := filepath.EvalSymlinks(binary)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"[Service]\nType=simple\nExecStart=\"" + self + "\" server\n",
		"Environment=\"ACPMUX_HOME=" + c.home + "\"\n",
		"Environment=\"ACPMUX_CONFIG=" + c.config + "\"\n",
		"Environment=\"PATH=" + filepath.Join(c.root, "bin") + "\"\n",
		"Requires=acpmux-tui.socket\n",
		"KillMode=mixed\n",
	} {
		if !strings.Contains(service, want) {
			t.Errorf("acpmux-tui.service lacks %q:\n%s", want, service)
		}
	}
	want := "[Socket]\nListenStream=" + proto.SocketPath(c.home) + "\nSocketMode=0600\nDirectoryMode=0700\n\n[Install]\nWantedBy=sockets.target\n"
	if !strings.Contains(socket, want) {
		t.Errorf("acpmux-tui.socket lacks %q:\n%s", want, socket)
	}
}

// TestServiceInstallDryRun prints both units, with where they would go,
// and writes nothing.
func TestServiceInstallDryRun(t *testing.T) {
	c := newCLI(t)
	dir, env := serviceEnv(c)
	r := c.runIn(c.root, env, "service", "install", "--dry-run")
	if r.code != 0 {
		t.Fatalf("service install --dry-run: %d\n%s", r.code, r.stderr)
	}
	svcHead, sockHead := "# "+filepath.Join(dir, "acpmux-tui.service")+"\n", "# "+filepath.Join(dir, "acpmux-tui.socket")+"\n"
	i, j := strings.Index(r.stdout, svcHead), strings.Index(r.stdout, sockHead)
	if i != 0 || j < 0 {
		t.Fatalf("service install --dry-run printed:\n%s", r.stdout)
	}
	wantUnits(t, c, r.stdout[i:j], r.stdout[j:])
	if !strings.HasSuffix(r.stdout, "# then: systemctl --user daemon-reload && systemctl --user enable --now acpmux-tui.socket\n") {
		t.Errorf("dry run ends:\n%s", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(c.root, "xdg")); err == nil {
		t.Error("--dry-run wrote something")
	}
	// The default home is left to the server: no ACPMUX_HOME in the unit.
	cmd := exec.Command(binary, "service", "install", "--dry-run")
	cmd.Env = []string{"HOME=" + filepath.Join(c.root, "user"), "PATH=/nowhere", "XDG_CONFIG_HOME=" + filepath.Join(c.root, "xdg")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "ACPMUX_HOME") || strings.Contains(string(out), "ACPMUX_CONFIG") ||
		!strings.Contains(string(out), "ListenStream="+filepath.Join(c.root, "user", ".local", "share", "acpmux", "acpmux.sock")+"\n") {
		t.Errorf("with the default home:\n%s", out)
	}
}

// TestServiceInstallWithoutSystemctl writes the units and says systemctl
// is absent; status reports them; uninstall removes them.
func TestServiceInstallWithoutSystemctl(t *testing.T) {
	c := newCLI(t)
	dir, env := serviceEnv(c)
	r := c.runIn(c.root, env, "service", "install")
	if r.code != 0 {
		t.Fatalf("service install: %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"wrote " + filepath.Join(dir, "acpmux-tui.service") + "\n",
		"wrote " + filepath.Join(dir, "acpmux-tui.socket") + "\n",
		"systemctl is not installed (no systemd here): nothing was asked of it\n",
		"loginctl enable-linger",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("service install printed:\n%s\nwant %q in it", r.stdout, want)
		}
	}
	service, err := os.ReadFile(filepath.Join(dir, "acpmux-tui.service"))
	if err != nil {
		t.Fatal(err)
	}
	socket, err := os.ReadFile(filepath.Join(dir, "acpmux-tui.socket"))
	if err != nil {
		t.Fatal(err)
	}
	wantUnits(t, c, string(service), string(socket))
	dry := c.runIn(c.root, env, "service", "install", "--dry-run")
	if !strings.Contains(dry.stdout, string(service)) || !strings.Contains(dry.stdout, string(socket)) {
		t.Errorf("install wrote other units than --dry-run prints:\n%s\n%s\n%s", service, socket, dry.stdout)
	}

	st := c.runIn(c.root, env, "service", "status")
	if want := filepath.Join(dir, "acpmux-tui.service") + ": installed\n" + filepath.Join(dir, "acpmux-tui.socket") + ": installed\n"; st.code != 0 || !strings.HasPrefix(st.stdout, want) {
		t.Errorf("service status: %d\n%s\nwant it to start with\n%s", st.code, st.stdout, want)
	}
	// Another PATH: the unit is no longer what install writes.
	st = c.runIn(c.root, append(env, "PATH=/elsewhere"), "service", "status")
	if !strings.Contains(st.stdout, "acpmux-tui.service: installed, but not what install writes now") {
		t.Errorf("service status with another PATH:\n%s", st.stdout)
	}

	un := c.runIn(c.root, env, "service", "uninstall")
	if un.code != 0 || !strings.Contains(un.stdout, "removed "+filepath.Join(dir, "acpmux-tui.service")+"\n") || !strings.Contains(un.stdout, "removed "+filepath.Join(dir, "acpmux-tui.socket")+"\n") {
		t.Fatalf("service uninstall: %d\n%s\n%s", un.code, un.stdout, un.stderr)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left in %s: %v", dir, left)
	}
	st = c.runIn(c.root, env, "service", "status")
	if !strings.Contains(st.stdout, "acpmux-tui.service: not installed") || !strings.Contains(st.stdout, "acpmux-tui.socket: not installed") {
		t.Errorf("service status after uninstall:\n%s", st.stdout)
	}
}

// TestServiceInstallAsksSystemctl: with systemctl installed (a script
// recording its arguments) and the user's manager answering, install
// reloads and enables the socket now, and uninstall disables both units.
func TestServiceInstallAsksSystemctl(t *testing.T) {
	c := newCLI(t)
	dir, env := serviceEnv(c)
	calls := filepath.Join(c.root, "systemctl.calls")
	script := "#!/bin/sh\necho \"$*\" >> " + calls + "\ncase \"$2\" in is-active) echo inactive; exit 3;; esac\n"
	if err := os.WriteFile(filepath.Join(c.root, "bin", "systemctl"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r := c.runIn(c.root, env, "service", "install")
	if r.code != 0 {
		t.Fatalf("service install: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"ran systemctl --user daemon-reload\n", "ran systemctl --user enable --now acpmux-tui.socket\n",
		"systemd listens on " + proto.SocketPath(c.home) + " and starts the server on the first connection\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("service install printed:\n%s\nwant %q", r.stdout, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "acpmux-tui.socket")); err != nil {
		t.Fatal(err)
	}
	if r := c.runIn(c.root, env, "service", "uninstall"); r.code != 0 || !strings.Contains(r.stdout, "ran systemctl --user disable --now acpmux-tui.socket acpmux-tui.service\n") {
		t.Fatalf("service uninstall: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	b, _ := os.ReadFile(calls)
	want := "--user show-environment\n--user is-active acpmux-tui.socket\n--user daemon-reload\n--user enable --now acpmux-tui.socket\n" +
		"--user show-environment\n--user disable --now acpmux-tui.socket acpmux-tui.service\n--user daemon-reload\n"
	if string(b) != want {
		t.Errorf("systemctl was run as:\n%s\nwant:\n%s", b, want)
	}
}
