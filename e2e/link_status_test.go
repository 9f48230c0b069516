package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/internal/testharness/sshd"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
)

// TestHostLinkDownNamesSSHsReason: a link whose far side stops answering
// (its sshd frozen, as a cut network leaves it) ends on ssh's keepalive,
// and the host's state, and the error a call to one of its chats gets,
// name ssh's own reason, though the ssh config hushes ssh (the rig's has
// LogLevel ERROR, where ssh exits 255 saying nothing); once sshd answers
// again the Router dials the host again and the state is clear.
func TestHostLinkDownNamesSSHsReason(t *testing.T) {
	r := newHostRig(t)
	far := r.chat("new", "--host", "test", "--name", "far", "--json")
	id := "test" + client.HostSep + far.ID
	// ssh gives up on a host silent for two seconds; the first value ssh
	// reads wins over LinkSSHOptions'.
	rt := r.newRouterWith(append([]string{"-o", "ServerAliveInterval=1", "-o", "ServerAliveCountMax=1"}, client.LinkSSHOptions()...)...)
	wait.UntilShow(t, "host test to answer", func() bool { return hostDown(rt) == "" }, func() string { return hostDown(rt) })

	// Every sshd of the rig stops: the link's session, and the listener,
	// so that no new link comes up while the lost one is looked at.
	listener := r.sshdPid()
	stopped := append(sshdsUnder(listener), listener)
	t.Cleanup(func() {
		for _, pid := range stopped {
			syscall.Kill(pid, syscall.SIGCONT)
		}
	})
	for _, pid := range stopped {
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatalf("stop sshd %d: %v", pid, err)
		}
	}
	wait.UntilShow(t, "the router to say the link is down", func() bool { return hostDown(rt) != "" }, func() string { return hostDown(rt) })
	down := hostDown(rt)
	const reason = "Timeout, server 127.0.0.1 not responding"
	if !strings.Contains(down, "the link to host test is down: ssh to host test (test) failed: "+reason) || strings.Contains(down, "exit status") {
		t.Fatalf("host test is down with %q; want ssh's reason (%q), not its exit status", down, reason)
	}
	if err := rt.Write(id, []byte("x")); err == nil || !strings.Contains(err.Error(), reason) {
		t.Fatalf("keys to a chat of host test while its link is down: %v; want an error with ssh's reason", err)
	}

	for _, pid := range stopped {
		syscall.Kill(pid, syscall.SIGCONT)
	}
	wait.UntilShow(t, "the router to dial host test again", func() bool { return hostDown(rt) == "" }, func() string { return hostDown(rt) })
}

// TestE2ETUIStatusLineLinkDownThenBack runs the TUI in tmux with
// [host.test] behind the real sshd, ssh giving up on a host silent for two
// seconds (ssh_options win over the TUI's own): with sshd frozen, keys
// typed into the remote chat are refused and the status line says why in
// ssh's words, not "exit status 255"; once sshd answers and the link is
// back, the status line says so and no longer says the link is down.
func TestE2ETUIStatusLineLinkDownThenBack(t *testing.T) {
	needTmux(t)
	r := newHostRig(t)
	r.remoteFake(buildFakeHarness(t))
	r.writeSSHOptions("-o", "ServerAliveInterval=1", "-o", "ServerAliveCountMax=1")
	r.chat("new", "--host", "test", "--harness", "claude", "--name", "far", "--json")

	// Wide enough that the status line (two thirds of it) holds ssh's
	// reason whole.
	s := startTmux(t, 250, 40, append(r.env(), "TERM=xterm-256color"), []string{binary})
	s.waitFor("host test up, its chat listed", func(scr string) bool {
		return strings.Contains(scr, "▾ test") && strings.Contains(scr, "far") && !strings.Contains(scr, "▾ test · down")
	})
	s.keys("Enter") // the only chat: far, started and focused
	s.waitText("ready>", "keys go to claude")

	listener := r.sshdPid()
	stopped := append(sshdsUnder(listener), listener)
	t.Cleanup(func() {
		for _, pid := range stopped {
			syscall.Kill(pid, syscall.SIGCONT)
		}
	})
	for _, pid := range stopped {
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatalf("stop sshd %d: %v", pid, err)
		}
	}
	s.waitText("link down · reconnecting", "▾ test · down")
	s.text("lost keys")
	s.keys("Enter")
	const said = "✗ send keys: the link to host test is down: ssh to host test (test) failed: Timeout, server 127.0.0.1 not responding"
	if scr := s.waitText("✗ send keys: the link to host test is down"); !strings.Contains(scr, said) || strings.Contains(scr, "exit status") {
		t.Fatalf("the status line does not give ssh's reason (%q):\n%s", said, scr)
	}

	for _, pid := range stopped {
		syscall.Kill(pid, syscall.SIGCONT)
	}
	s.waitFor("the link back, the status line saying so", func(scr string) bool {
		return strings.Contains(scr, "✓ reconnected to host test") && !strings.Contains(scr, "is down") &&
			!strings.Contains(scr, "link down") && !strings.Contains(scr, "▾ test · down")
	})
	s.keys("C-]")
	s.quit()
}

// writeSSHOptions writes the local config's [host.test] with more ssh
// options after the rig's.
func (r *hostRig) writeSSHOptions(more ...string) {
	r.t.Helper()
	opts := []string{"-F", r.sshd.Config}
	var quoted []string
	for _, o := range append(opts, more...) {
		quoted = append(quoted, strconv.Quote(o))
	}
	conf := fmt.Sprintf("[host.test]\nssh = %q\nssh_options = [%s]\nhome = %q\ncommand = %q\n",
		sshd.Alias, strings.Join(quoted, ", "), r.remoteHome, r.command)
	if err := os.WriteFile(r.config, []byte(conf), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// newRouterWith is newRouter with extra as the ssh arguments of every dial.
func (r *hostRig) newRouterWith(extra ...string) *client.Router {
	r.t.Helper()
	for _, kv := range r.env() {
		k, v, _ := strings.Cut(kv, "=")
		r.t.Setenv(k, v)
	}
	conn, err := client.EnsureServer(r.home, binary)
	if err != nil {
		r.t.Fatal(err)
	}
	local, err := client.NewRemote(conn)
	if err != nil {
		r.t.Fatal(err)
	}
	local.Follow(r.home, binary)
	rt := client.NewRouter(local, []client.Host{r.host()}, extra...)
	r.t.Cleanup(rt.Close)
	return rt
}

// sshdPid is the pid of the rig's sshd, which listens (from its PidFile).
func (r *hostRig) sshdPid() int {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.sshd.Dir, "sshd.pid"))
	if err != nil {
		r.t.Fatalf("read the rig's sshd pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		r.t.Fatalf("the rig's sshd pid file: %v", err)
	}
	return pid
}

// sshdsUnder is every sshd process below pid (the sessions it forked,
// and their own children: a monitor and the session itself for a user
// other than root), not what runs in a session.
func sshdsUnder(pid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*")
	var out []int
	parents := map[int]bool{pid: true}
	for grew := true; grew; {
		grew = false
		for _, dir := range stats {
			p, _ := strconv.Atoi(filepath.Base(dir))
			if parents[p] || !parents[ppid(p)] {
				continue
			}
			comm, err := os.ReadFile(filepath.Join(dir, "comm"))
			if err != nil || !strings.HasPrefix(string(comm), "sshd") {
				continue
			}
			parents[p], grew = true, true
			out = append(out, p)
		}
	}
	return out
}
