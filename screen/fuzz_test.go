package screen

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzScreenWrite feeds arbitrary bytes (split at a point of the input's
// choosing, and again after resizes) and checks the screen stays consistent:
// no panic, the cursor on the screen, every rendered line exactly as wide as
// the screen. The seed corpus is in testdata/fuzz/FuzzScreenWrite.
func FuzzScreenWrite(f *testing.F) {
	f.Add([]byte("hello\r\nworld\x1b[2J\x1b[H"))
	f.Add([]byte("\x1b[1;31m日本\u0301\x1b[0m\x1b[?1049h\x1b[5;2r\x1b[L\x1b[?1049l"))
	f.Add([]byte("\x1b]0;title\x07\x1b]9;4;1;50\x1b\\\x1b[6n\x1b[c"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := New(12, 5, 20)
		var replies int
		s.SetReplyFunc(func(b []byte) { replies += len(b) })
		cut := 0
		if len(data) > 0 {
			cut = int(data[0]) % (len(data) + 1)
		}
		// eager has every row's cells allocated after each step, as New
		// made them before rows were allocated at first write: it must
		// read the same.
		eager := New(12, 5, 20)
		eager.SetReplyFunc(func([]byte) {})
		materialize(eager)
		seen := newStampWatch(s)
		n := 0
		step := func(do func(s *Screen)) {
			do(s)
			checkConsistent(t, s)
			seen.check(t)
			do(eager)
			materialize(eager)
			n++
			sameScreen(t, fmt.Sprintf("step %d", n), s, eager)
		}
		step(func(s *Screen) { s.Write(data[:cut]) })
		step(func(s *Screen) { s.Write(data[cut:]) })
		step(func(s *Screen) { s.Resize(7, 3) })
		step(func(s *Screen) { s.Write(data) })
		step(func(s *Screen) { s.Resize(15, 6) })
		step(func(s *Screen) { s.Write([]byte("\x1b[?1049l\x1b[r\r\n")) })
		step(func(s *Screen) { s.Write(data) })
		s.Events()
		_ = s.Title()
		_ = s.Modes()
	})
}

func checkConsistent(t *testing.T, s *Screen) {
	t.Helper()
	cols, rows := s.Size()
	x, y, _ := s.Cursor()
	if x < 0 || x >= cols || y < 0 || y >= rows {
		t.Fatalf("cursor (%d,%d) outside %dx%d", x, y, cols, rows)
	}
	for _, off := range []int{0, s.ScrollbackLen()} {
		lines := strings.Split(s.Render(off), "\n")
		if len(lines) != rows {
			t.Fatalf("Render(%d) has %d lines, want %d", off, len(lines), rows)
		}
		for i, line := range lines {
			if w := visibleWidth(line); w != cols {
				t.Fatalf("Render(%d) line %d is %d wide, want %d: %q", off, i, w, cols, line)
			}
		}
	}
	for i := range rows {
		_ = s.PlainLine(i)
		for c := range cols {
			_ = s.Cell(c, i)
		}
	}
	for i := range s.ScrollbackLen() {
		_ = s.PlainScrollback(i)
	}
	for _, b := range []*buffer{s.main, s.alt} {
		if b == nil {
			continue
		}
		for y, r := range b.rows {
			for x := r.hi; x < len(r.cells); x++ {
				if r.cells[x] != (cell{}) {
					t.Fatalf("row %d: cell %d is %+v, past the row's bound %d", y, x, r.cells[x], r.hi)
				}
			}
		}
	}
}
