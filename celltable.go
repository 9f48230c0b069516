package main

import (
	"bytes"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// cellTable lays rows of cells out in columns exactly as
// tabwriter.NewWriter(w, 0, 4, 2, ' ', 0) lays out the same rows written
// as cells ended by tabs, the last by a newline: every cell but a row's last
// padded with spaces to its column's widest cell, counted in runes, and
// two more. It keeps the rows' text in one buffer, where tabwriter keeps a
// copy of each cell and a record of it, line by line: `ls` at 1,000 chats
// gave tabwriter 390 kB of fresh memory to fault in, on a machine where a
// page fault costs 10-15 us.
//
// A row with another number of cells, or a cell holding a byte tabwriter
// reads as layout (tab, newline, vertical tab, form feed, its escape byte),
// sends the whole table through tabwriter itself, so the output is
// tabwriter's in every case (FuzzCellTable holds the two together).
type cellTable struct {
	cols   int
	text   []byte
	ends   []int // where each cell ends in text
	widths []int // each column's widest cell but the last, in runes
	plain  bool  // the fast layout gives tabwriter's output
}

func newCellTable(cols, rows int) *cellTable {
	return &cellTable{cols: cols, text: make([]byte, 0, 64*rows), ends: make([]int, 0, cols*rows), widths: make([]int, cols-1), plain: true}
}

// add adds a row; the cells are copied.
func (t *cellTable) add(cells ...string) {
	if len(cells) != t.cols {
		t.plain = false
	}
	for i, c := range cells {
		if strings.ContainsAny(c, "\t\n\v\f\xff") {
			t.plain = false
		}
		if i < len(t.widths) {
			t.widths[i] = max(t.widths[i], utf8.RuneCountInString(c))
		}
		t.text = append(t.text, c...)
		t.ends = append(t.ends, len(t.text))
	}
	// A row's end is marked by a negative end after its last cell.
	t.ends = append(t.ends, -1)
}

// writeTo writes the table to w.
func (t *cellTable) writeTo(w io.Writer) error {
	if !t.plain {
		return t.tabwriter(w)
	}
	var line bytes.Buffer
	start, col := 0, 0
	for _, end := range t.ends {
		if end < 0 {
			line.WriteByte('\n')
			if _, err := w.Write(line.Bytes()); err != nil {
				return err
			}
			line.Reset()
			col = 0
			continue
		}
		cell := t.text[start:end]
		line.Write(cell)
		if col < len(t.widths) {
			for range t.widths[col] + 2 - utf8.RuneCount(cell) {
				line.WriteByte(' ')
			}
		}
		start, col = end, col+1
	}
	return nil
}

// tabwriter writes the table through text/tabwriter.
func (t *cellTable) tabwriter(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	start, first := 0, true
	for _, end := range t.ends {
		if end < 0 {
			io.WriteString(tw, "\n")
			first = true
			continue
		}
		if !first {
			io.WriteString(tw, "\t")
		}
		tw.Write(t.text[start:end])
		start, first = end, false
	}
	return tw.Flush()
}
