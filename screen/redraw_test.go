package screen

import (
	"testing"
)

// TestRedraw feeds a screen, then draws its Redraw on a fresh screen of the
// same size: both must show the same cells, cursor, modes and title, and
// must go on the same way when the program writes more (which checks what
// is not drawn: the pen, the region, the character sets, a pending wrap,
// the saved cursor).
func TestRedraw(t *testing.T) {
	const more = "XY\x1b[5;1Hline\r\nnext\x1b8saved\x1b[99Bbottom\r\n\r\n\r\n\x1b[2Lq"
	for _, tc := range []struct{ name, input string }{
		{"empty", ""},
		{"text and colours", "plain \x1b[1;31mbold red\x1b[0m \x1b[48;5;200mbg\x1b[m\r\n日本語 e\u0301 emoji🙂\x1b[44m\x1b[K"},
		{"pen left set", "\x1b[3;38;2;1;2;3mitalic rgb"},
		{"scroll region", "\x1b[2;5r\x1b[4;1Hinside"},
		{"origin mode", "\x1b[3;6r\x1b[?6h\x1b[2;3Hrel"},
		{"pending wrap", "\x1b[1;18Habc"},
		{"pending wrap after a wide character", "\x1b[1;19H日"},
		{"autowrap off", "\x1b[?7l\x1b[1;18Habcdef"},
		{"line drawing", "\x1b(0lqk\x1b(B ascii \x1b)0\x0eqq"},
		{"saved cursor", "\x1b[3;4H\x1b[32m\x1b7\x1b[m\x1b[1;1Htop"},
		{"modes", "\x1b[?1h\x1b=\x1b[?2004h\x1b[?1003h\x1b[?1006h\x1b[?1004h\x1b[4h\x1b[5 q\x1b[?25l\x1b]2;the title\x07"},
		{"alternate screen", "main text\x1b[?1049h\x1b[2;2Halt \x1b[7mtext\x1b[m"},
		{"title with controls", "\x1b]2;a\x1b\\"},
		{"scrolled", "1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\r\n8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := feed(20, 6, 100, tc.input)
			dst := New(20, 6, 100)
			dst.Write([]byte("what the terminal showed before\r\n$ "))
			dst.Write(src.Redraw())
			same(t, "after the redraw", src, dst)
			src.Write([]byte(more))
			dst.Write([]byte(more))
			same(t, "after more output", src, dst)
		})
	}
}

// same fails unless two screens look and behave alike.
func same(t *testing.T, when string, want, got *Screen) {
	t.Helper()
	if g, w := got.Render(0), want.Render(0); g != w {
		t.Errorf("%s: screen\n got %q\nwant %q", when, g, w)
	}
	gx, gy, gv := got.Cursor()
	wx, wy, wv := want.Cursor()
	if gx != wx || gy != wy || gv != wv {
		t.Errorf("%s: cursor (%d,%d,%v), want (%d,%d,%v)", when, gx, gy, gv, wx, wy, wv)
	}
	if g, w := got.Modes(), want.Modes(); g != w {
		t.Errorf("%s: modes\n got %+v\nwant %+v", when, g, w)
	}
	if g, w := got.Title(), want.Title(); g != w {
		t.Errorf("%s: title %q, want %q", when, g, w)
	}
}

// TestRedrawKeepsTheTerminalsLines checks that a redraw of the main screen
// pushes what the terminal showed into its scrollback rather than erasing it.
func TestRedrawKeepsTheTerminalsLines(t *testing.T) {
	dst := New(20, 4, 100)
	dst.Write([]byte("users line\r\n$ "))
	dst.Write(feed(20, 4, 100, "harness").Redraw())
	found := false
	for i := range dst.ScrollbackLen() {
		if dst.PlainScrollback(i) == "users line" {
			found = true
		}
	}
	if !found {
		t.Errorf("the terminal's line is not in its scrollback: %q", scrollbackLines(dst))
	}
	if got := dst.PlainLine(0); got != "harness" {
		t.Errorf("first line %q, want the harness's", got)
	}
}

// FuzzRedraw checks the redraw of any screen on a fresh one: the same
// cells, cursor, modes and title.
func FuzzRedraw(f *testing.F) {
	f.Add([]byte("hello\x1b[31m red \x1b[?1049h\x1b[3;4Hx"))
	f.Add([]byte("\x1b[2;3r\x1b[?6h\x1b(0q\x1b[1;20Hzz"))
	f.Fuzz(func(t *testing.T, input []byte) {
		src := New(12, 5, 10)
		src.Write(input)
		dst := New(12, 5, 10)
		dst.Write(src.Redraw())
		same(t, "after the redraw", src, dst)
	})
}
