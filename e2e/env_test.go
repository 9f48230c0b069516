package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestE2EHarnessEnvironmentIsItsOwn runs the TUI inside tmux, as many users
// do, and checks what the harness really received: none of the outer
// multiplexer's variables (so a tool that calls tmux does not act on the
// user's pane) and TERM_PROGRAM naming acpmux-tui.
func TestE2EHarnessEnvironmentIsItsOwn(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	fake := buildFakeHarness(t)
	rec := filepath.Join(c.root, "fake-record.jsonl")
	cfg := fmt.Sprintf("[harness.claude]\ncommand = %q\nenv = { ACPMUX_FAKE_RECORD = %q, CLAUDE_CONFIG_DIR = %q }\n",
		fake, rec, filepath.Join(c.root, "claude"))
	if err := os.WriteFile(c.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(c.env(), "TERM=xterm-256color", "STY=1234.pts-0.host", "KITTY_WINDOW_ID=7", "ZELLIJ=0")
	s := startTmux(t, 160, 50, env, []string{binary, "--harness", "claude"})
	s.waitText("ready>")
	recs := readRecords(t, rec)
	if len(recs) != 1 {
		t.Fatalf("the harness started %d times", len(recs))
	}
	for _, k := range []string{"TMUX", "TMUX_PANE", "STY", "KITTY_WINDOW_ID", "ZELLIJ", "TERM_PROGRAM_VERSION"} {
		if v, ok := recs[0].Getenv(k); ok {
			t.Errorf("the harness got the outer terminal's %s=%q", k, v)
		}
	}
	if v, _ := recs[0].Getenv("TERM_PROGRAM"); v != "acpmux-tui" {
		t.Errorf("TERM_PROGRAM = %q, want acpmux-tui", v)
	}
	if v, _ := recs[0].Getenv("TERM"); v != "xterm-256color" {
		t.Errorf("TERM = %q", v)
	}
	s.keys("C-]")
	s.keys("q")
}
