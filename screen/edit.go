package screen

import "unicode/utf8"

// This file holds the operations on the grid: printing, cursor movement,
// scrolling, erasing, inserting and deleting.

// decSpecial maps 0x5f-0x7e to the DEC special graphics (line drawing) set.
var decSpecial = [...]rune{
	' ', '◆', '▒', '␉', '␌', '␍', '␊', '°', '±', '␤', '␋', '┘', '┐', '┌', '└', '┼',
	'⎺', '⎻', '─', '⎼', '⎽', '├', '┤', '┴', '┬', '│', '≤', '≥', 'π', '≠', '£', '·',
}

func (s *Screen) penCell(r rune) cell {
	return cell{r: r, fg: s.cur.pen.FG, bg: s.cur.pen.BG, attr: s.cur.pen.Attrs}
}

// wrapLine moves the cursor to the start of the next line after the last
// column was written (autowrap), scrolling if needed.
func (s *Screen) wrapLine() {
	r := s.buf.rows[s.cur.y]
	r.wrapped = true
	r.restamp()
	s.cur.x = 0
	s.cur.wrapPending = false
	s.index()
}

// printASCII prints a run of printable ASCII characters.
func (s *Screen) printASCII(run []byte) {
	if s.modes.Insert || s.cur.charsets[s.cur.gl] != 'B' {
		for _, b := range run {
			s.printRune(rune(b))
		}
		return
	}
	pen := s.cur.pen
	for len(run) > 0 {
		if s.cur.wrapPending {
			if s.modes.Autowrap {
				s.wrapLine()
			}
			s.cur.wrapPending = false
		}
		r := s.buf.rows[s.cur.y]
		x := s.cur.x
		k := min(s.cols-x, len(run))
		r.restamp()
		hi, keep := r.hi, r.kept.ok && x >= r.hi
		s.fixWideAround(r, x, k)
		cells := r.cells[x : x+k]
		for j, b := range run[:k] {
			cells[j] = cell{r: rune(b), fg: pen.FG, bg: pen.BG, attr: pen.Attrs}
		}
		if keep {
			r.kept.add(hi, x, pen)
			r.kept.text = append(r.kept.text, run[:k]...)
		} else {
			r.kept.ok = false
		}
		s.last = rune(run[k-1])
		run = run[k:]
		x += k
		if x < s.cols {
			s.cur.x = x
			continue
		}
		s.cur.x = s.cols - 1
		if s.modes.Autowrap {
			s.cur.wrapPending = true
		} else if len(run) > 0 {
			// Without autowrap the rest overwrites the last column.
			b := run[len(run)-1]
			r.touch()
			s.fixWideAround(r, s.cols-1, 1)
			r.cells[s.cols-1] = cell{r: rune(b), fg: pen.FG, bg: pen.BG, attr: pen.Attrs}
			s.last = rune(b)
			return
		}
	}
}

// fixWideAround blanks the other halves of wide characters that writing
// cells [x, x+w) of r would cut in two.
func (s *Screen) fixWideAround(r *row, x, w int) {
	c := r.liveTo(x + w)
	if c[x].flags&flagCont != 0 && x > 0 {
		c[x-1] = cell{bg: c[x-1].bg}
	}
	end := x + w - 1
	if c[end].flags&flagWide != 0 && end+1 < len(c) {
		c[end+1] = cell{bg: c[end+1].bg}
	}
}

// printRune prints one character (any width).
func (s *Screen) printRune(r rune) {
	if r < 0x80 && s.cur.charsets[s.cur.gl] == '0' && r >= 0x5f && r <= 0x7e {
		r = decSpecial[r-0x5f]
	}
	w := runeWidth(r)
	if w == 0 {
		s.combine(r)
		return
	}
	if s.cur.wrapPending {
		if s.modes.Autowrap {
			s.wrapLine()
		}
		s.cur.wrapPending = false
	}
	if w == 2 && s.cur.x >= s.cols-1 {
		if s.cols < 2 || !s.modes.Autowrap {
			return
		}
		s.wrapLine()
	}
	row := s.buf.rows[s.cur.y]
	row.restamp()
	x := s.cur.x
	if s.modes.Insert {
		s.insertCells(row, x, w)
	}
	hi, keep := row.hi, row.kept.ok && x >= row.hi
	s.fixWideAround(row, x, w)
	c := s.penCell(r)
	if w == 2 {
		c.flags = flagWide
		row.cells[x] = c
		c.r, c.flags = 0, flagCont
		row.cells[x+1] = c
	} else {
		row.cells[x] = c
	}
	if keep {
		row.kept.add(hi, x, s.cur.pen)
		row.kept.text = utf8.AppendRune(row.kept.text, r)
	} else {
		row.kept.ok = false
	}
	s.last = r
	x += w
	if x >= s.cols {
		s.cur.x = s.cols - 1
		s.cur.wrapPending = s.modes.Autowrap
	} else {
		s.cur.x = x
	}
}

