package main

import (
	"bytes"
	"strings"
	"testing"
	"text/tabwriter"
)

// tabwritten is rows laid out by text/tabwriter as ls laid them out: cells
// ended by tabs, the last by a newline.
func tabwritten(rows [][]string) string {
	var b bytes.Buffer
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, r := range rows {
		w.Write([]byte(strings.Join(r, "\t") + "\n"))
	}
	w.Flush()
	return b.String()
}

func cellTabled(cols int, rows [][]string) string {
	t := newCellTable(cols, len(rows))
	for _, r := range rows {
		t.add(r...)
	}
	var b bytes.Buffer
	t.writeTo(&b)
	return b.String()
}

// TestCellTableIsTabwriters: ls's table comes out byte for byte as
// tabwriter lays it out: wide and combining runes, empty cells, an empty
// column, a broken chat's row, and (through tabwriter itself) rows of
// other lengths and cells holding tabwriter's layout bytes.
func TestCellTableIsTabwriters(t *testing.T) {
	for name, rows := range map[string][][]string{
		"ls": {
			{"ID", "NAME", "HARNESS", "STATUS", "FOLDERS", "CWD"},
			{"a1b2c3", "chat é 中文", "claude", "running", "2", "/home/me/src/app"},
			{"broken1", "", "", "broken", "", "load chat broken1: toml: line 3"},
			{"x", "🙂 e\u0301", "shell", "stopped", "0", ""},
		},
		"empty column": {{"a", "", "b"}, {"cc", "", "d"}},
		"one row":      {{"only", "row"}},
		"ragged":       {{"a", "b", "c"}, {"dd", "e"}, {"f", "g", "h"}},
		"layout bytes": {{"a\tb", "c"}, {"d", "e\nf"}, {"g\v", "h\f"}, {"\xffi\xff", "j"}},
	} {
		if got, want := cellTabled(len(rows[0]), rows), tabwritten(rows); got != want {
			t.Errorf("%s:\ngot  %q\nwant %q", name, got, want)
		}
	}
}

// FuzzCellTable holds the table to tabwriter's layout for any cells.
func FuzzCellTable(f *testing.F) {
	f.Add("ID", "NAME", "x", "chat é", "", "broken")
	f.Add("a\tb", "中文", "\xff", "e\u0301", "\n", "")
	f.Fuzz(func(t *testing.T, a, b, c, d, e, g string) {
		rows := [][]string{{a, b, c}, {d, e, g}, {g, a, e}}
		if got, want := cellTabled(3, rows), tabwritten(rows); got != want {
			t.Fatalf("rows %q:\ngot  %q\nwant %q", rows, got, want)
		}
	})
}
