package e2e

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestE2EFileFromThePicker runs the real binary in tmux: in the picker,
// ctrl+t has a pick add files; a file picked from the listing is stored on
// accept (through the server's setFiles), shows in the summary with how it
// reaches the harness, and in `acpmux-tui show --json`.
func TestE2EFileFromThePicker(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	specs := c.dir("specs")
	spec := c.writeFile("specs/api.md")
	j := c.chat("new", "--harness", "shell", "--name", "spec reader", "--json")

	s := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("spec reader", "folders  none")
	s.keys("a")
	s.waitText("add folders to", "adds     folders")
	s.keys("C-u")
	s.text(specs + "/")
	s.waitText("[ ] api.md")
	s.keys("C-t")
	s.waitText("adds     files", "ctrl+t pick folders")
	s.keys("Down", "Space")
	s.waitText("files    " + spec)
	if m := loadChat(t, c, j.ID); len(m.AdditionalFiles) != 0 {
		t.Fatalf("a pick stored before accept: %q", m.AdditionalFiles)
	}
	s.keys("C-s")
	s.waitText("1 file added")
	// The summary lists it under the folders, and the way it goes.
	s.waitFor("the file in the summary", func(scr string) bool {
		return strings.Contains(scr, "files    "+spec) && strings.Contains(scr, "↳ via") && !strings.Contains(scr, "adds     files")
	})
	if got := c.chat("show", j.ID, "--json"); !slices.Equal(got.AdditionalFiles, []string{spec}) {
		t.Fatalf("show --json after the picker: %q", got.AdditionalFiles)
	}
	if m := loadChat(t, c, j.ID); !slices.Equal(m.AdditionalFiles, []string{spec}) || filepath.Dir(spec) != specs {
		t.Fatalf("stored: %q", m.AdditionalFiles)
	}

	s.keys("q")
	s.waitFor("the TUI to exit", func(string) bool {
		return exec.Command("tmux", "-S", s.sock, "has-session", "-t", "e2e").Run() != nil
	})
}
