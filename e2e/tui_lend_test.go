package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// serverHoldsTTY reports whether the process pid has the terminal tty
// open (the TUI's pane lent to it: tui/loan.go).
func serverHoldsTTY(pid int, tty string) bool {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if l, err := os.Readlink(dir + "/" + e.Name()); err == nil && l == tty {
			return true
		}
	}
	return false
}

// summaryPid is the harness's pid as the summary shows it.
var summaryPid = regexp.MustCompile(`pid (\d+)`)

// TestE2ETUILendsItsPane: the TUI lends the server its terminal while the
// chat pane's keys go to a pty chat, as tmux's client does: the server
// holds the terminal, and what is typed reaches bash and shows. A cursor
// key is handed back to the TUI, which sends it on (bash's history comes
// back) and lends the pane again; ctrl+] is the TUI's and takes the pane
// back; a resize lends the pane at its new size. Killed with -9 while it
// holds the pane, the server leaves the TUI its terminal: the TUI reads
// its keys again, starts a new server, and the harness is not left
// running.
func TestE2ETUILendsItsPane(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	cfg := "[harness.bash]\ncommand = \"/bin/bash\"\nargs = [\"--norc\", \"--noprofile\"]\nenv = { PS1 = \"lent$ \" }\n"
	if err := os.WriteFile(c.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(c.home, "logs", "acpmux-tui.log"))
			t.Logf("the log:\n%s", log)
		}
	})
	s := startTmux(t, 120, 40, append(c.env(), "TERM=xterm-256color"), []string{binary, "--harness", "bash"})
	s.waitText("lent$", "keys go to bash")
	tty := strings.TrimSpace(s.tmux("display-message", "-p", "-t", "e2e", "#{pane_tty}"))
	var hello proto.HelloResult
	srvCall(t, c.home, proto.MethodHello, nil, &hello)
	held := func(what string) {
		t.Helper()
		s.waitLong(what, func() bool { return serverHoldsTTY(hello.Pid, tty) }, s.screen)
	}
	held("the server to hold the terminal of the focused pane")

	s.text("echo one-$((40+2))")
	s.keys("Enter")
	s.waitText("one-42")
	s.keys("Up")
	s.waitFor("bash's history at the prompt", func(scr string) bool {
		return strings.Count(scr, "echo one-$((40+2))") == 2
	})
	held("the pane to be lent again after a cursor key")
	s.text(" two")
	s.keys("Enter")
	s.waitText("one-42 two")

	s.keys("C-]")
	s.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to bash") })
	s.waitLong("the server to give the terminal back", func() bool { return !serverHoldsTTY(hello.Pid, tty) }, s.screen)
	s.keys("Enter")
	s.waitText("keys go to bash")
	held("the pane to be lent once focused again")

	s.tmux("resize-window", "-t", "e2e", "-x", "110", "-y", "36")
	s.text("echo size=$(/usr/bin/stty size)")
	s.keys("Enter")
	sized := regexp.MustCompile(`size=\d+ \d+`)
	// 110x36: a sidebar of 30, a summary of 11 rows: the pane is 78x22.
	s.waitFor("stty size to answer the pane's new size", func(scr string) bool { return sized.MatchString(scr) && strings.Contains(scr, "size=22 78") })
	held("the pane to be lent at its new size")
	s.text("echo after-resize")
	s.keys("Enter")
	s.waitText("after-resize")

	m := summaryPid.FindStringSubmatch(s.screen())
	if m == nil {
		t.Fatalf("no harness pid in the summary:\n%s", s.screen())
	}
	harness, _ := strconv.Atoi(m[1])
	if hello.Pid <= 0 || harness <= 0 {
		t.Fatalf("no process to signal (server %d, harness %d): kill would reach the test's own group", hello.Pid, harness)
	}
	if err := syscall.Kill(hello.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s.waitFor("the TUI to start a server by itself and reconnect", func(scr string) bool {
		return strings.Contains(scr, "reconnected to the server")
	})
	s.waitLong("the harness to end with its server", func() bool { return syscall.Kill(harness, 0) != nil }, s.screen)
	// The TUI reads its terminal again: ctrl+] leaves the stopped chat.
	s.keys("C-]")
	s.waitFor("the TUI to take ctrl+] after the server died", func(scr string) bool { return !strings.Contains(scr, "keys go to bash") })
	s.quit()
}
