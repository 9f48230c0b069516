package mux

import "github.com/acpmux/acpmux-tui/proto"

// This file holds what the TUI needs of a pty chat's terminal beyond its
// rendered screen: the modes that decide how keys and pastes are encoded,
// the scrollback length that bounds scrolling, and the cursor to draw.

// Terminal returns the chat's terminal modes, scrollback length and cursor.
// The zero Terminal is returned for a chat that is not a pty chat or has
// never been started. It is an in-memory read, cheap enough to call on every
// change notice.
func (m *Mux) Terminal(id string) proto.Terminal {
	c, err := m.existing(id)
	if err != nil {
		return proto.Terminal{}
	}
	p, ok := c.(*ptyChat)
	if !ok {
		return proto.Terminal{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.scr == nil {
		return proto.Terminal{}
	}
	t := proto.Terminal{Modes: p.scr.Modes(), Scrollback: p.scr.ScrollbackLen()}
	t.CursorCol, t.CursorRow, t.CursorVisible = p.scr.Cursor()
	t.Cols, t.Rows = p.scr.Size()
	return t
}

// Cursor is where a chat's terminal has its cursor, and whether it shows.
type Cursor struct {
	Col, Row int
	Visible  bool
}

// ScreenRows reads the chat's live screen at one moment: the stamp of each
// row (see screen.Screen.Stamps) and, as Render(id, 0) shows them, the rows
// whose stamp is not the one at their place in told (every row when told
// has another length), and the cursor at that same moment. So a client
// told of each change is sent only the rows that changed, nothing else is
// rendered, and the cursor it is told goes with those rows: one read when
// the change was noticed could be older than the rows, when more output
// came meanwhile. ok is false for a chat with no screen (not a pty chat,
// or never started).
func (m *Mux) ScreenRows(id string, told []uint64) (stamps []uint64, rows map[int]string, cursor Cursor, ok bool) {
	c, err := m.existing(id)
	if err != nil {
		return nil, nil, Cursor{}, false
	}
	p, isPty := c.(*ptyChat)
	if !isPty {
		return nil, nil, Cursor{}, false
	}
	p.notified.read()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.scr == nil {
		return nil, nil, Cursor{}, false
	}
	cursor.Col, cursor.Row, cursor.Visible = p.scr.Cursor()
	stamps = p.scr.Stamps(make([]uint64, 0, len(told)))
	all := len(stamps) != len(told)
	rows = map[int]string{}
	for i, st := range stamps {
		if all || st != told[i] {
			rows[i] = p.scr.RenderRow(i)
		}
	}
	return stamps, rows, cursor, true
}
