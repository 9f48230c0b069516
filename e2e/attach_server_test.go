package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// attachWorld is a cli whose "claude" harness is the pty fake, optionally
// setting many terminal modes first, with a chat "shared" of it.
func attachWorld(t *testing.T, modes bool) (c *cli, id, rec string) {
	t.Helper()
	needTmux(t)
	c = newCLI(t)
	fake := buildFakeHarness(t)
	rec = filepath.Join(c.root, "fake-record.jsonl")
	env := fmt.Sprintf("ACPMUX_FAKE_RECORD = %q", rec)
	if modes {
		env += `, ACPMUX_FAKE_TERMINAL_MODES = "1"`
	}
	cfg := fmt.Sprintf("[harness.claude]\ncommand = %q\nenv = { %s }\n", fake, env)
	if err := os.WriteFile(c.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	chat := c.chat("new", "--harness", "claude", "--name", "shared", "--json")
	return c, chat.ID, rec
}

// attachPane runs `attach shared` in a tmux pane of its own, the shell
// around it printing its exit status and then waiting.
func attachPane(t *testing.T, c *cli, cols, rows int) *tmuxSession {
	t.Helper()
	script := fmt.Sprintf("printf 'before-attach\\n'; %s attach shared; echo attach-exit=$?; exec /bin/sleep 600", binary)
	return startTmux(t, cols, rows, append(c.env(), "TERM=xterm-256color"), []string{"/bin/sh", "-c", script})
}

// TestE2EAttachThroughTheServer: attach, type, detach; the harness keeps
// running and `ls` says so; a second attach, in another terminal, shows the
// same screen before anything new is drawn, takes input, and detaches too.
// kill-server then ends the harness.
func TestE2EAttachThroughTheServer(t *testing.T) {
	c, id, rec := attachWorld(t, false)
	s := attachPane(t, c, 100, 30)
	s.waitLongText("ready>")
	s.text("first words")
	s.keys("Enter")
	s.waitLongText("echo: first words")
	s.keys("C-]")
	s.waitLongText("[acpmux-tui: "+id+" detached]", "attach-exit=0")
	pid := readRecords(t, rec)[0].Pid
	if syscall.Kill(pid, 0) != nil {
		t.Fatalf("the harness %d is gone after a detach", pid)
	}
	if st := c.ls()[0].Status; st != "running" && st != "waiting" {
		t.Fatalf("ls says the chat is %s after a detach", st)
	}

	again := attachPane(t, c, 100, 30)
	scr := again.waitLongText("echo: first words", "ready>")
	if strings.Contains(scr, "before-attach") {
		t.Errorf("the redraw did not push the shell's lines up:\n%s", scr)
	}
	again.text("second words")
	again.keys("Enter")
	again.waitLongText("echo: second words")
	again.keys("C-]")
	again.waitLongText("[acpmux-tui: "+id+" detached]", "attach-exit=0")
	if recs := readRecords(t, rec); len(recs) != 1 {
		t.Fatalf("the harness was started %d times", len(recs))
	}
	c.ok("kill-server")
	s.waitLong("kill-server to end the harness", func() bool { return syscall.Kill(pid, 0) != nil })
}

// TestE2EAttachTwoTerminals: two terminals attached to one chat at once
// both show its output and both type into it.
func TestE2EAttachTwoTerminals(t *testing.T) {
	c, id, _ := attachWorld(t, false)
	a := attachPane(t, c, 100, 30)
	a.waitLongText("ready>")
	b := attachPane(t, c, 100, 30)
	b.waitLongText("ready>")
	a.text("typed in a")
	a.keys("Enter")
	b.waitLongText("echo: typed in a")
	b.text("typed in b")
	b.keys("Enter")
	a.waitLongText("echo: typed in b")
	for _, s := range []*tmuxSession{a, b} {
		s.keys("C-]")
		s.waitLongText("[acpmux-tui: "+id+" detached]", "attach-exit=0")
	}
}

// TestE2EAttachAgainRestoresTheModes: a harness that set many terminal
// modes keeps running after a detach; a second attach puts its terminal in
// those modes again from the server's redraw alone (the alternate screen,
// mouse, keypad, cursor keys, bracketed paste, the hidden cursor, the
// title...), and its detach gives the terminal back as the shell had it.
func TestE2EAttachAgainRestoresTheModes(t *testing.T) {
	c, id, _ := attachWorld(t, true)
	s := attachPane(t, c, 120, 40)
	s.waitLongText("ready>")
	s.waitModes("the harness's modes", harnessPaneModes)
	s.keys("C-]")
	s.waitLongText("[acpmux-tui: "+id+" detached]", "attach-exit=0")
	s.waitModes("the shell's modes", map[string]string{"alternate_on": "0", "mouse_all_flag": "0", "bracketpaste_flag": "0"})

	again := attachPane(t, c, 120, 40)
	again.waitLongText("ready>")
	again.waitModes("the harness's modes after a redraw", harnessPaneModes)
	if scr := again.screen(); strings.Contains(scr, "before-attach") {
		t.Fatalf("the alternate screen is not shown:\n%s", scr)
	}
	again.keys("C-]")
	again.waitLongText("[acpmux-tui: "+id+" detached]", "attach-exit=0", "before-attach")
	again.waitModes("the shell's modes", map[string]string{
		"alternate_on": "0", "mouse_all_flag": "0", "mouse_sgr_flag": "0", "keypad_flag": "0",
		"keypad_cursor_flag": "0", "cursor_flag": "1", "wrap_flag": "1", "insert_flag": "0",
		"bracketpaste_flag": "0",
	})
}

// TestE2ETUIAndAttachOneChat: the TUI and an attach in another terminal
// show one chat at once; each sees what the other typed, and the harness
// was started once.
func TestE2ETUIAndAttachOneChat(t *testing.T) {
	c, id, rec := attachWorld(t, false)
	tui := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary})
	tui.waitLongText("shared")
	tui.keys("Enter")
	tui.waitLongText("ready>", "keys go to claude")
	a := attachPane(t, c, 100, 30)
	a.waitLongText("ready>")

	tui.text("typed in the tui")
	tui.keys("Enter")
	a.waitLongText("echo: typed in the tui")
	a.text("typed in attach")
	a.keys("Enter")
	tui.waitLongText("echo: typed in attach", "echo: typed in the tui")

	if recs := readRecords(t, rec); len(recs) != 1 {
		t.Fatalf("the harness was started %d times", len(recs))
	}
	a.keys("C-]")
	a.waitLongText("[acpmux-tui: "+id+" detached]", "attach-exit=0")
	tui.keys("C-]")
	tui.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to claude") })
	tui.quit()
	if st := c.ls()[0].Status; st != "running" && st != "waiting" {
		t.Fatalf("ls says the chat is %s after both clients left", st)
	}
}

