package screen

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/charmbracelet/x/ansi"
)

func TestScrollbackEviction(t *testing.T) {
	s := New(10, 3, 10)
	for i := range 25 {
		if i > 0 {
			s.Write([]byte("\r\n"))
		}
		fmt.Fprintf(s, "line %d", i)
	}
	if n := s.ScrollbackLen(); n != 10 {
		t.Fatalf("ScrollbackLen = %d, want the capacity 10", n)
	}
	if got := s.PlainScrollback(0); got != "line 12" {
		t.Errorf("oldest = %q, want line 12 (older lines evicted)", got)
	}
	if got := s.PlainScrollback(9); got != "line 21" {
		t.Errorf("newest = %q, want line 21", got)
	}
	if got := screenLines(s); !slices.Equal(got, []string{"line 22", "line 23", "line 24"}) {
		t.Errorf("screen = %q", got)
	}
	if s.PlainScrollback(-1) != "" || s.PlainScrollback(10) != "" {
		t.Error("out of range scrollback lines are not empty")
	}
}

func TestScrollbackManyBlocks(t *testing.T) {
	// Lines of very different lengths, many times the capacity, so blocks are
	// filled, freed and reused.
	const capacity = 700
	s := New(300, 4, capacity)
	var want []string
	for i := range 20000 {
		line := fmt.Sprintf("%d:%s", i, strings.Repeat("x日", i%95))
		want = append(want, line)
		s.Write([]byte(line + "\r\n"))
	}
	// The screen holds the last 3 lines and a blank row.
	want = want[:len(want)-3]
	want = want[len(want)-capacity:]
	if got := scrollbackLines(s); !slices.Equal(got, want) {
		t.Fatalf("scrollback differs: %d lines, first %q, want %d lines, first %q", len(got), got[0], len(want), want[0])
	}
	if n := len(s.sb.blocks); n > 3+capacity*(300*3)/sbBlockSize {
		t.Errorf("%d blocks kept for %d lines", n, capacity)
	}
}

func TestScrollbackKeepsStyles(t *testing.T) {
	s := New(16, 3, 10)
	s.Write([]byte("\x1b[1;31mred\x1b[m \x1b[38;2;1;2;3;48;5;200m日本\x1b[m e\u0301 \x1b[7;44m  \x1b[m"))
	before := strings.Split(s.Render(0), "\n")[0]
	s.Write([]byte("\r\n\n\n\n"))
	if n := s.ScrollbackLen(); n != 2 {
		t.Fatalf("ScrollbackLen = %d, want 2", n)
	}
	after := strings.Split(s.Render(2), "\n")[0]
	if before != after {
		t.Errorf("line changed in the scrollback:\nbefore %q\nafter  %q", before, after)
	}
	if got := s.PlainScrollback(0); got != "red 日本 e\u0301" {
		t.Errorf("PlainScrollback = %q", got)
	}
}

func TestResize(t *testing.T) {
	t.Run("shrinking rows pushes the top into the scrollback", func(t *testing.T) {
		s := feed(10, 5, 100, "1\r\n2\r\n3\r\n4\r\n5")
		s.Resize(10, 3)
		if got := screenLines(s); !slices.Equal(got, []string{"3", "4", "5"}) {
			t.Errorf("screen = %q", got)
		}
		if got := scrollbackLines(s); !slices.Equal(got, []string{"1", "2"}) {
			t.Errorf("scrollback = %q", got)
		}
		if x, y, _ := s.Cursor(); x != 1 || y != 2 {
			t.Errorf("cursor = (%d,%d), want (1,2)", x, y)
		}
		// Growing again brings the lines back.
		s.Resize(10, 5)
		if got := screenLines(s); !slices.Equal(got, []string{"1", "2", "3", "4", "5"}) {
			t.Errorf("screen after growing = %q", got)
		}
		if n := s.ScrollbackLen(); n != 0 {
			t.Errorf("ScrollbackLen after growing = %d", n)
		}
		if x, y, _ := s.Cursor(); x != 1 || y != 4 {
			t.Errorf("cursor after growing = (%d,%d), want (1,4)", x, y)
		}
	})
	t.Run("shrinking rows drops blank rows below the cursor first", func(t *testing.T) {
		s := feed(10, 5, 100, "a")
		s.Resize(10, 2)
		if got := screenLines(s); !slices.Equal(got, []string{"a"}) {
			t.Errorf("screen = %q", got)
		}
		if n := s.ScrollbackLen(); n != 0 {
			t.Errorf("ScrollbackLen = %d", n)
		}
		s.Resize(10, 6)
		if _, rows := s.Size(); rows != 6 {
			t.Errorf("rows = %d", rows)
		}
	})
	t.Run("columns truncate and pad", func(t *testing.T) {
		s := feed(10, 2, 100, "ab日cd\r\nxyz")
		s.Resize(3, 2)
		if got := screenLines(s); !slices.Equal(got, []string{"ab", "xyz"}) {
			t.Errorf("screen = %q", got)
		}
		if x, y, _ := s.Cursor(); x != 2 || y != 1 {
			t.Errorf("cursor = (%d,%d), want (2,1)", x, y)
		}
		s.Resize(8, 2)
		s.Write([]byte("\x1b[1;6HZ"))
		if got := screenLines(s); !slices.Equal(got, []string{"ab   Z", "xyz"}) {
			t.Errorf("screen = %q", got)
		}
		for _, line := range strings.Split(s.Render(0), "\n") {
			if w := ansi.StringWidth(line); w != 8 {
				t.Errorf("rendered width %d, want 8: %q", w, line)
			}
		}
	})
	t.Run("scroll region is reset", func(t *testing.T) {
		s := feed(5, 5, 100, "\x1b[2;3r")
		s.Resize(5, 4)
		s.Write([]byte("\x1b[4;1H\n"))
		if n := s.ScrollbackLen(); n != 1 {
			t.Errorf("LF at the bottom after resize did not scroll the whole screen (scrollback %d)", n)
		}
	})
	t.Run("alternate screen", func(t *testing.T) {
		s := feed(10, 4, 100, "m1\r\nm2\r\nm3\x1b[?1049h\x1b[4;1Halt")
		s.Resize(6, 2)
		if got := screenLines(s); !slices.Equal(got, []string{"", "alt"}) {
			t.Errorf("alt screen = %q", got)
		}
		s.Write([]byte("\x1b[?1049l"))
		if got := screenLines(s); !slices.Equal(got, []string{"m2", "m3"}) {
			t.Errorf("main screen = %q", got)
		}
		if x, y, _ := s.Cursor(); x != 2 || y != 1 {
			t.Errorf("cursor = (%d,%d), want (2,1)", x, y)
		}
	})
}

