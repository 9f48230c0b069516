package tui

import (
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

// TestRenameKey: R opens a dialog holding the chat's name; a refused name
// (another chat's, an empty one) shows in the dialog and changes nothing;
// enter stores the new name, which the sidebar and the status line show;
// esc leaves the name as it was.
func TestRenameKey(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "zap"})
	r.create(sessions.NewChat{Name: "other"})
	r.open(Options{})
	r.m.sidebar.Select(a.ID)

	r.key(runeKey('R'))
	d, ok := r.m.dialog.(*RenameDialog)
	if !ok {
		t.Fatalf("R opened %T, want the rename dialog", r.m.dialog)
	}
	if d.Value() != "zap" || !strings.Contains(r.m.View(), "rename chat") {
		t.Fatalf("the dialog holds %q:\n%s", d.Value(), r.m.View())
	}

	// Another chat's name is refused inline.
	clear := func() {
		for range len([]rune(d.Value())) {
			r.key(keyOf(tea.KeyBackspace))
		}
	}
	clear()
	r.typeText("other")
	r.key(keyOf(tea.KeyEnter))
	if r.m.dialog != d || !strings.Contains(d.ErrText(), "already named") || !strings.Contains(r.m.View(), "already named") {
		t.Fatalf("a taken name: dialog %T, error %q\n%s", r.m.dialog, d.ErrText(), r.m.View())
	}
	// So is an empty one.
	clear()
	r.key(keyOf(tea.KeyEnter))
	if r.m.dialog != d || !strings.Contains(d.ErrText(), "cannot be empty") {
		t.Fatalf("an empty name: dialog %T, error %q", r.m.dialog, d.ErrText())
	}
	if m, _ := r.store.Load(a.ID); m.Name != "zap" {
		t.Fatalf("refusals changed the name to %q", m.Name)
	}

	r.typeText("the parser")
	r.key(keyOf(tea.KeyEnter))
	if r.m.dialog != nil {
		t.Fatalf("enter left %T open: %q", r.m.dialog, d.ErrText())
	}
	if m, _ := r.store.Load(a.ID); m.Name != "the parser" {
		t.Fatalf("stored name %q, want %q", m.Name, "the parser")
	}
	if v := r.m.View(); !strings.Contains(v, "the parser") || !strings.Contains(r.m.status, "renamed "+a.ID+" to the parser") {
		t.Errorf("status %q; the view does not show the new name:\n%s", r.m.status, v)
	}

	// esc changes nothing.
	r.key(runeKey('R'))
	r.typeText(" again")
	r.key(keyOf(tea.KeyEsc))
	if r.m.dialog != nil {
		t.Fatalf("esc left %T open", r.m.dialog)
	}
	if m, _ := r.store.Load(a.ID); m.Name != "the parser" {
		t.Errorf("esc renamed the chat to %q", m.Name)
	}
}
