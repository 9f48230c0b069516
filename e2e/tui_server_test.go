package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// End-to-end runs of the real binary for the TUI as a client of the
// server: a chat started from the TUI keeps running whatever ends the TUI,
// the TUI opened again shows it as it is, and two TUIs share one chat.

// pid returns the pid of the program in the pane (env execs it).
func (s *tmuxSession) pid() int {
	s.t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(s.tmux("display-message", "-p", "-t", "e2e", "#{pane_pid}")))
	if err != nil {
		s.t.Fatal(err)
	}
	return pid
}

// waitExit waits until the pane's program has ended.
func (s *tmuxSession) waitExit(pid int) {
	s.t.Helper()
	srvWaitFor(s.t, fmt.Sprintf("the TUI (pid %d) to end", pid), func() bool { return !srvProcessAlive(pid) })
}

// chatPane returns the text of the chat pane (the box on the right under
// the summary) as plain lines, without the borders.
func chatPane(scr string) []string {
	lines := strings.Split(scr, "\n")
	var out []string
	in := false
	for _, l := range lines {
		switch {
		case !in && strings.Contains(l, "│╭─ claude "):
			in = true
		case in && strings.Contains(l, "╰"):
			return out
		case in:
			i := strings.Index(l, "││")
			if i < 0 {
				return out
			}
			out = append(out, strings.TrimRight(strings.TrimSuffix(strings.TrimRight(l[i+len("││"):], " "), "│"), " "))
		}
	}
	return out
}

// checkStillRunning fails unless the chat's one harness, pid, runs and the
// server reports it live.
func checkStillRunning(t *testing.T, c *cli, rec string, pid int, after string) {
	t.Helper()
	if !srvProcessAlive(pid) {
		t.Fatalf("%s the harness %d has gone", after, pid)
	}
	if recs := readRecords(t, rec); len(recs) != 1 {
		t.Fatalf("%s the harness was started %d times", after, len(recs))
	}
	list := c.ls()
	if len(list) != 1 || (list[0].Status != "running" && list[0].Status != "waiting") {
		t.Fatalf("%s ls says %+v", after, list)
	}
}

// TestE2EChatOutlivesTheTUI: a chat started from the TUI keeps running
// after q, after its terminal closes (SIGHUP) and after SIGKILL of the
// TUI; each time, the TUI opened again shows its screen as it was, and it
// still answers.
func TestE2EChatOutlivesTheTUI(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	rec := fakeClaude(t, c)
	env := append(c.env(), "TERM=xterm-256color")
	s := startTmux(t, 160, 50, env, []string{binary, "--harness", "claude"})
	s.waitText("ready>", "keys go to claude")
	s.text("hello")
	s.keys("Enter")
	s.waitText("echo: hello")
	pid := readRecords(t, rec)[0].Pid
	s.keys("C-]")
	scr := s.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to claude") })
	pane := chatPane(scr)
	if !strings.Contains(strings.Join(pane, "\n"), "echo: hello") {
		t.Fatalf("the chat pane is not found:\n%s", scr)
	}
	s.quit()
	checkStillRunning(t, c, rec, pid, "after q")

	for _, how := range []string{"its terminal closed", "SIGKILL"} {
		s = startTmux(t, 160, 50, env, []string{binary})
		s.waitFor("the same chat screen as before", func(scr string) bool {
			return strings.Join(chatPane(scr), "\n") == strings.Join(pane, "\n") && strings.Contains(scr, fmt.Sprintf("pid %d", pid))
		})
		tui := s.pid()
		switch how {
		case "its terminal closed":
			// The terminal goes: tmux hangs up on the program in the pane.
			s.tmux("kill-server")
		case "SIGKILL":
			if tui <= 0 {
				t.Fatalf("no process to signal (pid %d): kill would reach the test's own group", tui)
			}
			if err := syscall.Kill(tui, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}
		s.waitExit(tui)
		checkStillRunning(t, c, rec, pid, "after "+how)
	}

	s = startTmux(t, 160, 50, env, []string{binary})
	s.waitText("echo: hello")
	s.keys("Enter")
	s.waitText("keys go to claude")
	s.text("still there")
	s.keys("Enter")
	s.waitText("echo: still there")
	s.keys("C-]")
	s.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to claude") })
	s.quit()
	checkStillRunning(t, c, rec, pid, "at the end")
}

// TestE2ETwoTUIsOneChat: two TUIs show one chat; both see its output and
// both type into it.
func TestE2ETwoTUIsOneChat(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	rec := fakeClaude(t, c)
	env := append(c.env(), "TERM=xterm-256color")
	one := startTmux(t, 160, 50, env, []string{binary, "--harness", "claude"})
	one.waitText("ready>", "keys go to claude")
	two := startTmux(t, 160, 50, env, []string{binary})
	two.waitText("ready>")
	two.keys("Enter")
	two.waitText("keys go to claude")

	two.text("from two")
	two.keys("Enter")
	two.waitText("echo: from two")
	one.waitText("echo: from two")

	one.text("from one")
	one.keys("Enter")
	one.waitText("echo: from one")
	two.waitText("echo: from one", "echo: from two")

	if recs := readRecords(t, rec); len(recs) != 1 {
		t.Fatalf("the chat was started %d times", len(recs))
	}
	for _, s := range []*tmuxSession{one, two} {
		s.keys("C-]")
		s.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to claude") })
		s.quit()
	}
	checkStillRunning(t, c, rec, readRecords(t, rec)[0].Pid, "after both TUIs quit")
}
