package server

import (
	"strings"

	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file is what a watcher that draws a chat was told of its screen,
// so the next change sends only the rows that changed (view.go).

// sameBesidesCursor reports whether two terminals differ at most in the
// cursor's position.
func sameBesidesCursor(a, b proto.Terminal) bool {
	a.CursorCol, a.CursorRow = b.CursorCol, b.CursorRow
	return a == b
}

// toldScreen is what a client drawing a chat was last told of it: the
// screen's lines and, for a pty chat, each line's stamp (see
// mux.ScreenRows); and, once sent is set, its state and terminal.
type toldScreen struct {
	rows     []string
	stamps   []uint64
	sent     bool
	state    proto.State
	terminal proto.Terminal
}

// update reads the chat's screen and returns what the client needs to have
// it now: the lines that changed since the last screen it was told, or the
// whole screen. Of a pty chat only the rows whose stamps changed are
// rendered, and term's cursor is set to where it was as they were read.
func (t *toldScreen) update(m *mux.Mux, id string, term *proto.Terminal) *proto.ScreenPatch {
	last, lastStamps := t.rows, t.stamps
	stamps, fresh, cursor, ok := m.ScreenRows(id, lastStamps)
	if ok {
		term.CursorCol, term.CursorRow, term.CursorVisible = cursor.Col, cursor.Row, cursor.Visible
	}
	var rows []string
	if ok {
		rows = make([]string, len(stamps))
		for i := range rows {
			if r, changed := fresh[i]; changed {
				rows[i] = r
			} else {
				rows[i] = last[i]
			}
		}
	} else {
		rows = strings.Split(m.Render(id, 0), "\n")
	}
	t.rows, t.stamps = rows, stamps
	if last == nil || len(last) != len(rows) {
		full := strings.Join(rows, "\n")
		return &proto.ScreenPatch{Full: &full}
	}
	p := &proto.ScreenPatch{Rows: map[int]string{}}
	for i, row := range rows {
		if row != last[i] {
			p.Rows[i] = row
		}
	}
	return p
}
