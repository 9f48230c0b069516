package e2e

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestE2EAttach runs `acpmux-tui attach` in tmux: the harness runs in the
// terminal at the terminal's size with the chat's folders, takes typed
// input, and ctrl+] detaches, leaving it running in the server.
func TestE2EAttach(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	fake := buildFakeHarness(t)
	rec := filepath.Join(c.root, "fake-record.jsonl")
	cfg := fmt.Sprintf("[harness.claude]\ncommand = %q\nenv = { ACPMUX_FAKE_RECORD = %q }\n", fake, rec)
	if err := os.WriteFile(c.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := c.dir("lib")
	chat := c.chat("new", "--harness", "claude", "--dir", lib, "--name", "attached", "--json")

	// The shell around attach prints its exit status, then waits, so the
	// test can read it.
	script := fmt.Sprintf("%s attach attached; echo attach-exit=$?; exec /bin/sleep 60", binary)
	s := startTmux(t, 120, 40, append(c.env(), "TERM=xterm-256color"), []string{"/bin/sh", "-c", script})
	s.waitLongText("ready>")
	recs := readRecords(t, rec)
	if len(recs) != 1 || !strings.Contains(strings.Join(recs[0].Argv, " "), "--add-dir "+lib) {
		t.Fatalf("attach started %+v", recs)
	}
	s.text("through attach")
	s.keys("Enter")
	s.waitText("echo: through attach")
	s.keys("C-]")
	s.waitText("[acpmux-tui: "+chat.ID+" detached]", "attach-exit=0")
	if pid := recs[0].Pid; syscall.Kill(pid, 0) != nil {
		t.Fatalf("the harness %d is gone after a detach", pid)
	}
}

// The pane's modes as tmux reports them (format variables), while the fake
// harness has them set and once attach has given the terminal back.
var (
	harnessPaneModes = map[string]string{
		"alternate_on": "1", "mouse_all_flag": "1", "mouse_sgr_flag": "1", "keypad_flag": "1",
		"keypad_cursor_flag": "1", "cursor_flag": "0", "wrap_flag": "0", "insert_flag": "1",
		"bracketpaste_flag": "1", "pane_title": "fake harness",
	}
	restoredPaneModes = map[string]string{
		"alternate_on": "0", "mouse_all_flag": "0", "mouse_any_flag": "0", "mouse_sgr_flag": "0",
		"keypad_flag": "0", "keypad_cursor_flag": "0", "cursor_flag": "1", "wrap_flag": "1",
		"insert_flag": "0", "origin_flag": "0", "bracketpaste_flag": "0", "pane_title": "shell title",
	}
)

// TestE2EAttachGivesTerminalBack attaches a harness that turns on the
// alternate screen, mouse tracking (1003, SGR), the application keypad and
// cursor keys, bracketed paste, insert mode, a red pen and a title, hides
// the cursor and turns autowrap off, then waits. When attach ends, by
// ctrl+], by the harness exiting or by SIGTERM, the tmux pane has every mode
// back as the shell had it: the main screen with what was on it, no mouse
// tracking, a numeric keypad, normal cursor keys, a visible cursor,
// autowrap, the shell's title, plain text, and a paste arriving without
// bracket markers. SIGTERM ends attach by the signal (the shell sees 143)
// and the harness keeps running in the server, as it does after a detach;
// only the harness's own exit leaves nothing running.
func TestE2EAttachGivesTerminalBack(t *testing.T) {
	for _, tc := range []struct {
		name  string
		end   func(s *tmuxSession)
		how   string // what attach says on stderr as it ends
		exit  int    // attach's exit status, as the shell reports it
		stays bool   // the harness keeps running in the server
	}{
		{"detach", func(s *tmuxSession) { s.keys("C-]") }, " detached", 0, true},
		{"harness exits", func(s *tmuxSession) { s.keys("C-d") }, " exit status 0", 0, false},
		{"sigterm", func(s *tmuxSession) {
			pid := s.paneChild("acpmux-tui")
			if pid <= 0 {
				t.Fatalf("no process to signal (pid %d): kill would reach the test's own group", pid)
			}
			if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
				s.t.Fatal(err)
			}
		}, ": terminated", 128 + int(syscall.SIGTERM), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needTmux(t)
			c := newCLI(t)
			fake := buildFakeHarness(t)
			rec := filepath.Join(c.root, "fake-record.jsonl")
			cfg := fmt.Sprintf("[harness.claude]\ncommand = %q\nenv = { ACPMUX_FAKE_RECORD = %q, ACPMUX_FAKE_TERMINAL_MODES = \"1\" }\n", fake, rec)
			if err := os.WriteFile(c.config, []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			chat := c.chat("new", "--harness", "claude", "--name", "modes", "--json")
			script := fmt.Sprintf("printf '\\033]2;shell title\\007before-attach\\n'; %s attach modes; echo attach-exit=$?; exec /bin/sleep 600", binary)
			s := startTmux(t, 120, 40, append(c.env(), "TERM=xterm-256color"), []string{"/bin/sh", "-c", script})

			// While attached, the pane has the harness's modes, and a paste
			// comes in brackets (the harness's pty echoes the markers).
			s.waitLongText("ready>")
			s.waitModes("the harness's modes", harnessPaneModes)
			if scr := s.screen(); strings.Contains(scr, "before-attach") {
				t.Fatalf("the alternate screen is not shown:\n%s", scr)
			}
			s.tmux("set-buffer", "-b", "probe", "PASTE-ON")
			s.tmux("paste-buffer", "-p", "-b", "probe", "-t", "e2e")
			s.waitLongText("^[[200~PASTE-ON^[[201~")
			s.keys("Enter")
			s.waitLongText("echo: PASTE-ON")

			tc.end(s)
			end := fmt.Sprintf("[acpmux-tui: %s%s]", chat.ID, tc.how)
			s.waitLongText(end, fmt.Sprintf("attach-exit=%d", tc.exit))
			s.waitModes("the shell's modes", restoredPaneModes)
			scr := s.waitLongText("before-attach")
			if strings.Contains(scr, "ready>") {
				t.Errorf("the harness's alternate screen is still shown:\n%s", scr)
			}
			for line := range strings.SplitSeq(s.tmux("capture-pane", "-e", "-p", "-t", "e2e"), "\n") {
				if strings.Contains(line, "attach-exit=") && strings.Contains(line, "\x1b[") {
					t.Errorf("the shell's text after attach is styled: %q", line)
				}
			}
			s.tmux("set-buffer", "-b", "probe", "PASTE-OFF")
			s.tmux("paste-buffer", "-p", "-b", "probe", "-t", "e2e")
			if scr := s.waitLongText("PASTE-OFF"); strings.Contains(scr, "[200~PASTE-OFF") {
				t.Errorf("a paste after attach still comes in brackets:\n%s", scr)
			}
			pid := readRecords(t, rec)[0].Pid
			if tc.stays {
				if syscall.Kill(pid, 0) != nil {
					t.Fatalf("the harness %d is gone", pid)
				}
				return
			}
			s.waitLong("the harness to be stopped", func() bool { return syscall.Kill(pid, 0) != nil })
		})
	}
}

