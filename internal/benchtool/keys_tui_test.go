package main

import (
	"testing"

	"github.com/acpmux/acpmux-tui/screen"
)

// TestChangedRowHas: keys-tui's echo test holds only once a row changed
// since the key was written shows the line with the key, wherever on the
// screen that row is; a row that changed without it, or one that held the
// text before, does not pass it.
func TestChangedRowHas(t *testing.T) {
	s := screen.New(40, 6, 0)
	s.Write([]byte("sidebar Sat 17:40\r\n#2:abc\r\n#3:ab"))
	test := changedRowHas(s.Stamps(nil), "#3:abc")
	if test(s) {
		t.Fatal("passed before anything changed")
	}
	// Another row changes (a clock, a sidebar): not the echo.
	s.Write([]byte("\x1b[1;1Hsidebar Sat 17:41 abc\x1b[3;6H"))
	if test(s) {
		t.Fatal("passed on a row that changed without the line")
	}
	// Another line's row, with the same keys on it, changes: its marker
	// is another.
	s.Write([]byte("\x1b[2;30Hx\x1b[3;6H"))
	if test(s) {
		t.Fatal("passed on another line's row")
	}
	s.Write([]byte("c"))
	if !test(s) {
		t.Fatalf("did not pass once the echo was drawn; row 3 is %q", s.PlainLine(2))
	}
	// A test armed after the echo sees no change, so the next key's test
	// cannot pass on this one's.
	if changedRowHas(s.Stamps(nil), "#3:abc")(s) {
		t.Fatal("passed on a row unchanged since the test was armed")
	}
}
