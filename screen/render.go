package screen

import (
	"strings"
	"unicode/utf8"
)

// This file turns the screen into text: plain lines for tests and search,
// and styled lines for the TUI to draw.

// Render returns the view rows lines high joined by "\n", scrolled up by
// scrollOffset lines into the scrollback (0 = the live screen, clamped to the
// scrollback length). Each line is exactly cols columns wide, with SGR
// sequences for colours and attributes and a reset at its end if it is styled.
// While the alternate screen is shown, the scrollback above it is still that
// of the main screen.
func (s *Screen) Render(scrollOffset int) string {
	sbn := s.sb.len()
	off := min(max(scrollOffset, 0), sbn)
	if s.decodeRow == nil || s.decodeRow.n != s.cols {
		s.decodeRow = newRow(s.cols)
	}
	buf := s.renderBuf[:0]
	for i := range s.rows {
		if i > 0 {
			buf = append(buf, '\n')
		}
		li := sbn - off + i
		r := s.decodeRow
		if li < sbn {
			decodeLine(s.sb.line(li), r)
		} else {
			r = s.buf.rows[li-sbn]
		}
		buf = renderRow(buf, r)
	}
	s.renderBuf = buf
	return string(buf)
}

// Stamps appends to dst the stamp of each row of the live screen, top to
// bottom, and returns it. A row whose stamp is the same at two calls is
// unchanged between them, and renders the same (see RenderRow); a row that
// changed, or another row now in its place, has a stamp no row has had
// before.
func (s *Screen) Stamps(dst []uint64) []uint64 {
	for _, r := range s.buf.rows {
		dst = append(dst, r.stampNow())
	}
	return dst
}

// RenderRow returns row i (from 0) of the live screen as Render(0) shows
// it: cols columns with their SGR sequences.
func (s *Screen) RenderRow(i int) string {
	if i < 0 || i >= len(s.buf.rows) {
		return ""
	}
	s.renderBuf = renderRow(s.renderBuf[:0], s.buf.rows[i])
	return string(s.renderBuf)
}

// renderRow appends one row with its SGR sequences to buf.
func renderRow(buf []byte, r *row) []byte {
	var cur Style
	cells := r.cells
	if cells == nil {
		// Not yet written: n blank cells in the default style.
		for range r.n {
			buf = append(buf, ' ')
		}
		return buf
	}
	for i := range cells {
		c := &cells[i]
		ch := c.r
		switch {
		case c.flags&flagCont != 0:
			if i > 0 && cells[i-1].flags&flagWide != 0 {
				continue
			}
			ch = ' '
		case c.flags&flagWide != 0 && (i+1 >= len(cells) || cells[i+1].flags&flagCont == 0):
			ch = ' '
		}
		if c.fg != cur.FG || c.bg != cur.BG || c.attr != cur.Attrs {
			st := c.style()
			buf = appendSGR(buf, cur, st)
			cur = st
		}
		switch {
		case ch == 0:
			buf = append(buf, ' ')
		case ch < utf8.RuneSelf:
			buf = append(buf, byte(ch))
		default:
			buf = utf8.AppendRune(buf, ch)
		}
		if c.comb != 0 && ch == c.r {
			buf = appendCombining(buf, r.combining(c))
		}
	}
	if cur != (Style{}) {
		buf = append(buf, "\x1b[m"...)
	}
	return buf
}

// appendCombining appends combining characters, leaving out the zero width
// joiner and the emoji variation selector: a terminal drawing them could join
// or widen glyphs and so break the column count this screen keeps.
func appendCombining(buf []byte, comb string) []byte {
	for _, r := range comb {
		if r == '\u200d' || r == '\ufe0f' {
			continue
		}
		buf = utf8.AppendRune(buf, r)
	}
	return buf
}

// sgrAttrs lists the attributes with their SGR on codes.
var sgrAttrs = [...]struct {
	a  Attr
	on byte
}{
	{Bold, '1'}, {Faint, '2'}, {Italic, '3'}, {Underline, '4'},
	{Blink, '5'}, {Reverse, '7'}, {Conceal, '8'}, {Strikethrough, '9'},
}

