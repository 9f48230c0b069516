package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// End-to-end runs of the TUI following what changes under it: folders
// taken out in the picker, a server that goes and comes back, a folder
// deleted on disk.

// TestE2EPickerTakesOutAFolder: in the folder picker, space on a folder
// the chat has marks it to be taken out, and accept stores the change as
// rm-dir does: `show` no longer lists it, nor does the summary.
func TestE2EPickerTakesOutAFolder(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	proj := c.dir("proj")
	docs, lib := c.dir("proj/docs"), c.dir("proj/lib")
	j := c.chat("new", "--name", "picked", "--cwd", proj, "--dir", docs, "--dir", lib, "--json")
	s := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("chats 1", docs, lib)
	s.keys("a")
	s.waitText("or take them out", "[✓] docs/  already a folder · space takes it out")
	s.keys("Down", "Space")
	s.waitText("[−] docs/  taken out on accept", "take out "+docs)
	s.keys("C-s")
	s.waitText("1 folder taken out")
	if got := c.chat("show", j.ID, "--json").AdditionalDirectories; !slices.Equal(got, []string{lib}) {
		t.Fatalf("after the picker the chat has %v, want [%s]", got, lib)
	}
	// The status line can be drawn a frame before the dialog closes and
	// the summary takes the stored list.
	s.waitFor("the summary to list "+lib+" and no longer "+docs, func(scr string) bool {
		return !strings.Contains(scr, "or take them out") && strings.Contains(scr, lib) && !strings.Contains(scr, docs)
	})
	s.quit()
}

// TestE2ETUIFollowsTheServer: kill-server under an open TUI, the TUI
// starts a server by itself (as a tmux user expects) and shows the chats,
// stopped (nothing is started again after kill-server), which start in the
// new server and take keys; and again, each time a new server.
func TestE2ETUIFollowsTheServer(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	c.ok("new", "--name", "alpha")
	c.ok("new", "--name", "beta")
	s := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("chats 2", "alpha", "beta")
	s.keys("Enter")
	s.waitText("keys go to shell")
	s.text("echo one-$((40+2))")
	s.keys("Enter")
	s.waitText("one-42")
	s.keys("C-]")
	s.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to shell") })

	for round, word := range []string{"two", "three"} {
		old := proto.LockHolder(c.home)
		c.ok("kill-server")
		scr := s.waitFor("the TUI to start a server by itself and reconnect", func(scr string) bool {
			return !strings.Contains(scr, "server gone") && strings.Contains(scr, "reconnected to the server")
		})
		if !strings.Contains(scr, "chats 2") || !strings.Contains(scr, "alpha") || !strings.Contains(scr, "beta") {
			t.Fatalf("round %d: the chats are not shown after the reconnection:\n%s", round, scr)
		}
		if now := proto.LockHolder(c.home); now == 0 || now == old {
			t.Fatalf("round %d: the server's pid is %d, was %d: no new server", round, now, old)
		}
		if live := c.ok("ls"); strings.Count(live, "stopped") != 2 {
			t.Errorf("round %d: after kill-server a chat runs again:\n%s", round, live)
		}
		// The chat starts in the new server and takes keys.
		s.keys("Enter")
		s.waitText("keys go to shell")
		s.text("echo " + word + "-$((40+2))")
		s.keys("Enter")
		s.waitText(word + "-42")
		s.keys("C-]")
		s.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to shell") })
	}
	s.quit()
}

// TestE2EDeletedFolderMarkedWithoutKeys: a folder of the selected chat
// deleted on disk is marked in the summary with no key pressed and no
// focus event; the deadline is the wait's, generous for a loaded machine
// (the TUI looks every second).
func TestE2EDeletedFolderMarkedWithoutKeys(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	lib := c.dir("lib")
	c.ok("new", "--name", "watched", "--dir", lib)
	s := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary})
	scr := s.waitText("chats 1", lib)
	if strings.Contains(scr, "does not exist") {
		t.Fatalf("flagged before anything was deleted:\n%s", scr)
	}
	if err := os.Remove(lib); err != nil {
		t.Fatal(err)
	}
	s.waitText("✗ does not exist", "M remove missing folders")
	if err := os.Mkdir(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	s.waitFor("the mark to go once the folder is back", func(scr string) bool { return !strings.Contains(scr, "does not exist") })
	s.quit()
}

// TestE2EFailedChatTakesNoKeysAndEnterRestartsIt: a harness that keeps
// crashing ends failed; its pane keeps what it printed and says it failed,
// keys typed to it go nowhere, and enter starts it again.
func TestE2EFailedChatTakesNoKeysAndEnterRestartsIt(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	starts := filepath.Join(c.root, "starts.txt")
	cfg := fmt.Sprintf("[harness.crash]\ncommand = \"/bin/sh\"\nargs = [\"-c\", \"echo start >> %s; echo boom-$((6*7)); exit 1\"]\nkind = \"plain\"\n", starts)
	if err := os.WriteFile(c.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	c.ok("new", "--name", "crashy", "--harness", "crash")
	s := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("chats 1", "crashy")
	s.keys("Enter")
	s.waitText("crash failed · enter restarts it", "boom-42", "crashy · not running · enter restarts it")
	before := countLines(t, starts)
	s.keys("x", "y")
	s.waitText("crash is not running: enter starts it again")
	s.keys("Enter")
	s.waitFor("enter to start the failed chat again", func(string) bool { return countLines(t, starts) > before })
	s.keys("C-]")
	s.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "crashy · not running") })
	s.quit()
}

// countLines counts the lines of a file (0 when it does not exist).
func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}