// combine attaches a zero-width character to the cell before the cursor.
func (s *Screen) combine(r rune) {
	if r < 0xa0 {
		return // C0 and C1 controls never reach the cells
	}
	x := s.cur.x
	if !s.cur.wrapPending {
		x--
	}
	if x < 0 {
		return
	}
	row := s.buf.rows[s.cur.y]
	if row.live()[x].flags&flagCont != 0 && x > 0 {
		x--
	}
	row.addCombining(x, string(r))
}

// repeat prints the last graphic character n more times (REP).
func (s *Screen) repeat(n int) {
	if s.last == 0 {
		return
	}
	n = min(n, s.cols*s.rows)
	for range n {
		s.printRune(s.last)
	}
}

// index moves the cursor down one line, scrolling the region at its bottom.
func (s *Screen) index() {
	switch {
	case s.cur.y == s.bot:
		s.scrollUp(s.top, s.bot, 1, true)
	case s.cur.y < s.rows-1:
		s.cur.y++
	}
}

// reverseIndex moves the cursor up one line, scrolling the region down at its
// top.
func (s *Screen) reverseIndex() {
	switch {
	case s.cur.y == s.top:
		s.scrollDown(s.top, s.bot, 1)
	case s.cur.y > 0:
		s.cur.y--
	}
}

// scrollUp scrolls rows [top, bot] up by n. Rows leaving the top of the main
// screen go to the scrollback when history is set and top is the first row.
func (s *Screen) scrollUp(top, bot, n int, history bool) {
	n = min(n, bot-top+1)
	if n <= 0 {
		return
	}
	rows := s.buf.rows
	if history && top == 0 && s.buf == s.main && s.sb.max > 0 {
		for i := range n {
			s.pushScrollback(rows[top+i])
		}
	}
	bg := s.cur.pen.BG
	if n == 1 {
		r0 := rows[top]
		copy(rows[top:bot], rows[top+1:bot+1])
		rows[bot] = r0
		r0.reset(bg)
		return
	}
	gone := append([]*row(nil), rows[top:top+n]...)
	copy(rows[top:], rows[top+n:bot+1])
	copy(rows[bot-n+1:], gone)
	for _, r := range gone {
		r.reset(bg)
	}
}

// scrollDown scrolls rows [top, bot] down by n; rows leaving the bottom are
// lost.
func (s *Screen) scrollDown(top, bot, n int) {
	n = min(n, bot-top+1)
	if n <= 0 {
		return
	}
	rows := s.buf.rows
	gone := append([]*row(nil), rows[bot-n+1:bot+1]...)
	copy(rows[top+n:bot+1], rows[top:bot-n+1])
	copy(rows[top:], gone)
	for _, r := range gone {
		r.reset(s.cur.pen.BG)
	}
}

// pushScrollback encodes a row into the scrollback.
func (s *Screen) pushScrollback(r *row) {
	if s.slow {
		r.kept.ok = false // encode it from its cells
	}
	s.sb.push(s.enc.encode(r))
}

// setCursor moves the cursor to (x, y), relative to the scroll region in
// origin mode, clamped to the screen (or region).
func (s *Screen) setCursor(x, y int) {
	top, bot := 0, s.rows-1
	if s.cur.origin {
		top, bot = s.top, s.bot
		y += s.top
	}
	s.cur.x = min(max(x, 0), s.cols-1)
	s.cur.y = min(max(y, top), bot)
	s.cur.wrapPending = false
}

// moveUp moves the cursor up n rows, stopping at the top margin if it starts
// inside the region.
func (s *Screen) moveUp(n int) {
	limit := 0
	if s.cur.y >= s.top {
		limit = s.top
	}
	s.cur.y = max(s.cur.y-n, limit)
	s.cur.wrapPending = false
}

// moveDown moves the cursor down n rows, stopping at the bottom margin if it
// starts inside the region.
func (s *Screen) moveDown(n int) {
	limit := s.rows - 1
	if s.cur.y <= s.bot {
		limit = s.bot
	}
	s.cur.y = min(s.cur.y+n, limit)
	s.cur.wrapPending = false
}

// moveCol moves the cursor n columns right (left when n < 0).
func (s *Screen) moveCol(n int) {
	s.cur.x = min(max(s.cur.x+n, 0), s.cols-1)
	s.cur.wrapPending = false
}

