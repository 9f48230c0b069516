package screen

import "github.com/charmbracelet/x/ansi"

// This file draws the change between two rendered lines rather than the
// whole line: a key's echo changes a cell or two of a row, and a terminal
// that is sent the row whole (a pane 160 columns wide) parses, and its
// writer writes, some hundred bytes for it where tmux sends the one cell.

// lineWalk steps through a rendered line (Render's or RenderRow's, with
// SGR sequences only) a cell at a time.
type lineWalk struct {
	line  string
	i     int  // where the next token starts
	state byte // the decoder's
	col   int  // the column of the next cell
	// plain reports whether the styles in force are the default ones: a
	// reset ("\x1b[m", "\x1b[0m") was the last sequence, or none was.
	plain bool
}

func newLineWalk(line string) lineWalk { return lineWalk{line: line, plain: true} }

// next reads the next token: the sequences before a cell and the cell. It
// returns the token's end and the cell's width, and whether the cell is a
// blank in the default styles; ok is false at the line's end (the
// sequences after its last cell are read then).
func (w *lineWalk) next() (end, width int, blank, ok bool) {
	for w.i < len(w.line) {
		seq, wd, n, st := ansi.DecodeSequence(w.line[w.i:], w.state, nil)
		w.state = st
		if n <= 0 {
			w.i = len(w.line)
			break
		}
		w.i += n
		if wd == 0 {
			if len(seq) > 0 && seq[0] == ansi.ESC {
				w.plain = seq == "\x1b[m" || seq == "\x1b[0m"
			}
			continue
		}
		w.col += wd
		return w.i, wd, w.plain && seq == " ", true
	}
	return w.i, 0, false, false
}

// AppendLineChange appends to b what turns a line drawn as old into new,
// both rendered lines of the same width (as RenderRow draws them, with
// SGR sequences only), drawn from column col of the line with the
// terminal's styles reset there: the styles new has in force at its
// first cell that differs from old, its cells from there to the last
// that is not a blank in the default styles, and blanks over the cells
// old had drawn beyond that. changed is false when the two look the
// same, and nothing is appended then.
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
	var state byte
	from := len(b)
	for j := 0; j < i; {
		seq, wd, n, st := ansi.DecodeSequence(line[j:i], state, nil)
		state = st
		if n <= 0 {
			break
		}
		j += n
		if wd == 0 && len(seq) > 0 && seq[0] == ansi.ESC {
			if seq == "\x1b[m" || seq == "\x1b[0m" {
				b = b[:from] // a reset: what came before it no longer counts
				continue
			}
			b = append(b, seq...)
		}
	}
	return b
}
