package tui

import (
	"errors"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

// TestNewChatOffersHarnessesReadAgain: the new-chat dialog offers the
// harness table as the config file is when it opens (a harness added while
// the TUI runs, marked when not installed; a new default is the next
// dialog's, the harness chosen stays chosen); a config refused then keeps the
// harnesses offered before, and says so in the status line.
func TestNewChatOffersHarnessesReadAgain(t *testing.T) {
	r := newRig(t, nil)
	r.create(sessions.NewChat{Name: "first"})
	cfg := config.Defaults()
	cfg.Harness = map[string]config.HarnessConfig{"aider": {Command: "aider"}}
	table, err := harness.NewTable(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var loadErr error
	load := func() (Harnesses, error) {
		if loadErr != nil {
			return Harnesses{}, loadErr
		}
		list := []HarnessInfo{{Name: "shell", Transport: "pty", Installed: true}, {Name: "aider", Transport: "pty"}}
		return Harnesses{Table: table, List: list, Default: "aider"}, nil
	}
	r.open(Options{DefaultHarness: "shell", Harnesses: []HarnessInfo{{Name: "shell", Transport: "pty", Installed: true}}, ReloadHarnesses: load})
	r.key(runeKey('n'))
	d, ok := r.m.dialog.(*NewChatDialog)
	if !ok {
		t.Fatalf("n opened %T", r.m.dialog)
	}
	if len(d.harnesses) != 2 || d.harnesses[1].Name != "aider" || d.harnesses[d.hi].Name != "shell" {
		t.Fatalf("the dialog offers %+v, chosen %d; want aider added, and shell, chosen as it opened, still chosen", d.harnesses, d.hi)
	}
	if r.m.opt.DefaultHarness != "aider" {
		t.Fatalf("the default read again is %q, want aider for the next dialog", r.m.opt.DefaultHarness)
	}
	r.key(tea.KeyMsg{Type: tea.KeyRight})
	if !strings.Contains(r.m.View(), "aider") {
		t.Fatalf("aider is not on screen after →:\n%s", r.m.View())
	}
	if !r.m.missing["aider"] {
		t.Fatal("aider, not installed, is not marked missing")
	}
	r.key(keyEscK)

	loadErr = errors.New("config /c/config.toml: line 3: harness.aider.kind: \"robot\" is not one of claude")
	r.key(runeKey('n'))
	d = r.m.dialog.(*NewChatDialog)
	if len(d.harnesses) != 2 {
		t.Fatalf("a refused config changed the harnesses offered: %+v", d.harnesses)
	}
	if view := r.m.View(); !strings.Contains(view, "config refused: line 3: harness.aider.kind") {
		t.Fatalf("the refusal is not in the status line:\n%s", view)
	}
}
