package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/startrecord"
)

// TestE2EConfigEditedWhileServerRuns: with the TUI open and a chat
// running, a harness added to the config file is offered by the new-chat
// dialog and starts (the server reads the config again); a bad edit is
// refused on screen with the line and the key, a chat made then starts
// with the last good config, and the running chat keeps its process all
// along.
func TestE2EConfigEditedWhileServerRuns(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	fake := buildFakeHarness(t)
	rec := filepath.Join(c.root, "fake-record.jsonl")
	table := func(name, mark string) string {
		return fmt.Sprintf("[harness.%s]\ncommand = %q\nenv = { ACPMUX_FAKE_RECORD = %q, CONFIG_MARK = %q }\n", name, fake, rec, mark)
	}
	// Each edit lands whole (a rename), as an editor's save does: a file
	// truncated and then written can be read empty in between, which is a
	// good config of its own (no harness added), and the bad edit after
	// it would keep that one.
	write := func(text string) {
		t.Helper()
		tmp := c.config + ".tmp"
		if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, c.config); err != nil {
			t.Fatal(err)
		}
	}
	mark := func(r startrecord.Record) string { v, _ := r.Getenv("CONFIG_MARK"); return v }
	waitStarts := func(s *tmuxSession, n int) []startrecord.Record {
		t.Helper()
		var recs []startrecord.Record
		s.waitFor(fmt.Sprintf("%d harness starts recorded", n), func(string) bool {
			r, err := startrecord.Read(rec)
			recs = r
			return err == nil && len(r) >= n
		})
		return recs
	}
	write(table("claude", "v1"))
	s := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary, "--harness", "claude", "--name", "first"})
	s.waitText("ready>", "keys go to claude")
	first := waitStarts(s, 1)[0]
	if mark(first) != "v1" {
		t.Fatalf("the first start: CONFIG_MARK=%q, want v1", mark(first))
	}
	s.keys("C-]")
	s.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to claude") })

	// A harness added while the server runs: offered, and it starts.
	write(table("claude", "v2") + table("added", "added-1"))
	s.keys("n")
	s.waitText("←/→ harness")
	// The dialog takes the config the server reads as it opens, a moment
	// after the file settles: step left (the added harness is last in the
	// table, and the list wraps) until it is offered.
	s.waitFor("the added harness offered in the dialog", func(scr string) bool {
		if strings.Contains(scr, "‹ added ›") {
			return true
		}
		s.keys("Left")
		return false
	})
	s.keys("C-s")
	recs := waitStarts(s, 2)
	if mark(recs[1]) != "added-1" {
		t.Fatalf("the added harness's start: CONFIG_MARK=%q, want added-1", mark(recs[1]))
	}
	s.waitText("keys go to added")
	s.keys("C-]")
	s.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to added") })

	// A bad edit (line 7: the added harness's kind): refused on screen,
	// with the line and the key.
	write(table("claude", "v3") + table("added", "added-2") + "kind = \"robot\"\n")
	s.keys("n")
	s.waitText("config refused: line 7: harness.added.kind")
	s.keys("Left")
	s.waitText("added")
	s.keys("C-s")
	recs = waitStarts(s, 3)
	if mark(recs[2]) != "added-1" {
		t.Fatalf("a start after the bad edit: CONFIG_MARK=%q, want the last good config's added-1", mark(recs[2]))
	}
	s.waitText("keys go to added")
	if len(recs) != 3 {
		t.Fatalf("%d starts, want 3 (the running chat must not be started again): %+v", len(recs), recs)
	}
	if err := syscall.Kill(first.Pid, 0); err != nil {
		t.Fatalf("the running chat's harness (pid %d) is gone after the config edits: %v", first.Pid, err)
	}
	s.keys("C-]")
	s.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to added") })
	s.quit()
}
