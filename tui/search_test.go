package tui

import (
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// searchMux is the fake mux with a search that answers what the test set.
type searchMux struct {
	*fakeMux
	answers map[string]proto.SearchResult // by the words, joined by "|"
	asked   []string
}

func (s *searchMux) Search(p proto.SearchParams) (proto.SearchResult, error) {
	w := strings.Join(p.Words, "|")
	s.asked = append(s.asked, w)
	return s.answers[w], nil
}

// TestSearchKey: F opens the search; enter searches every host for the
// words typed (a quoted phrase is one word) and lists the hits per chat;
// enter on a hit selects its chat, and opens it for a hit on its screen;
// a word nowhere says so.
func TestSearchKey(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "alpha"})
	b := r.create(sessions.NewChat{Name: "beta"})
	mux := &searchMux{fakeMux: r.fake, answers: map[string]proto.SearchResult{
		"zebra|the parser": {Hits: 2, Screens: true, Chats: []proto.SearchChat{{ID: b.ID, Name: "beta", Hits: []proto.SearchHit{
			{Where: proto.SearchName, Excerpt: "beta zebra the parser"},
			{Where: proto.SearchScreen, Excerpt: "$ zebra: the parser broke"},
		}, More: 3}}},
	}}
	r.open(Options{Mux: mux})
	r.m.sidebar.Select(a.ID)

	r.key(runeKey('F'))
	d, ok := r.m.dialog.(*SearchDialog)
	if !ok {
		t.Fatalf("F opened %T, want the search dialog", r.m.dialog)
	}
	r.typeText(`zebra "the parser"`)
	r.key(keyOf(tea.KeyEnter))
	if !slices.Equal(mux.asked, []string{"zebra|the parser"}) {
		t.Fatalf("searched for %q", mux.asked)
	}
	view := r.m.View()
	for _, want := range []string{"search every chat", b.ID + "  beta  (+3 more)", "screen       $ zebra: the parser broke", "2 hits in 1 chat"} {
		if !strings.Contains(view, want) {
			t.Fatalf("the hits lack %q:\n%s", want, view)
		}
	}
	if c, h, ok := d.Selected(); !ok || c.ID != b.ID || h.Where != proto.SearchName {
		t.Fatalf("first hit selected: %v %+v %+v", ok, c, h)
	}

	// The screen hit opens the chat.
	r.key(keyOf(tea.KeyDown))
	r.key(keyOf(tea.KeyEnter))
	if r.m.dialog != nil {
		t.Fatalf("enter on a hit left %T open", r.m.dialog)
	}
	if r.selectedID() != b.ID || !r.m.pane.Focused() {
		t.Fatalf("after the jump: selected %s, pane focused %v; want %s, focused", r.selectedID(), r.m.pane.Focused(), b.ID)
	}

	// A word nowhere.
	r.key(keyOf(tea.KeyCtrlCloseBracket))
	r.key(runeKey('F'))
	r.typeText("giraffe")
	r.key(keyOf(tea.KeyEnter))
	if view := r.m.View(); !strings.Contains(view, "no chat holds every word") {
		t.Fatalf("a word nowhere:\n%s", view)
	}
	r.key(keyOf(tea.KeyEsc))
	if r.m.dialog != nil || r.selectedID() != b.ID {
		t.Fatalf("esc: dialog %T, selected %s", r.m.dialog, r.selectedID())
	}
}