func TestRender(t *testing.T) {
	s := feed(6, 2, 10, "\x1b[1;31mab\x1b[0m c")
	want := "\x1b[1;31mab\x1b[m c  \n      "
	if got := s.Render(0); got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
	s = feed(4, 1, 10, "\x1b[1;32mA\x1b[22mB\x1b[44mC")
	want = "\x1b[1;32mA\x1b[0;32mB\x1b[44mC\x1b[m "
	if got := s.Render(0); got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}

	s = feed(3, 2, 10, "1\r\n2\r\n3\r\n4")
	for _, tc := range []struct {
		off  int
		want string
	}{
		{0, "3  \n4  "}, {1, "2  \n3  "}, {2, "1  \n2  "}, {99, "1  \n2  "}, {-5, "3  \n4  "},
	} {
		if got := s.Render(tc.off); got != tc.want {
			t.Errorf("Render(%d) = %q, want %q", tc.off, got, tc.want)
		}
	}
}

func TestRenderWidths(t *testing.T) {
	data, _ := genFlood(300, 7)
	s := New(160, 45, 1000)
	s.Write(data)
	s.Write([]byte("\x1b[10;159H日\x1b[11;1Hcafe\u0301 👍\u200d\u2764\ufe0f"))
	for _, off := range []int{0, 10, 200} {
		lines := strings.Split(s.Render(off), "\n")
		if len(lines) != 45 {
			t.Fatalf("Render(%d) has %d lines", off, len(lines))
		}
		for i, line := range lines {
			if w := ansi.StringWidth(line); w != 160 {
				t.Errorf("Render(%d) line %d is %d wide: %q", off, i, w, line)
			}
		}
	}
}

func TestFlood50k(t *testing.T) {
	data, plain := genFlood(50000, 1)
	s := New(160, 45, 10000)
	for len(data) > 0 {
		n := min(len(data), 4093) // odd chunks split sequences and runes
		s.Write(data[:n])
		data = data[n:]
	}
	// The input ends with CRLF: the cursor is on a blank last row, the last
	// line written just above it.
	if got := s.PlainLine(43); got != plain[len(plain)-1] {
		t.Errorf("last line on screen = %q, want %q", got, plain[len(plain)-1])
	}
	if x, y, _ := s.Cursor(); x != 0 || y != 44 {
		t.Errorf("cursor = (%d,%d), want (0,44)", x, y)
	}
	if n := s.ScrollbackLen(); n != 10000 {
		t.Fatalf("ScrollbackLen = %d, want 10000", n)
	}
	scrolled := len(plain) - 44
	for _, i := range []int{0, 1234, 9999} {
		if got, want := s.PlainScrollback(i), plain[scrolled-10000+i]; got != want {
			t.Errorf("scrollback %d = %q, want %q", i, got, want)
		}
	}
}

func TestCellIsCompact(t *testing.T) {
	if n := unsafe.Sizeof(cell{}); n != 16 {
		t.Errorf("cell is %d bytes, want 16", n)
	}
}
