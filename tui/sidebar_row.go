package tui

import "strings"

// This file draws the rows of the chat list, each kept as last drawn
// while what it is drawn from stays the same.

// harnessLabel returns a harness name drawn dim (or "broken", or a harness
// not installed, drawn as a warning), rendered once per name.
func (s *Sidebar) harnessLabel(name string, warn bool) string {
	if warn {
		return s.c.Styles.Warn.Render(name)
	}
	l, ok := s.harnessLabels[name]
	if !ok {
		if s.harnessLabels == nil {
			s.harnessLabels = map[string]string{}
		}
		l = s.c.Styles.Dim.Render(name)
		s.harnessLabels[name] = l
	}
	return l
}

// Asking is the number of chats that ask for the user's answer, kept by
// SetState: the title reads it after every message.
func (s *Sidebar) Asking() int { return s.asking }

// row draws one chat: pointer, mark, unread mark, name, the sandbox mark
// and harness.
func (s *Sidebar) row(r sideRow, selected bool) string {
	state := s.states[r.entry.ID]
	broken := r.entry.Meta == nil
	k := rowKey{mark: markOf(state, broken), name: r.name, harness: r.harness, plus: s.markOf(r), unread: rowLook(state).unread,
		selected: selected, sandboxed: r.sandboxed, warn: broken || r.notInstalled, w: s.w}
	if s.showCost {
		k.cost = costCell(state, r.entry.Meta)
	}
	if m, ok := s.drawnRows[r.entry.ID]; ok && m.key == k {
		return m.line
	}
	line := s.drawRow(k)
	if s.drawnRows == nil {
		s.drawnRows = map[string]drawnRow{}
	}
	s.drawnRows[r.entry.ID] = drawnRow{k, line}
	return line
}

// rowKey is everything a row of the list is drawn from: a row whose key
// is the one last drawn is the string drawn then (most frames change no
// row, and a key's echo none).
type rowKey struct {
	mark                        markKind
	name, harness, plus, cost   string
	unread, selected, sandboxed bool
	warn                        bool // broken, or its harness not installed
	w                           int
}

// drawnRow is a row as last drawn, and what from.
type drawnRow struct {
	key  rowKey
	line string
}

// drawRow draws a row of the list from its key.
func (s *Sidebar) drawRow(k rowKey) string {
	st := s.c.Styles
	mk, name, harness, unread := k.mark, k.name, k.harness, k.unread
	if name == "" {
		return fitPlain(" "+markGlyphs[mk], s.w)
	}
	var b strings.Builder
	if k.selected {
		b.WriteString(st.pointer)
		b.WriteString(st.selMarks[mk])
		if unread {
			b.WriteString(st.selUnread)
		} else {
			b.WriteString(st.Selected.Render(" "))
		}
		b.WriteString(st.SelectedName.Render(k.plus + name + " "))
		if s.showCost {
			b.WriteString(st.SelectedDim.Render(k.cost + " "))
		}
		if k.sandboxed {
			b.WriteString(st.selSandbox)
		}
		if harness != "" {
			b.WriteString(st.SelectedDim.Render(harness + " "))
		}
		return b.String()
	}
	b.WriteByte(' ')
	b.WriteString(st.marks[mk])
	if unread {
		b.WriteString(st.unread)
	} else {
		b.WriteByte(' ')
	}
	b.WriteString(k.plus)
	b.WriteString(name)
	b.WriteByte(' ')
	if s.showCost {
		b.WriteString(st.Dim.Render(k.cost))
		b.WriteByte(' ')
	}
	if k.sandboxed {
		b.WriteString(st.sandbox)
	}
	if harness != "" {
		b.WriteString(s.harnessLabel(harness, k.warn))
		b.WriteByte(' ')
	}
	return b.String()
}
