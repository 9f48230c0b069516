package tui

import (
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/sessions"
)

// TestSummaryTitleShowsTheIDOnce: a chat with the name Create gave it (its
// harness's or folder's name and its id) is titled with its id once; a
// name of the user's is shown as it is.
func TestSummaryTitleShowsTheIDOnce(t *testing.T) {
	r := newRig(t, nil)
	plain := r.create(sessions.NewChat{})
	named := r.create(sessions.NewChat{Name: "fix the parser"})
	r.open(Options{})
	for _, c := range []struct {
		m    *sessions.Meta
		want string
	}{{plain, "shell  " + plain.ID}, {named, "fix the parser  " + named.ID}} {
		r.m.sidebar.Select(c.m.ID)
		r.m.refreshSelected()
		first := r.m.summary.View()[0]
		if !strings.Contains(first, c.want) || strings.Count(first, c.m.ID) != 1 {
			t.Errorf("chat %q: the summary's title %q, want %q with the id once", c.m.Name, first, c.want)
		}
	}
}
