package screen

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// SplitCell cuts a rendered line at the cell of column col, in one pass:
// the text before it, the cell's text (a wide character that covers col is
// the cell; "" when the line ends before col), the escape sequences up to
// the cell's end (what styles the text after it), and the rest.
func SplitCell(line string, col int) (before, cell, seqs, after string) {
	var state byte
	var sb strings.Builder
	x := 0
	for i := 0; i < len(line); {
		seq, width, n, next := ansi.DecodeSequence(line[i:], state, nil)
		state = next
		if n <= 0 {
			break
		}
		if width == 0 {
			if len(seq) > 0 && seq[0] == ansi.ESC {
				sb.WriteString(seq)
			}
			i += n
			continue
		}
		if x+width > col {
			return line[:i], seq, sb.String(), line[i+n:]
		}
		x += width
		i += n
	}
	return line, "", sb.String(), ""
}

// WithCursor draws a cursor on a rendered line of width cells: the cell
// at col shown as drawn(its text), a blank when the line ends before it;
// the styles of the text after it are kept. A col outside the line leaves
// it as it is.
func WithCursor(line string, col, width int, drawn func(cell string) string) string {
	if col < 0 || col >= width {
		return line
	}
	before, ch, seqs, after := SplitCell(line, col)
	if ch == "" {
		ch = " "
	}
	return before + "\x1b[0m" + drawn(ch) + seqs + after
}