// TestE2EAddDirReachesARunningChat: add-dir and rm-dir on a chat the
// server runs tell the server, and the chat, waiting for input, is
// restarted with the new folders, its conversation resumed; the folders
// are stored whatever happens.
func TestE2EAddDirReachesARunningChat(t *testing.T) {
	c, id, rec := attachWorld(t, false)
	a := attachPane(t, c, 100, 30)
	a.waitLongText("ready>")
	a.keys("C-]")
	a.waitLongText("[acpmux-tui: "+id+" detached]", "attach-exit=0")
	lib := c.dir("lib")
	out := c.ok("add-dir", id, lib)
	if !strings.Contains(out, lib) {
		t.Fatalf("add-dir printed:\n%s", out)
	}
	a.waitLong("the restart with the new folder", func() bool {
		recs := readRecords(t, rec)
		return len(recs) == 2 && slices.Contains(recs[1].Argv, lib) && slices.Contains(recs[1].Argv, "--resume")
	})
	c.ok("rm-dir", id, lib)
	a.waitLong("the restart without it", func() bool {
		recs := readRecords(t, rec)
		return len(recs) == 3 && !slices.Contains(recs[2].Argv, lib)
	})
	if st := c.ls()[0].Status; st != "running" && st != "waiting" {
		t.Fatalf("ls says %s", st)
	}
}
