package clipboard

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// reset forgets the tool found, so a test can look again.
func reset() {
	findOnce, pasteCmd = sync.Once{}, nil
}

// A paste runs the first tool on PATH and returns what it printed; the
// search is made at the first paste, not at start.
func TestReadAllRunsTheToolOnPath(t *testing.T) {
	dir := t.TempDir()
	xsel := "#!/bin/sh\n[ \"$*\" = \"--output --clipboard\" ] || exit 3\nprintf 'pasted\\ntext'\n"
	if err := os.WriteFile(filepath.Join(dir, "xsel"), []byte(xsel), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	t.Setenv("WAYLAND_DISPLAY", "")
	reset()
	defer reset()
	if pasteCmd != nil {
		t.Fatal("a tool was chosen before the first paste")
	}
	text, err := ReadAll()
	if err != nil || text != "pasted\ntext" {
		t.Fatalf("ReadAll = %q, %v; want the tool's output", text, err)
	}
	if pasteCmd[0] != "xsel" {
		t.Fatalf("chose %q, want xsel (xclip is not on PATH)", pasteCmd)
	}
}

func TestReadAllWithoutATool(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	reset()
	defer reset()
	if _, err := ReadAll(); !errors.Is(err, ErrNoTool) {
		t.Fatalf("ReadAll with an empty PATH: %v, want ErrNoTool", err)
	}
}
