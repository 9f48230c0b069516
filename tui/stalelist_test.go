package tui

import (
	"testing"

	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

// TestStaleListKeepsWhatTheUserDid: the server's answers to two list
// requests may come in either order, and the user may move while one is
// on its way. A list asked for before the user moved keeps the selection
// the user made, and a list answered after a later one was shown is
// dropped: it never takes back a selection nor drops a chat listed since.
func TestStaleListKeepsWhatTheUserDid(t *testing.T) {
	r := newRig(t, nil)
	r.create(sessions.NewChat{Name: "a"})
	r.create(sessions.NewChat{Name: "b"})
	r.open(Options{})
	order := r.order()
	first, second := order[0], order[1]
	if r.selectedID() != first {
		t.Fatalf("selected %s, want the first chat %s", r.selectedID(), first)
	}
	// A list asked for now (a chat file changed) answers only later.
	early := r.m.reloadList("")
	r.key(keyJ)
	if r.selectedID() != second {
		t.Fatalf("j selected %s, want %s", r.selectedID(), second)
	}
	r.run(early)
	if r.selectedID() != second {
		t.Errorf("a list asked for before j took the selection back to %s", r.selectedID())
	}

	// Two lists on their way; the later one, with a new chat, comes first.
	older := r.m.reloadList("")
	c := r.create(sessions.NewChat{Name: "c"})
	r.run(r.m.reloadList(c.ID))
	if r.selectedID() != c.ID {
		t.Fatalf("the new chat %s is not selected: %s", c.ID, r.selectedID())
	}
	// The older answer, as the server had it before c: pretend it lacks c.
	msg := older().(listLoadedMsg)
	var without []sessions.Entry
	for _, e := range msg.entries {
		if e.ID != c.ID {
			without = append(without, e)
		}
	}
	msg.entries = without
	r.run(func() tea.Msg { return msg })
	if r.selectedID() != c.ID || len(r.order()) != 3 {
		t.Errorf("a stale list changed the sidebar: selected %s, %d chats listed", r.selectedID(), len(r.order()))
	}
}
