package tui

import (
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

// Tests of the sidebar: the family tree, moving through it, filtering.

func TestNavigationFollowsTheTree(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "alpha"})
	r.create(sessions.NewChat{Name: "beta"})
	fork, err := r.store.Derive(a.ID, sessions.Derivation{Origin: sessions.OriginFork})
	if err != nil {
		t.Fatal(err)
	}
	r.open(Options{})
	// The list is in creation order (then id, within a second); the fork
	// comes right after its parent whatever its place in the list.
	var want []string
	list, _ := r.store.List()
	for _, e := range list {
		if e.ID != fork.ID {
			want = append(want, e.ID)
		}
		if e.ID == a.ID {
			want = append(want, fork.ID)
		}
	}
	if got := r.order(); !slices.Equal(got, want) {
		t.Fatalf("order %v, want the fork under its parent %v", got, want)
	}
	if r.selectedID() != want[0] {
		t.Fatalf("first selected %s", r.selectedID())
	}
	r.key(keyJ)
	if r.selectedID() != want[1] {
		t.Errorf("j selected %s, want %s", r.selectedID(), want[1])
	}
	r.key(keyOf(tea.KeyDown), keyJ) // past the end stays on the last
	if r.selectedID() != want[2] {
		t.Errorf("down, j selected %s", r.selectedID())
	}
	r.key(keyK, keyOf(tea.KeyUp))
	if r.selectedID() != want[0] {
		t.Errorf("k, up selected %s", r.selectedID())
	}
	// Keys typed faster than one read arrive as one message: each counts.
	r.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jj")})
	if r.selectedID() != want[2] {
		t.Errorf("jj in one read selected %s, want %s", r.selectedID(), want[2])
	}
	r.key(keyK, keyK)
	view := r.m.View()
	if !strings.Contains(view, "↳ alpha · fork") || !strings.Contains(view, "summary") {
		t.Errorf("view:\n%s", view)
	}
	// Moving selects; it never starts a harness.
	if calls := r.fake.Calls(); slices.ContainsFunc(calls, func(c string) bool { return strings.HasPrefix(c, "start") }) {
		t.Errorf("selection started a harness: %v", calls)
	}
}

// TestTreeKeepsOrphansAndAncestors: a chat whose parent was deleted stays
// listed, as a root marked as an orphan, and its summary says the parent
// is gone; a filter that matches a fork keeps the fork's parent in view,
// so the tree never shows the fork under another chat.
func TestTreeKeepsOrphansAndAncestors(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "alpha"})
	b := r.create(sessions.NewChat{Name: "beta"})
	forkB, err := r.store.Derive(b.ID, sessions.Derivation{Origin: sessions.OriginFork, Name: "zebra"})
	if err != nil {
		t.Fatal(err)
	}
	side, err := r.store.Derive(a.ID, sessions.Derivation{Origin: sessions.OriginSide})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.store.Remove(a.ID, true); err != nil {
		t.Fatal(err)
	}
	r.open(Options{})
	// Chats made within a second are listed by id: only the fork's place
	// right under its parent is fixed.
	if got := r.order(); len(got) != 3 || !slices.Contains(got, side.ID) || slices.Index(got, forkB.ID) != slices.Index(got, b.ID)+1 {
		t.Fatalf("order %v: want %s, then its fork %s, and the orphan %s", got, b.ID, forkB.ID, side.ID)
	}
	view := r.m.View()
	if !strings.Contains(view, "↰ alpha · side") || !strings.Contains(view, "↳ zebra") {
		t.Errorf("the orphan or the fork is not marked:\n%s", view)
	}
	if !r.m.sidebar.Select(side.ID) {
		t.Fatal("the orphan cannot be selected")
	}
	r.run(r.m.selectionChanged())
	if !r.m.summary.info.ParentGone {
		t.Error("the summary is not told the parent is gone")
	}
	r.run(func() tea.Msg { return tea.WindowSizeMsg{Width: 140, Height: 50} }) // room for the title line
	if view := r.m.View(); !strings.Contains(view, "side of "+a.ID+" (deleted)") {
		t.Errorf("the summary does not say the parent is gone:\n%s", view)
	}

	r.key(runeKey('/'))
	r.typeText("zebra")
	if got := r.order(); !slices.Equal(got, []string{b.ID, forkB.ID}) {
		t.Errorf("filter zebra shows %v, want the fork under its parent", got)
	}
	r.key(keyEscK)
	r.key(runeKey('/'))
	r.typeText("beta")
	if got := r.order(); !slices.Equal(got, []string{b.ID}) {
		t.Errorf("filter beta shows %v, want the parent alone", got)
	}
}

func TestFilterByNameHarnessAndFolder(t *testing.T) {
	r := newRig(t, nil)
	lib := r.dir("src/lib")
	a := r.create(sessions.NewChat{Name: "parser work", AdditionalDirectories: []string{lib}})
	b := r.create(sessions.NewChat{Name: "notes", Harness: "claude"})
	c := r.create(sessions.NewChat{Name: "scratch"})
	r.open(Options{})
	r.key(runeKey('/'))
	if !r.m.sidebar.Filtering() {
		t.Fatal("/ did not start the filter")
	}
	r.typeText("lib")
	if got := r.order(); !slices.Equal(got, []string{a.ID}) {
		t.Errorf("filter lib (a folder): %v", got)
	}
	// While filtering, letters are text, not actions: j did not move, q did
	// not quit.
	r.key(keyOf(tea.KeyBackspace), keyOf(tea.KeyBackspace), keyOf(tea.KeyBackspace))
	r.typeText("CLAUDE")
	if got := r.order(); !slices.Equal(got, []string{b.ID}) || r.quit {
		t.Errorf("filter claude (a harness): %v quit=%v", got, r.quit)
	}
	r.key(keyEnter) // keep the filter, leave the field
	if r.m.sidebar.Filtering() || r.m.sidebar.FilterText() != "CLAUDE" {
		t.Errorf("enter: filtering=%v text=%q", r.m.sidebar.Filtering(), r.m.sidebar.FilterText())
	}
	if !strings.Contains(r.m.View(), "chats 1/3") {
		t.Errorf("title lacks the count:\n%s", r.m.View())
	}
	r.key(keyEscK)
	if got := r.order(); len(got) != 3 || !slices.Contains(got, c.ID) {
		t.Errorf("esc cleared to %v", got)
	}
	r.key(runeKey('/'))
	r.typeText("scr")
	r.key(keyEscK)
	if got := r.order(); len(got) != 3 || r.selectedID() != c.ID {
		t.Errorf("esc while typing: %v, selected %s", got, r.selectedID())
	}
}
