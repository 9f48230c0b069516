package screen

import (
	"strings"
	"testing"
)

// stampWatch remembers a screen's rows and their stamps, to check after a
// change that every row whose stamp stayed renders as it did.
type stampWatch struct {
	s      *Screen
	stamps []uint64
	rows   []string
}

func newStampWatch(s *Screen) *stampWatch {
	w := &stampWatch{s: s}
	w.take()
	return w
}

func (w *stampWatch) take() {
	w.stamps = w.s.Stamps(w.stamps[:0])
	w.rows = strings.Split(w.s.Render(0), "\n")
}

// check fails the test if a row kept its stamp but not its text, or if
// RenderRow disagrees with Render; then it remembers the screen as it is.
func (w *stampWatch) check(t *testing.T) {
	t.Helper()
	now := w.s.Stamps(nil)
	rows := strings.Split(w.s.Render(0), "\n")
	if len(now) != len(rows) {
		t.Fatalf("%d stamps for %d rows", len(now), len(rows))
	}
	for i, row := range rows {
		if got := w.s.RenderRow(i); got != row {
			t.Fatalf("RenderRow(%d) = %q, Render has %q", i, got, row)
		}
		if len(now) == len(w.stamps) && now[i] == w.stamps[i] && row != w.rows[i] {
			t.Fatalf("row %d kept its stamp %d but changed from %q to %q", i, now[i], w.rows[i], row)
		}
	}
	w.take()
}

// TestStampsFollowEveryChange feeds output that changes the screen in every
// way the emulator knows one byte at a time, and checks after each byte
// that a row whose stamp stayed is the row it was.
func TestStampsFollowEveryChange(t *testing.T) {
	inputs := map[string]string{
		"print and wrap":    "hello world, a line longer than the screen\r\nnext",
		"scroll":            strings.Repeat("line\r\n", 12) + "last",
		"scroll region":     "a\r\nb\r\nc\r\nd\r\ne\x1b[2;4r\x1b[4;1H\n\nx\x1bM\x1bM\x1bM\x1bMy\x1b[r",
		"insert and delete": "abcdef\x1b[1;3H\x1b[2@\x1b[3P\x1b[2L\x1b[1M\x1b[4h zz\x1b[4l",
		"erase":             "abcdef\r\nghijkl\x1b[1;3H\x1b[K\x1b[1K\x1b[2K\x1b[J\x1b[1J\x1b[2J\x1b[3X",
		"styles and wide":   "\x1b[1;31m日本語\x1b[0m\x1b[1;2H\x1b[44mX\u0301\x1b[m",
		"alternate screen":  "main\x1b[?1049hALT\x1b[2;2Hz\x1b[?1049lback\x1b[?47hq\x1b[?47l",
		"reset and align":   "abc\x1b#8\x1b[2;2Hq\x1bcafter",
		"line drawing":      "\x1b(0lqk\x1b(B\x0eabc\x0f",
		"repeat":            "x\x1b[5b\r\n\x1b[3b",
		"no autowrap":       "\x1b[?7l" + strings.Repeat("w", 20) + "\x1b[?7h",
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			s := New(10, 4, 10)
			w := newStampWatch(s)
			for i := range len(in) {
				s.Write([]byte{in[i]})
				w.check(t)
			}
			for _, size := range [][2]int{{6, 3}, {6, 6}, {12, 2}, {10, 4}} {
				s.Resize(size[0], size[1])
				w.check(t)
			}
		})
	}
}

// TestUntouchedRowsKeepTheirStamps checks the point of stamps: printing on
// one row leaves every other row's stamp as it was.
func TestUntouchedRowsKeepTheirStamps(t *testing.T) {
	s := New(20, 5, 10)
	s.Write([]byte("one\r\ntwo\r\nthree"))
	before := s.Stamps(nil)
	s.Write([]byte("!"))
	after := s.Stamps(nil)
	for i := range before {
		if changed := before[i] != after[i]; changed != (i == 2) {
			t.Errorf("row %d: stamp changed = %v, want %v", i, changed, i == 2)
		}
	}
}
