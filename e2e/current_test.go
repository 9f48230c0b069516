package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// End-to-end runs of the real binary for what the user sees staying
// current (a refused restart, a deleted folder, a restart's divider) and
// for the dialogs agreeing with the command line (delete with files, fork
// names, harnesses not installed).

// fakeClaude points the claude harness at the fake pty harness, recording
// its starts to the returned file.
func fakeClaude(t *testing.T, c *cli) string {
	t.Helper()
	fake := buildFakeHarness(t)
	rec := filepath.Join(c.root, "fake-record.jsonl")
	cfg := fmt.Sprintf("[harness.claude]\ncommand = %q\nenv = { ACPMUX_FAKE_RECORD = %q }\n", fake, rec)
	if err := os.WriteFile(c.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return rec
}

// selectedLine returns the sidebar row with the selection pointer, and its
// line on screen (1 is the first chat).
func selectedLine(scr string) string {
	_, l := selectedAt(scr)
	return l
}

func selectedAt(scr string) (int, string) {
	for i, l := range strings.Split(scr, "\n") {
		if j := strings.Index(l, "▌"); j >= 0 && j < 8 {
			return i, l
		}
	}
	return -1, ""
}

// focusIn sends what a terminal sends when its window gains focus.
func (s *tmuxSession) focusIn() {
	s.t.Helper()
	s.tmux("send-keys", "-t", "e2e", "-H", "1b", "5b", "49")
}

func (s *tmuxSession) quit() {
	s.t.Helper()
	s.keys("q")
	s.waitFor("the TUI to exit", func(string) bool {
		return exec.Command("tmux", "-S", s.sock, "has-session", "-t", "e2e").Run() != nil
	})
}

// TestE2ERestartRefusedLeavesItRunning: `r` on a running chat whose folder
// has gone shows the refusal and leaves the harness running (same process,
// still answering); once the folder is back, `r` restarts it, and the old
// screen gives way to a divider naming the restart.
func TestE2ERestartRefusedLeavesItRunning(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	rec := fakeClaude(t, c)
	lib := c.dir("lib")
	s := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary, "--dir", lib, "--harness", "claude"})
	s.waitText("ready>", "keys go to claude")
	s.text("hello")
	s.keys("Enter")
	s.waitText("echo: hello")
	first := readRecords(t, rec)[0]
	s.keys("C-]")
	s.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to claude") })

	if err := os.Remove(lib); err != nil {
		t.Fatal(err)
	}
	s.keys("r")
	scr := s.waitText("not restarted, its harness keeps running", "✗ does not exist")
	if !strings.Contains(scr, fmt.Sprintf("pid %d", first.Pid)) || !strings.Contains(scr, "echo: hello") {
		t.Errorf("after the refusal the harness is not shown running as it was:\n%s", scr)
	}
	if recs := readRecords(t, rec); len(recs) != 1 || syscall.Kill(first.Pid, 0) != nil {
		t.Fatalf("the refused restart stopped or restarted the harness: %d starts, pid %d alive %v", len(recs), first.Pid, syscall.Kill(first.Pid, 0) == nil)
	}
	// It still answers.
	s.keys("Enter")
	s.waitText("keys go to claude")
	s.text("still here")
	s.keys("Enter")
	s.waitText("echo: still here")
	s.keys("C-]")
	s.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to claude") })

	// The folder is back: r restarts, and the screen turns the page.
	if err := os.Mkdir(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	s.keys("r")
	// The divider, the new run's prompt below it, the old run's lines gone
	// from the screen, and the refusal and the flag gone with the folder's
	// return.
	s.waitFor("the restart's divider and the new prompt, and no refusal", func(scr string) bool {
		i := strings.Index(scr, "── restarted ")
		return i >= 0 && strings.Contains(scr[i:], "ready>") && !strings.Contains(scr, "echo: hello") &&
			!strings.Contains(scr, "does not exist") && !strings.Contains(scr, "not restarted")
	})
	recs := readRecords(t, rec)
	if len(recs) != 2 || !slices.Contains(recs[1].Argv, lib) {
		t.Fatalf("restart: %d starts, last %+v", len(recs), recs[len(recs)-1])
	}
	s.waitFor("the old harness to be gone", func(string) bool { return syscall.Kill(first.Pid, 0) != nil })
	s.quit()
}

// TestE2EDeletedFolderFlaggedOnFocus: a folder deleted while the user is
// in another window is flagged in the summary when the terminal reports
// focus again, and the selection stays where it was.
func TestE2EDeletedFolderFlaggedOnFocus(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	libs := map[string]string{}
	for _, name := range []string{"one", "two"} {
		libs[name] = c.dir("lib-" + name)
		c.ok("new", "--name", name, "--dir", libs[name])
	}
	s := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("chats 2")
	s.keys("j")
	scr := s.waitFor("the second row selected", func(scr string) bool {
		i, _ := selectedAt(scr)
		return i == 2
	})
	row := selectedLine(scr)
	name := "one"
	if strings.Contains(row, "two") {
		name = "two"
	}
	if strings.Contains(scr, "does not exist") {
		t.Fatalf("flagged before anything was deleted:\n%s", scr)
	}
	if err := os.Remove(libs[name]); err != nil {
		t.Fatal(err)
	}
	s.focusIn()
	scr = s.waitText("✗ does not exist")
	if i, got := selectedAt(scr); i != 2 || got != row {
		t.Fatalf("the selection moved: %q, was %q", got, row)
	}
	if !strings.Contains(scr, "M remove missing folders") {
		t.Errorf("the help bar does not offer the fix:\n%s", scr)
	}
	s.quit()
}

