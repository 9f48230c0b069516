package screen

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// This file draws the change between two rendered lines rather than the
// whole line: a key's echo changes a cell or two of a row, and a terminal
// that is sent the row whole (a pane 160 columns wide) parses, and its
// writer writes, some hundred bytes for it where tmux sends the one cell.

// lineWalk steps through a rendered line (Render's or RenderRow's, with
// SGR sequences only) a cell at a time.
type lineWalk struct {
	line string
	i    int // where the next token starts
	col  int // the column of the next cell
	// plain reports whether the styles in force are the default ones: a
	// reset ("\x1b[m", "\x1b[0m") was the last sequence, or none was.
	plain bool
}

func newLineWalk(line string) lineWalk { return lineWalk{line: line, plain: true} }

// next reads the next token: the escape sequences before a cell, the
// cell, and the runes of no width after it, with any escapes between
// them: a combining mark is the terminal's on the cell before it, escapes
// or not between (the decoder does not join one to an ASCII letter, and a
// cursor drawn on a cell may come between). It returns the token's end
// and the cell's width, and whether the cell is a blank in the default
// styles with nothing on it; ok is false at the line's end.
func (w *lineWalk) next() (end, width int, blank, ok bool) {
	var cell string
	if i := w.i; i < len(w.line) && printableASCII(w.line[i]) {
		cell, width = w.line[i:i+1], 1
		w.i++
	} else {
		for w.i < len(w.line) && cell == "" {
			seq, wd, n, _ := ansi.DecodeSequence(w.line[w.i:], 0, nil)
			if n <= 0 {
				w.i = len(w.line)
				break
			}
			w.i += n
			if wd == 0 {
				w.see(seq)
				continue
			}
			cell, width = seq, wd
		}
		if cell == "" {
			return w.i, 0, false, false
		}
	}
	w.col += width
	blank = w.plain && cell == " "
	// Runes of no width after it are on it, escapes or not between: the
	// token ends after the last of them. The escapes after that are the
	// next cell's.
	end, plain := w.i, w.plain
	for j := w.i; j < len(w.line) && !printableASCII(w.line[j]); {
		seq, wd, n, _ := ansi.DecodeSequence(w.line[j:], 0, nil)
		if n <= 0 || wd != 0 {
			break
		}
		j += n
		if !w.see(seq) {
			blank = false // a mark on the cell
			end, plain = j, w.plain
		}
	}
	w.i, w.plain = end, plain
	return w.i, width, blank, true
}

// see takes in what a sequence of no width does: an escape sequence sets
// whether the default styles are in force (true); anything else is a rune
// on the cell before it (false).
func (w *lineWalk) see(seq string) bool {
	if len(seq) == 0 || seq[0] != ansi.ESC {
		return false
	}
	w.plain = seq == "\x1b[m" || seq == "\x1b[0m"
	return true
}

func printableASCII(c byte) bool { return c >= 0x20 && c < 0x7f }

// AppendLineChange appends to b what turns a line drawn as old into new,
// both rendered lines of the same width (as RenderRow draws them, with
// SGR sequences only), drawn from column col of the line with the
// terminal's styles reset there: the styles new has in force at its
// first cell that differs from old, its cells from there to the last
// that is not a blank in the default styles, and blanks over the cells
// old had drawn beyond that; a line that differs from its first cell
// is drawn whole. changed is false when the two look the same, and
// nothing is appended then.
func AppendLineChange(b []byte, old, new string) (out []byte, col int, changed bool) {
	ow, nw := newLineWalk(old), newLineWalk(new)
	for {
		oBefore, nBefore := ow, nw
		oEnd, _, _, oOK := ow.next()
		nEnd, _, _, nOK := nw.next()
		if !oOK || !nOK || old[oBefore.i:oEnd] != new[nBefore.i:nEnd] {
			ow, nw = oBefore, nBefore // at the first tokens that differ
			break
		}
	}
	start := nw.i
	col = nw.col
	if start == 0 && len(new) > 0 {
		// Different from its first cell (a line scrolled into place): new
		// whole, which is as wide as old and so covers it, with no walk
		// of the rest.
		b = append(b, new...)
		return append(b, "\x1b[0m"...), 0, true
	}
	// new from the first difference: up to its last cell that is not a
	// default blank.
	newEnd, newEndCol := start, col
	for {
		end, _, blank, ok := nw.next()
		if !ok {
			break
		}
		if !blank {
			newEnd, newEndCol = end, nw.col
		}
	}
	// old from the same cell: what it drew there that new leaves blank.
	oldEndCol := ow.col
	for {
		_, _, blank, ok := ow.next()
		if !ok {
			break
		}
		if !blank {
			oldEndCol = ow.col
		}
	}
	if newEnd == start && oldEndCol <= col {
		return b, col, false // the tokens differ, the cells look the same
	}
	if newEnd > start {
		b = appendSGRBefore(b, new, start)
		b = append(b, new[start:newEnd]...)
		b = append(b, "\x1b[0m"...)
	}
	for range oldEndCol - max(col, newEndCol) {
		b = append(b, ' ')
	}
	return b, col, true
}

// appendSGRBefore appends the SGR sequences of line before byte i, from
// its last reset on: the styles in force at i, from a reset.
func appendSGRBefore(b []byte, line string, i int) []byte {
	from := len(b)
	for j := 0; j < i; {
		k := strings.IndexByte(line[j:i], ansi.ESC)
		if k < 0 {
			break
		}
		j += k
		seq, _, n, _ := ansi.DecodeSequence(line[j:i], 0, nil)
		if n <= 0 {
			break
		}
		j += n
		if seq == "\x1b[m" || seq == "\x1b[0m" {
			b = b[:from] // a reset: what came before it no longer counts
			continue
		}
		b = append(b, seq...)
	}
	return b
}
