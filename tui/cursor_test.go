package tui

import (
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/acpmux/acpmux-tui/screen"
)

// TestSplitCellCutsAtTheCursor: the line is cut at the cell of the
// cursor's column, keeping the text around it whole and every escape
// sequence before the cell's end for the text after it; a wide character
// that covers the column is the cell; past the line's end the cell is
// empty.
func TestSplitCellCutsAtTheCursor(t *testing.T) {
	for _, tc := range []struct {
		name, line          string
		col                 int
		before, cell, after string // as shown (escapes stripped)
		seqs                string
	}{
		{"plain", "$ ls -l", 2, "$ ", "l", "s -l", ""},
		{"styled", "\x1b[31mred\x1b[0m and \x1b[1mbold\x1b[0m", 8, "red and ", "b", "old", "\x1b[31m\x1b[0m\x1b[1m"},
		{"first cell", "\x1b[32mok\x1b[0m", 0, "", "o", "k", "\x1b[32m"},
		{"a wide character over the column", "a世b", 2, "a", "世", "b", ""},
		{"past the end", "\x1b[33mab\x1b[0m", 5, "ab", "", "", "\x1b[33m\x1b[0m"},
	} {
		before, cell, seqs, after := screen.SplitCell(tc.line, tc.col)
		if ansi.Strip(before) != tc.before || cell != tc.cell || ansi.Strip(after) != tc.after || seqs != tc.seqs {
			t.Errorf("%s: SplitCell(%q, %d) = %q, %q, %q, %q; want shown %q, %q, %q with %q",
				tc.name, tc.line, tc.col, before, cell, seqs, after, tc.before, tc.cell, tc.after, tc.seqs)
		}
		if tc.cell != "" && before+cell+after != tc.line && ansi.Strip(before+cell+after) != ansi.Strip(tc.line) {
			t.Errorf("%s: the parts do not make the line again", tc.name)
		}
	}
}