// TestE2EDeleteOffersDeletingTheFiles: D on a chat whose own folder has
// files offers to delete them too (the CLI's rm --force), and y does.
func TestE2EDeleteOffersDeletingTheFiles(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	j := c.chat("new", "--name", "busy", "--json")
	if err := os.WriteFile(filepath.Join(j.Cwd, "notes.txt"), []byte("work"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("chats 1")
	s.keys("D")
	s.waitText(`Delete "busy"`, "has files in it (1 entry)", j.Cwd, "y delete the files too")
	s.keys("y")
	s.waitText("deleted busy", "No chats yet")
	if files := c.chatFiles(); len(files) != 0 {
		t.Errorf("chat files left: %v", files)
	}
	if _, err := os.Stat(j.Cwd); !os.IsNotExist(err) {
		t.Errorf("its own folder is still there: %v", err)
	}
	s.quit()
}

// TestE2EForksNamedDistinctly: f twice on the same chat makes "base · fork"
// and "base · fork 2", both in the sidebar under it.
func TestE2EForksNamedDistinctly(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	c.ok("new", "--name", "base")
	s := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("chats 1")
	s.keys("f")
	s.waitText("↳ base · fork", "keys go to shell")
	s.keys("C-]")
	s.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to") })
	s.keys("k")
	s.waitFor("base selected", func(scr string) bool {
		return strings.Contains(selectedLine(scr), "base") && !strings.Contains(selectedLine(scr), "fork")
	})
	s.keys("f")
	s.waitText("↳ base · fork 2", "↳ base · fork", "chats 3")
	var names []string
	for _, ch := range c.ls() {
		names = append(names, ch.Name)
	}
	slices.Sort(names)
	if want := []string{"base", "base · fork", "base · fork 2"}; !slices.Equal(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
	s.keys("C-]")
	s.quit()
}

// TestE2EHandoffAndNewToAMissingHarnessWarn: handing off to a harness that
// is not installed is refused in the chooser, saying how to install or
// configure it, and nothing is made; a new chat of one warns, creates the
// chat without starting it, and marks it in the sidebar and summary.
func TestE2EHandoffAndNewToAMissingHarnessWarn(t *testing.T) {
	needTmux(t)
	c := newCLI(t) // PATH holds nothing: every agent is missing, the shell is there
	c.ok("new", "--name", "base")
	s := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("chats 1")
	s.keys("h")
	// The notes start in one column, after the longest name (claude-acp).
	s.waitText("hand base off to", "claude      pty · not installed")
	s.keys("Enter") // claude is first: none is installed
	s.waitText(`claude is not installed: its command "claude" is not found on PATH`, "[harness.claude]")
	s.keys("Escape")
	scr := s.waitFor("the chooser to close", func(scr string) bool { return !strings.Contains(scr, "hand base off to") })
	if !strings.Contains(scr, "chats 1") || strings.Contains(scr, "Handoff from chat") {
		t.Fatalf("a refused handoff made something:\n%s", scr)
	}

	s.keys("n")
	s.waitText("new chat", "‹ shell ›")
	s.keys("Left", "Left", "Left")
	s.waitText("‹ claude ›", "not found on PATH")
	s.keys("C-s")
	s.waitFor("the new chat and its warning", func(scr string) bool {
		return strings.Contains(scr, "chats 2") && strings.Contains(scr, "⚠ claude is not installed") && !strings.Contains(scr, "‹ claude ›")
	})
	var claude int
	for _, ch := range c.ls() {
		if ch.Harness == "claude" {
			claude++
		}
	}
	if claude != 1 {
		t.Errorf("%d claude chats, want the new one alone", claude)
	}
	s.quit()
}

// TestCLIForkNamesAndHandoffWarning: the command line names repeated
// forks apart, and a handoff to a harness that is not installed warns on
// stderr but creates the chat (exit 0).
func TestCLIForkNamesAndHandoffWarning(t *testing.T) {
	c := newCLI(t)
	dir := c.dir("lib")
	base := c.chat("new", "--name", "base", "--dir", dir, "--json")
	var names []string
	for range 3 {
		names = append(names, c.chat("fork", "base", "--json").Name)
	}
	if want := []string{"base · fork", "base · fork 2", "base · fork 3"}; !slices.Equal(names, want) {
		t.Fatalf("fork names %q, want %q", names, want)
	}
	r := c.run("handoff", "base", "--to", "claude", "--json")
	if r.code != 0 {
		t.Fatalf("handoff to a missing harness exited %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "warning: claude is not installed") {
		t.Errorf("no warning on stderr: %q", r.stderr)
	}
	var h proto.ChatJSON
	if err := json.Unmarshal([]byte(r.stdout), &h); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if h.Harness != "claude" || h.Parent != base.ID || h.Name != "base → claude" || !slices.Equal(h.AdditionalDirectories, []string{dir}) {
		t.Errorf("handoff chat %+v", h)
	}
	// A side chat of base runs the shell, which is there: no warning.
	if r := c.run("side", "base"); r.code != 0 || strings.Contains(r.stderr, "warning") {
		t.Errorf("side chat with an installed harness: exit %d, stderr %q", r.code, r.stderr)
	}
}