// appendSGR appends the SGR sequence that changes style from to style to.
func appendSGR(buf []byte, from, to Style) []byte {
	if to == (Style{}) {
		return append(buf, "\x1b[m"...)
	}
	buf = append(buf, "\x1b["...)
	start := len(buf)
	sep := func() {
		if len(buf) > start {
			buf = append(buf, ';')
		}
	}
	if from.Attrs&^to.Attrs != 0 {
		// An attribute goes off: start from a reset.
		buf = append(buf, '0')
		from = Style{}
	}
	for _, a := range sgrAttrs {
		if to.Attrs&a.a != 0 && from.Attrs&a.a == 0 {
			sep()
			buf = append(buf, a.on)
		}
	}
	if to.FG != from.FG {
		sep()
		buf = appendColorSGR(buf, to.FG, 30)
	}
	if to.BG != from.BG {
		sep()
		buf = appendColorSGR(buf, to.BG, 40)
	}
	return append(buf, 'm')
}

// appendColorSGR appends the SGR parameters for c as a foreground (base 30)
// or background (base 40) colour.
func appendColorSGR(buf []byte, c Color, base int) []byte {
	if n, ok := c.Index(); ok {
		switch {
		case n < 8:
			return appendInt(buf, base+int(n))
		case n < 16:
			return appendInt(buf, base+60+int(n)-8)
		}
		buf = appendInt(buf, base+8)
		buf = append(buf, ";5;"...)
		return appendInt(buf, int(n))
	}
	if r, g, b, ok := c.RGB(); ok {
		buf = appendInt(buf, base+8)
		buf = append(buf, ";2;"...)
		buf = appendInt(buf, int(r))
		buf = append(buf, ';')
		buf = appendInt(buf, int(g))
		buf = append(buf, ';')
		return appendInt(buf, int(b))
	}
	return appendInt(buf, base+9)
}

// PlainLine returns row (0-based) of the live screen as plain text, trailing
// blanks trimmed; "" for a row outside the screen.
func (s *Screen) PlainLine(row int) string {
	if row < 0 || row >= s.rows {
		return ""
	}
	return plainRow(s.buf.rows[row])
}

func plainRow(r *row) string {
	var sb strings.Builder
	cells := r.cells
	for i := range cells {
		c := &cells[i]
		if c.flags&flagCont != 0 && i > 0 && cells[i-1].flags&flagWide != 0 {
			continue
		}
		if c.r == 0 || c.flags&flagCont != 0 {
			sb.WriteByte(' ')
		} else {
			sb.WriteRune(c.r)
		}
		if c.comb != 0 {
			sb.WriteString(r.combining(c))
		}
	}
	return strings.TrimRight(sb.String(), " ")
}

// PlainScrollback returns scrollback line i (0 = oldest) as plain text,
// trailing blanks trimmed; "" for an index outside the scrollback.
func (s *Screen) PlainScrollback(i int) string {
	if i < 0 || i >= s.sb.len() {
		return ""
	}
	return strings.TrimRight(string(lineText(s.sb.line(i))), " ")
}

// Cell returns the cell at (col, row) of the live screen; a blank cell for a
// position outside it.
func (s *Screen) Cell(col, row int) Cell {
	if row < 0 || row >= s.rows || col < 0 || col >= s.cols {
		return Cell{Content: " ", Width: 1}
	}
	r := s.buf.rows[row]
	if r.cells == nil {
		return Cell{Content: " ", Width: 1}
	}
	c := &r.cells[col]
	out := Cell{Content: " ", Width: 1, Style: c.style()}
	switch {
	case c.flags&flagCont != 0:
		out.Content, out.Width = "", 0
	case c.r != 0:
		out.Content = string(c.r) + r.combining(c)
		if c.flags&flagWide != 0 {
			out.Width = 2
		}
	case c.comb != 0:
		out.Content = " " + r.combining(c)
	}
	return out
}
