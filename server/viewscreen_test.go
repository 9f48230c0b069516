package server

import (
	"strings"
	"testing"
)

// TestScreenUpdateTellsTheCursorOfItsRows: the cursor told with a screen's
// rows is the one read with them, not the one noted when the change was
// noticed: output that came in between (a key's echo) moved both, and a
// client drawing the rows at the old cursor would show it one cell behind.
func TestScreenUpdateTellsTheCursorOfItsRows(t *testing.T) {
	r := newRig(t, rigOpt{})
	a := newViewClient(r)
	c := a.started(80, 24, "")[0]
	a.waitScreen(c.ID, "ready>")
	m := r.srv.opt.Mux
	told := &toldScreen{}
	first := m.Terminal(c.ID)
	told.update(m, c.ID, &first)

	noticed := m.Terminal(c.ID) // the change as noticed, before the echo came
	a.write(c.ID, "k")
	waitFor(t, "the key's echo on the screen", func() bool { return strings.Contains(m.Render(c.ID, 0), "ready>k") })
	term := noticed
	patch := told.update(m, c.ID, &term)
	now := m.Terminal(c.ID)
	if noticed.CursorCol == now.CursorCol && noticed.CursorRow == now.CursorRow {
		t.Fatalf("the echo did not move the cursor (%d,%d): nothing to test", now.CursorCol, now.CursorRow)
	}
	if row, ok := patch.Rows[now.CursorRow]; !ok || !strings.HasPrefix(row, "ready>k") {
		t.Fatalf("the patch %+v lacks the echo's row %d", patch, now.CursorRow)
	}
	if term.CursorCol != now.CursorCol || term.CursorRow != now.CursorRow {
		t.Errorf("the rows were told with the cursor at %d,%d; it is at %d,%d", term.CursorCol, term.CursorRow, now.CursorCol, now.CursorRow)
	}
}
