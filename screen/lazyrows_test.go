package screen

import (
	"bytes"
	"testing"
)

// materialize allocates the cells of every row of both buffers, as every
// row had before rows were allocated at first write.
func materialize(s *Screen) {
	for _, b := range []*buffer{s.main, s.alt} {
		if b == nil {
			continue
		}
		for _, r := range b.rows {
			r.live()
		}
	}
}

// liveRows counts the rows of the main buffer whose cells are allocated.
func liveRows(s *Screen) int {
	n := 0
	for _, r := range s.main.rows {
		if r.cells != nil {
			n++
		}
	}
	return n
}

// sameScreen fails the test where two screens read differently: every
// rendered view (live and scrolled back), every plain line and cell, the
// scrollback, the cursor and the redraw sequence.
func sameScreen(t *testing.T, step string, lazy, eager *Screen) {
	t.Helper()
	lc, lr := lazy.Size()
	ec, er := eager.Size()
	if lc != ec || lr != er {
		t.Fatalf("%s: size %dx%d, eager %dx%d", step, lc, lr, ec, er)
	}
	if lazy.ScrollbackLen() != eager.ScrollbackLen() {
		t.Fatalf("%s: scrollback %d lines, eager %d", step, lazy.ScrollbackLen(), eager.ScrollbackLen())
	}
	for off := 0; off <= lazy.ScrollbackLen(); off++ {
		if a, b := lazy.Render(off), eager.Render(off); a != b {
			t.Fatalf("%s: Render(%d)\n%q\neager\n%q", step, off, a, b)
		}
	}
	for i := range lazy.ScrollbackLen() {
		if a, b := lazy.PlainScrollback(i), eager.PlainScrollback(i); a != b {
			t.Fatalf("%s: scrollback line %d %q, eager %q", step, i, a, b)
		}
	}
	for y := range lr {
		if a, b := lazy.PlainLine(y), eager.PlainLine(y); a != b {
			t.Fatalf("%s: line %d %q, eager %q", step, y, a, b)
		}
		if a, b := lazy.RenderRow(y), eager.RenderRow(y); a != b {
			t.Fatalf("%s: RenderRow(%d) %q, eager %q", step, y, a, b)
		}
		for x := range lc {
			if a, b := lazy.Cell(x, y), eager.Cell(x, y); a != b {
				t.Fatalf("%s: cell (%d,%d) %+v, eager %+v", step, x, y, a, b)
			}
		}
	}
	ax, ay, av := lazy.Cursor()
	bx, by, bv := eager.Cursor()
	if ax != bx || ay != by || av != bv {
		t.Fatalf("%s: cursor %d,%d,%v, eager %d,%d,%v", step, ax, ay, av, bx, by, bv)
	}
	if a, b := lazy.Redraw(), eager.Redraw(); !bytes.Equal(a, b) {
		t.Fatalf("%s: Redraw\n%q\neager\n%q", step, a, b)
	}
}

// TestLazyRowsReadTheSame: a screen whose rows get their cells at first
// write reads, after every step, exactly as one whose every row has them
// allocated (as New used to make them): printing, wide and combining
// characters, erases in a colour on rows never written, inserts and
// deletes on blank rows, scrolling into the scrollback, resizes both ways,
// the alternate screen and DECALN.
func TestLazyRowsReadTheSame(t *testing.T) {
	lazy, eager := New(20, 6, 50), New(20, 6, 50)
	materialize(eager)
	steps := []struct {
		name string
		in   string
		cols int // >0: resize to cols x rows instead of writing
		rows int
	}{
		{name: "fresh"},
		{name: "one line", in: "$ hello"},
		{name: "wide and combining", in: "\r\n日本語e\u0301 \U0001F600x"},
		{name: "combining on a row never written", in: "\x1b[5;3H\u0301"},
		{name: "erase in colour below", in: "\x1b[4;1H\x1b[44m\x1b[J\x1b[m"},
		{name: "erase line in colour", in: "\x1b[6;5H\x1b[41m\x1b[K\x1b[2K\x1b[m"},
		{name: "insert and delete on blank rows", in: "\x1b[3;4H\x1b[42m\x1b[2@\x1b[m\x1b[5;2H\x1b[3P\x1b[4X"},
		{name: "scroll into the scrollback", in: "\x1b[6;1H\r\none\r\ntwo\r\nthree\r\nfour\r\nfive\r\nsix\r\nseven"},
		{name: "shrink", cols: 9, rows: 3},
		{name: "grow", cols: 30, rows: 10},
		{name: "print after grow", in: "\x1b[10;28Hwrap 漢字"},
		{name: "alternate screen", in: "\x1b[?1049h\x1b[2;2Halt\x1b[45m\x1b[1;1H\x1b[1K"},
		{name: "resize on alt", cols: 12, rows: 4},
		{name: "leave alt", in: "\x1b[?1049l"},
		{name: "insert lines", in: "\x1b[2;1H\x1b[2L\x1b[1M"},
		{name: "DECALN", in: "\x1b#8"},
		{name: "full reset", in: "\x1bc"},
		{name: "after reset", in: "x\r\n\x1b[43m \x1b[m"},
	}
	for _, st := range steps {
		if st.cols > 0 {
			lazy.Resize(st.cols, st.rows)
			eager.Resize(st.cols, st.rows)
		} else {
			lazy.Write([]byte(st.in))
			eager.Write([]byte(st.in))
		}
		materialize(eager)
		sameScreen(t, st.name, lazy, eager)
	}
}

// TestLazyRowsCostWhatIsWritten: a new screen holds no cells, a prompt on
// one line allocates that line only, and a resize of a blank screen does
// not allocate its rows.
func TestLazyRowsCostWhatIsWritten(t *testing.T) {
	s := New(160, 45, 1000)
	if n := liveRows(s); n != 0 {
		t.Fatalf("new screen: %d rows allocated, want 0", n)
	}
	s.Write([]byte("user@host:~$ "))
	if n := liveRows(s); n != 1 {
		t.Fatalf("after a prompt: %d rows allocated, want 1", n)
	}
	s.Resize(200, 50)
	if n := liveRows(s); n != 1 {
		t.Fatalf("after a resize: %d rows allocated, want 1", n)
	}
	if got := s.PlainLine(0); got != "user@host:~$" {
		t.Fatalf("line 0 = %q after the resize", got)
	}
}
