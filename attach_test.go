package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestE2EAttach runs `acpmux-tui attach` in tmux: the harness runs in the
// terminal at the terminal's size with the chat's folders, takes typed
// input, and ctrl+] detaches and stops it.
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
	s.waitText("ready>")
	recs := readRecords(t, rec)
	if len(recs) != 1 || !strings.Contains(strings.Join(recs[0].Argv, " "), "--add-dir "+lib) {
		t.Fatalf("attach started %+v", recs)
	}
	s.text("through attach")
	s.keys("Enter")
	s.waitText("echo: through attach")
	s.keys("C-]")
	s.waitText("[acpmux-tui: "+chat.ID+" detached]", "attach-exit=0")
	pid := recs[0].Pid
	s.waitFor("the harness to be stopped", func(string) bool { return syscall.Kill(pid, 0) != nil })
}
