package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/acpmux/acpmux-tui/sessions"
)

// TestCLIShowFilesVia: before any start, `show --json` of a chat with
// single files says how its harness will take them (the harness table's
// expectation): Claude Code as a note in its system prompt, a shell in the
// environment, an ACP agent as resource links; a chat without files, none.
func TestCLIShowFilesVia(t *testing.T) {
	c := newCLI(t)
	file := filepath.Join(c.dir("specs"), "api.md")
	if err := os.WriteFile(file, []byte("spec"), 0o644); err != nil {
		t.Fatal(err)
	}
	store, err := sessions.OpenStore(c.home)
	if err != nil {
		t.Fatal(err)
	}
	for harness, want := range map[string]string{"shell": "env", "claude": "flag", "opencode": "acp"} {
		j := c.chat("new", "--harness", harness, "--json")
		if j.FilesVia != "none" {
			t.Errorf("%s chat without files: filesVia %q, want none", harness, j.FilesVia)
		}
		if _, err := store.SetFiles(j.ID, []string{file}); err != nil {
			t.Fatal(err)
		}
		if got := c.chat("show", j.ID, "--json"); got.FilesVia != want || len(got.AdditionalFiles) != 1 || got.AdditionalFiles[0] != file {
			t.Errorf("%s chat with a file: filesVia %q additionalFiles %q, want %q [%s]", harness, got.FilesVia, got.AdditionalFiles, want, file)
		}
	}
}