// waitLongText waits, with waitLong's deadline, until every text is on the
// screen, and returns the screen.
func (s *tmuxSession) waitLongText(texts ...string) string {
	s.t.Helper()
	var scr string
	s.waitLong(fmt.Sprintf("%q on screen", texts), func() bool {
		scr = s.screen()
		for _, t := range texts {
			if !strings.Contains(scr, t) {
				return false
			}
		}
		return true
	})
	return scr
}

// paneModes reads tmux format variables of the pane. A variable this tmux
// does not know (bracketpaste_flag before 3.4) reads as "".
func (s *tmuxSession) paneModes(names ...string) map[string]string {
	s.t.Helper()
	format := "#{" + strings.Join(names, "}\t#{") + "}"
	values := strings.Split(strings.TrimSuffix(s.tmux("display-message", "-p", "-t", "e2e", format), "\n"), "\t")
	got := map[string]string{}
	for i, n := range names {
		if i < len(values) {
			got[n] = values[i]
		}
	}
	return got
}

// waitModes waits until the pane's format variables have the wanted values
// (a variable this tmux does not know is skipped).
func (s *tmuxSession) waitModes(what string, want map[string]string) {
	s.t.Helper()
	names := slices.Sorted(maps.Keys(want))
	var got map[string]string
	s.waitLong(fmt.Sprintf("%s %v", what, want), func() bool {
		got = s.paneModes(names...)
		for _, n := range names {
			if got[n] != "" && got[n] != want[n] {
				return false
			}
		}
		return true
	}, func() string { return fmt.Sprint(got) })
}

// waitLong waits for cond with a deadline of minutes: a hang detector, not
// a timing. show adds to the failure what was last seen.
func (s *tmuxSession) waitLong(what string, cond func() bool, show ...func() string) {
	s.t.Helper()
	deadline := time.NewTimer(3 * time.Minute)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			seen := ""
			for _, f := range show {
				seen += f() + "\n"
			}
			s.t.Fatalf("timed out waiting for %s\n%sthe screen:\n%s", what, seen, s.screen())
		case <-tick.C:
		}
	}
}

// paneChild waits for the process named name whose parent is the pane's
// first process, and returns its pid.
func (s *tmuxSession) paneChild(name string) int {
	s.t.Helper()
	ppid := strings.TrimSpace(s.tmux("display-message", "-p", "-t", "e2e", "#{pane_pid}"))
	pid := 0
	s.waitLong(fmt.Sprintf("a process %s under the pane's %s", name, ppid), func() bool {
		stats, _ := filepath.Glob("/proc/[0-9]*/stat")
		for _, p := range stats {
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			// pid (comm) state ppid ...; comm may hold spaces.
			stat := string(data)
			open, close := strings.IndexByte(stat, '('), strings.LastIndexByte(stat, ')')
			if open < 0 || close < open {
				continue
			}
			fields := strings.Fields(stat[close+1:])
			if stat[open+1:close] == name && len(fields) > 1 && fields[1] == ppid {
				pid, _ = strconv.Atoi(strings.TrimSpace(stat[:open]))
				return true
			}
		}
		return false
	})
	return pid
}