// tab moves the cursor to the n-th next tab stop (the last column if none).
func (s *Screen) tab(n int) {
	for ; n > 0 && s.cur.x < s.cols-1; n-- {
		s.cur.x++
		for s.cur.x < s.cols-1 && !s.tabs[s.cur.x] {
			s.cur.x++
		}
	}
	s.cur.wrapPending = false
}

// backTab moves the cursor to the n-th previous tab stop (the first column if
// none).
func (s *Screen) backTab(n int) {
	for ; n > 0 && s.cur.x > 0; n-- {
		s.cur.x--
		for s.cur.x > 0 && !s.tabs[s.cur.x] {
			s.cur.x--
		}
	}
	s.cur.wrapPending = false
}

// eraseDisplay is ED: 0 below, 1 above, 2 all, 3 the scrollback.
func (s *Screen) eraseDisplay(mode int) {
	bg := s.cur.pen.BG
	rows := s.buf.rows
	switch mode {
	case 0:
		rows[s.cur.y].blank(s.cur.x, s.cols, bg)
		rows[s.cur.y].wrapped = false
		rows[s.cur.y].touch()
		for _, r := range rows[s.cur.y+1:] {
			r.reset(bg)
		}
	case 1:
		for _, r := range rows[:s.cur.y] {
			r.reset(bg)
		}
		rows[s.cur.y].blank(0, s.cur.x+1, bg)
	case 2:
		for _, r := range rows {
			r.reset(bg)
		}
	case 3:
		s.sb.clear()
	default:
		return
	}
	s.cur.wrapPending = false
}

// eraseLine is EL: 0 right of the cursor, 1 left of it, 2 the whole line.
func (s *Screen) eraseLine(mode int) {
	r := s.buf.rows[s.cur.y]
	bg := s.cur.pen.BG
	switch mode {
	case 0:
		r.blank(s.cur.x, s.cols, bg)
		r.wrapped = false
		r.touch()
	case 1:
		r.blank(0, s.cur.x+1, bg)
	case 2:
		r.blank(0, s.cols, bg)
		r.wrapped = false
		r.touch()
	default:
		return
	}
	s.cur.wrapPending = false
}

// eraseChars is ECH: blank n cells from the cursor.
func (s *Screen) eraseChars(n int) {
	s.buf.rows[s.cur.y].blank(s.cur.x, s.cur.x+n, s.cur.pen.BG)
	s.cur.wrapPending = false
}

// insertCells shifts cells from x right by n, blanking the gap (ICH).
func (s *Screen) insertCells(r *row, x, n int) {
	c := r.live()
	n = min(n, len(c)-x)
	if n <= 0 {
		return
	}
	r.touch()
	copy(c[x+n:], c[x:len(c)-n])
	for i := x; i < x+n; i++ {
		c[i] = cell{bg: s.cur.pen.BG}
	}
	r.fixWide()
	s.cur.wrapPending = false
}

// deleteCells removes n cells at x, shifting the rest left (DCH).
func (s *Screen) deleteCells(r *row, x, n int) {
	c := r.live()
	n = min(n, len(c)-x)
	if n <= 0 {
		return
	}
	r.touch()
	copy(c[x:], c[x+n:])
	for i := len(c) - n; i < len(c); i++ {
		c[i] = cell{bg: s.cur.pen.BG}
	}
	r.fixWide()
	s.cur.wrapPending = false
}

// insertLines is IL: n blank lines at the cursor row, inside the region.
func (s *Screen) insertLines(n int) {
	if s.cur.y < s.top || s.cur.y > s.bot {
		return
	}
	s.scrollDown(s.cur.y, s.bot, n)
	s.cur.x = 0
	s.cur.wrapPending = false
}

// deleteLines is DL: remove n lines at the cursor row, inside the region.
func (s *Screen) deleteLines(n int) {
	if s.cur.y < s.top || s.cur.y > s.bot {
		return
	}
	s.scrollUp(s.cur.y, s.bot, n, false)
	s.cur.x = 0
	s.cur.wrapPending = false
}

// setRegion is DECSTBM with 1-based top and bottom.
func (s *Screen) setRegion(top, bot int) {
	if bot < 1 || bot > s.rows {
		bot = s.rows
	}
	top, bot = max(top, 1)-1, bot-1
	if top >= bot {
		return
	}
	s.top, s.bot = top, bot
	s.setCursor(0, 0)
}

// alignmentTest is DECALN: fill the screen with 'E'.
func (s *Screen) alignmentTest() {
	s.top, s.bot = 0, s.rows-1
	for _, r := range s.buf.rows {
		r.reset(0)
		c := r.live()
		for i := range c {
			c[i].r = 'E'
		}
	}
	s.setCursor(0, 0)
}
