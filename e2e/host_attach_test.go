package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
)

// linkPids are the ssh clients whose command line holds the rig's ssh
// config and runs proxy: the links to [host.test] of this test alone.
func (r *hostRig) linkPids() []int {
	return pidsWhere(func(cmdline []byte, args [][]byte, _ func() []byte) bool {
		return len(args) > 2 && filepath.Base(string(args[0])) == "ssh" && bytes.Contains(cmdline, []byte(r.sshd.Config)) && bytes.HasSuffix(args[len(args)-1], []byte(" proxy"))
	})
}

// attachLinkPids are the ssh clients of the rig's ssh config that run
// attach ID over there: attach --host's link in a terminal.
func (r *hostRig) attachLinkPids(id string) []int {
	return pidsWhere(func(cmdline []byte, args [][]byte, _ func() []byte) bool {
		return len(args) > 2 && filepath.Base(string(args[0])) == "ssh" && bytes.Contains(cmdline, []byte(r.sshd.Config)) && bytes.HasSuffix(args[len(args)-1], []byte(" attach "+id))
	})
}

// pidsWhere are the processes whose command line (raw, and split into its
// arguments) and environment (read when asked) match.
func pidsWhere(match func(cmdline []byte, args [][]byte, environ func() []byte) bool) []int {
	var pids []int
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := bytes.Split(bytes.TrimRight(cmdline, "\x00"), []byte{0})
		environ := func() []byte {
			env, _ := os.ReadFile(filepath.Join("/proc", p.Name(), "environ"))
			return env
		}
		if match(cmdline, args, environ) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestE2EAttachHostReconnects runs `attach --host test` in tmux, which
// hands the terminal to ssh -t (no link of its own stays open, and none
// relays the keys), kills that ssh, and sees the link said down, dialed
// again, and the chat, still running over there, drawn as it is and typed
// into.
func TestE2EAttachHostReconnects(t *testing.T) {
	needTmux(t)
	r := newHostRig(t)
	fake := buildFakeHarness(t)
	rec := filepath.Join(r.root, "fake-record.jsonl")
	cfg := fmt.Sprintf("default_harness = \"shell\"\n[harness.claude]\ncommand = %q\nenv = { ACPMUX_FAKE_RECORD = %q }\n", fake, rec)
	if err := os.WriteFile(r.remoteConfig, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	chat := r.chat("new", "--host", "test", "--harness", "claude", "--name", "far", "--json")

	// attach's notices (stderr) go to a file the test reads: the redraw
	// after the reconnect paints the chat over the pane, as it should.
	notices := filepath.Join(r.root, "notices.txt")
	script := fmt.Sprintf("%s attach --host test far 2>%s; echo attach-exit=$?; exec /bin/sleep 60", binary, notices)
	said := func() string { b, _ := os.ReadFile(notices); return string(b) }
	s := startTmux(t, 120, 40, append(r.env(), "TERM=xterm-256color"), []string{"/bin/sh", "-c", script})
	s.waitLongText("ready>")
	s.text("before drop")
	s.keys("Enter")
	s.waitText("echo: before drop")
	recs := readRecords(t, rec)
	if len(recs) != 1 {
		t.Fatalf("the harness started %d times", len(recs))
	}

	var pids []int
	wait.Until(t, "one ssh -t to host test running attach, and no other link", func() bool {
		pids = r.attachLinkPids(chat.ID)
		return len(pids) == 1 && len(r.linkPids()) == 0
	})
	// While acpmux-tui is away over there the link cannot come back: keys
	// typed then are dropped, never queued for the chat.
	if err := os.Rename(r.command, r.command+".away"); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wait.UntilShow(t, "attach to say the link is still down", func() bool {
		return strings.Contains(said(), "still down: host test has no acpmux-tui")
	}, said)
	s.text("lost keys")
	s.keys("Enter")
	wait.UntilShow(t, "attach to say keys are not sent", func() bool {
		return strings.Contains(said(), "link down: keys not sent")
	}, said)
	if err := os.Rename(r.command+".away", r.command); err != nil {
		t.Fatal(err)
	}
	wait.UntilShow(t, "attach to say the link is down, then back", func() bool {
		return strings.Contains(said(), "the link to host test is down: ssh was killed") && strings.Contains(said(), "the link is back: "+chat.ID)
	}, said)
	s.waitText("echo: before drop") // the screen as it is over there
	s.text("after drop")
	s.keys("Enter")
	s.waitText("echo: after drop")
	if scr := s.screen(); strings.Contains(scr, "lost keys") {
		t.Fatalf("keys typed while the link was down reached the chat:\n%s", scr)
	}
	if recs := readRecords(t, rec); len(recs) != 1 || syscall.Kill(recs[0].Pid, 0) != nil {
		t.Fatalf("the harness did not keep running over there: %+v", recs)
	}
	s.keys("C-]")
	s.waitText("[acpmux-tui: "+chat.ID+" detached]", "attach-exit=0") // the far attach says it
	if strings.Count(said(), "reconnecting") != 1 {
		t.Fatalf("one drop, but attach said:\n%s", said())
	}
	wait.Until(t, "the ssh -t to end with the detach", func() bool { return len(r.attachLinkPids(chat.ID)) == 0 })
}

// TestE2EAttachHostGivesUpAndRefuses: ctrl+] while the link is down gives
// up (a detach, exit 0, no ssh left behind), and a chat that speaks ACP
// is refused over there, exit 2 here, as attach refuses it on this host.
func TestE2EAttachHostGivesUpAndRefuses(t *testing.T) {
	needTmux(t)
	r := newHostRig(t)
	cfg := fmt.Sprintf("default_harness = \"shell\"\n[harness.acp]\ncommand = %q\ntransport = \"acp\"\n", buildACPFake(t))
	if err := os.WriteFile(r.remoteConfig, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	pty := r.chat("new", "--host", "test", "--harness", "shell", "--name", "far", "--json")
	r.chat("new", "--host", "test", "--harness", "acp", "--name", "talk", "--json")

	script := fmt.Sprintf("%s attach --host test talk; echo acp-exit=$?; %s attach --host test far; echo attach-exit=$?; exec /bin/sleep 60", binary, binary)
	s := startTmux(t, 120, 40, append(r.env(), "TERM=xterm-256color"), []string{"/bin/sh", "-c", script})
	s.waitText("which speaks ACP", "acp-exit=2")

	var pids []int
	wait.Until(t, "the ssh -t of the pty chat", func() bool { pids = r.attachLinkPids(pty.ID); return len(pids) == 1 })
	if err := os.Rename(r.command, r.command+".away"); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s.waitText("still down: host test has no acpmux-tui")
	s.keys("C-]")
	s.waitText("[acpmux-tui: "+pty.ID+" on test detached]", "attach-exit=0")
	if left := r.attachLinkPids(pty.ID); len(left) != 0 || len(r.linkPids()) != 0 {
		t.Fatalf("ssh processes left after giving up: attach %v, proxy %v", left, r.linkPids())
	}
}
