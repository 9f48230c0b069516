package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/sshd"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
)

// TestE2ETUIHosts runs the TUI in tmux with [host.test] behind the real
// sshd: both hosts head their chats in the sidebar; a chat is made on the
// remote with a folder only the remote's server takes (one in this
// machine's agent home, which the local server refuses); it is typed
// into; the ssh process is killed and the pane says the link is down,
// keys typed then are refused, and once the link is back by itself the
// chat, still running over there, is drawn as it is and typed into.
func TestE2ETUIHosts(t *testing.T) {
	needTmux(t)
	r := newHostRig(t)
	fake := buildFakeHarness(t)
	rec := r.remoteFake(fake)
	// The local side offers claude too (the dialog lists this machine's
	// harnesses); the far side runs its own config's.
	conf := fmt.Sprintf("default_harness = \"claude\"\n[harness.claude]\ncommand = %q\n[host.test]\nssh = %q\nssh_options = [\"-F\", %q]\nhome = %q\ncommand = %q\n",
		fake, sshd.Alias, r.sshd.Config, r.remoteHome, r.command)
	if err := os.WriteFile(r.config, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	r.chat("new", "--name", "here", "--json")
	scratch := filepath.Join(r.home, "scratch")
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		t.Fatal(err)
	}

	s := startTmux(t, 160, 45, append(r.env(), "TERM=xterm-256color"), []string{binary})
	s.waitFor("both hosts in the sidebar, test up", func(scr string) bool {
		return strings.Contains(scr, "▾ local") && strings.Contains(scr, "▾ test") && strings.Contains(scr, "here") &&
			!strings.Contains(scr, "▾ test · down")
	})

	// The folder in this machine's agent home: the local server refuses
	// it...
	s.keys("n")
	s.waitText("new chat", "‹ local ›")
	s.keys("Tab", "Tab")
	s.text(scratch)
	s.keys("C-s")
	s.waitText("✗ Invalid params: cwd \"" + scratch)
	// ...and the remote's takes it.
	s.keys("Up", "Up")
	s.keys("Right")
	s.waitText("‹ test ›")
	s.keys("C-s")
	s.waitText("ready>", "keys go to claude")
	far := ""
	wait.Until(t, "the chat in the host's agent home", func() bool {
		m, _ := filepath.Glob(filepath.Join(r.remoteHome, "chats", "*.toml"))
		if len(m) == 1 {
			far = strings.TrimSuffix(filepath.Base(m[0]), ".toml")
		}
		return far != ""
	})
	if m, _ := filepath.Glob(filepath.Join(r.home, "chats", "*.toml")); len(m) != 1 {
		t.Fatalf("local chats %v, want the one made before", m)
	}
	s.text("hello far")
	s.keys("Enter")
	s.waitText("echo: hello far")
	recs := readRecords(t, rec)
	if len(recs) != 1 || recs[0].Cwd != scratch {
		t.Fatalf("the remote harness's starts: %+v", recs)
	}

	var pids []int
	wait.Until(t, "one ssh link to host test", func() bool { pids = r.linkPids(); return len(pids) == 1 })
	// acpmux-tui away over there: the link cannot come back yet.
	if err := os.Rename(r.command, r.command+".away"); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s.waitText("link down · reconnecting", "▾ test · down")
	s.text("lost keys")
	s.keys("Enter")
	s.waitText("link to host test is down")
	if err := os.Rename(r.command+".away", r.command); err != nil {
		t.Fatal(err)
	}
	s.waitFor("the link back by itself, the chat as it is", func(scr string) bool {
		return !strings.Contains(scr, "link down") && !strings.Contains(scr, "▾ test · down") && strings.Contains(scr, "echo: hello far")
	})
	s.waitText("keys go to claude")
	s.text("after drop")
	s.keys("Enter")
	scr := s.waitText("echo: after drop")
	if strings.Contains(scr, "echo: lost keys") {
		t.Fatalf("keys typed while the link was down reached the chat:\n%s", scr)
	}
	if recs := readRecords(t, rec); len(recs) != 1 || syscall.Kill(recs[0].Pid, 0) != nil {
		t.Fatalf("the harness did not keep running over there: %+v", recs)
	}
	s.keys("C-]")

	// The far chat's review comes from its host's server, where its
	// folder is (here a folder that is no repository: listed by mtime).
	if err := os.WriteFile(filepath.Join(scratch, "made-over-there.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.keys("d")
	s.waitText("1 changed", "made-over-there.txt")
	s.keys("Escape")
	s.waitFor("the review pane to close", func(scr string) bool { return !strings.Contains(scr, "made-over-there.txt") })
	s.quit()
}
