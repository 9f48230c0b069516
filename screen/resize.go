package screen

// This file resizes the screens, without reflow.

// resize implements Resize.
func (s *Screen) resize(cols, rows int) {
	if cols != s.cols {
		for _, b := range []*buffer{s.main, s.alt} {
			if b == nil {
				continue
			}
			for _, r := range b.rows {
				resizeRow(r, cols)
			}
		}
		oldTabs := s.tabs
		s.cols = cols
		s.resetTabs()
		copy(s.tabs, oldTabs)
	}
	s.cols = cols
	if rows != s.rows {
		mainY := s.cur.y
		if s.buf != s.main {
			mainY = s.main.saved.y
		}
		d := s.resizeRows(s.main, rows, mainY, true)
		s.main.saved.y += d
		if s.buf == s.main {
			s.cur.y += d
		}
		if s.alt != nil {
			d = s.resizeRows(s.alt, rows, s.cur.y, false)
			s.alt.saved.y += d
			if s.buf == s.alt {
				s.cur.y += d
			}
		}
		s.rows = rows
	}
	s.top, s.bot = 0, s.rows-1
	clampCursor := func(c *cursorState) {
		c.x = min(max(c.x, 0), s.cols-1)
		c.y = min(max(c.y, 0), s.rows-1)
		c.wrapPending = false
	}
	clampCursor(&s.cur)
	clampCursor(&s.main.saved)
	if s.alt != nil {
		clampCursor(&s.alt.saved)
	}
}

// resizeRow truncates or pads a row to cols cells.
func resizeRow(r *row, cols int) {
	r.touch()
	r.n = cols
	if r.cells == nil {
		return // still blank, now cols wide
	}
	if cols <= len(r.cells) {
		r.cells = r.cells[:cols]
		r.fixWide()
		return
	}
	c := make([]cell, cols)
	copy(c, r.cells)
	r.cells = c
}

// resizeRows changes the number of rows of b, whose cursor is on row cy, and
// returns how far the cursor row moved. Shrinking drops blank rows below the
// cursor, then moves rows from the top into the scrollback (history) or
// drops them. Growing brings lines back from the scrollback (history), then
// adds blank rows at the bottom.
func (s *Screen) resizeRows(b *buffer, rows, cy int, history bool) int {
	d := 0
	for len(b.rows) > rows && len(b.rows)-1 > cy && rowBlank(b.rows[len(b.rows)-1]) {
		b.rows = b.rows[:len(b.rows)-1]
	}
	for len(b.rows) > rows {
		if history && s.sb.max > 0 {
			s.pushScrollback(b.rows[0])
		}
		b.rows = b.rows[1:]
		d--
	}
	if len(b.rows) < rows {
		grow := rows - len(b.rows)
		var back []*row
		if history {
			for ; grow > 0 && s.sb.len() > 0; grow-- {
				r := newRow(s.cols)
				decodeLine(s.sb.line(s.sb.len()-1), r)
				s.sb.popNewest()
				back = append(back, r)
				d++
			}
		}
		nr := make([]*row, 0, rows)
		for i := len(back) - 1; i >= 0; i-- {
			nr = append(nr, back[i])
		}
		nr = append(nr, b.rows...)
		for len(nr) < rows {
			nr = append(nr, newRow(s.cols))
		}
		b.rows = nr
	} else {
		b.rows = append([]*row(nil), b.rows...)
	}
	return d
}

// rowBlank reports whether every cell of r is blank in the default style.
func rowBlank(r *row) bool {
	for i := range r.cells {
		if !r.cells[i].blankDefault() {
			return false
		}
	}
	return true
}
