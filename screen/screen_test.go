package screen

import (
	"slices"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// screenCase is a recorded byte stream and the screen it must produce.
type screenCase struct {
	name       string
	cols, rows int
	input      string
	want       []string // plain lines, blank rows at the bottom left out
	x, y       int      // cursor
	check      func(t *testing.T, s *Screen)
}

func runCases(t *testing.T, cases []screenCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cols, rows := tc.cols, tc.rows
			if cols == 0 {
				cols, rows = 20, 5
			}
			s := feed(cols, rows, 100, tc.input)
			if got := screenLines(s); !slices.Equal(got, tc.want) {
				t.Errorf("screen:\n got %q\nwant %q", got, tc.want)
			}
			if x, y, _ := s.Cursor(); x != tc.x || y != tc.y {
				t.Errorf("cursor = (%d,%d), want (%d,%d)", x, y, tc.x, tc.y)
			}
			if tc.check != nil {
				tc.check(t, s)
			}
			// The same bytes written one at a time give the same screen.
			one := New(cols, rows, 100)
			for i := range len(tc.input) {
				one.Write([]byte{tc.input[i]})
			}
			if got, want := one.Render(0), s.Render(0); got != want {
				t.Errorf("byte-at-a-time render differs:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func wantCell(t *testing.T, s *Screen, col, row int, content string, width int, st Style) {
	t.Helper()
	c := s.Cell(col, row)
	if c.Content != content || c.Width != width || c.Style != st {
		t.Errorf("cell (%d,%d) = %+v, want {%q %d %+v}", col, row, c, content, width, st)
	}
}

func TestPrinting(t *testing.T) {
	runCases(t, []screenCase{
		{name: "plain text", input: "hello", want: []string{"hello"}, x: 5},
		{name: "CR LF", input: "ab\r\ncd", want: []string{"ab", "cd"}, x: 2, y: 1},
		{name: "LF keeps the column", input: "ab\ncd", want: []string{"ab", "  cd"}, x: 4, y: 1},
		{name: "BS", input: "abc\bX", want: []string{"abX"}, x: 3},
		{name: "BS stops at column 0", input: "\b\bX", want: []string{"X"}, x: 1},
		{name: "HT every 8", input: "a\tb\tc", want: []string{"a       b       c"}, x: 17},
		{name: "HT stops at the last column", input: "\t\t\t\tX", want: []string{"                   X"}, x: 19},
		{name: "HTS and TBC", input: "\x1b[3g\x1b[5G\x1bH\r\tX", want: []string{"    X"}, x: 5},
		{name: "CHT and CBT", input: "\x1b[2IX\x1b[2ZY", want: []string{"        Y       X"}, x: 9},
		{name: "autowrap", cols: 5, rows: 3, input: "abcdefg", want: []string{"abcde", "fg"}, x: 2, y: 1},
		{name: "pending wrap then CRLF", cols: 5, rows: 3, input: "abcde\r\nX", want: []string{"abcde", "X"}, x: 1, y: 1},
		{name: "pending wrap keeps cursor on last column", cols: 5, rows: 3, input: "abcde", want: []string{"abcde"}, x: 4},
		{name: "autowrap off overwrites the last column", cols: 5, rows: 3, input: "\x1b[?7labcdefg", want: []string{"abcdg"}, x: 4,
			check: func(t *testing.T, s *Screen) {
				if s.Modes().Autowrap {
					t.Error("Autowrap still on")
				}
			}},
		{name: "wide characters", input: "日本x", want: []string{"日本x"}, x: 5,
			check: func(t *testing.T, s *Screen) {
				wantCell(t, s, 0, 0, "日", 2, Style{})
				wantCell(t, s, 1, 0, "", 0, Style{})
				wantCell(t, s, 4, 0, "x", 1, Style{})
			}},
		{name: "emoji is wide", input: "🙂!", want: []string{"🙂!"}, x: 3},
		{name: "wide char at the last column wraps", cols: 5, rows: 3, input: "abcd日", want: []string{"abcd", "日"}, x: 2, y: 1},
		{name: "wide char fills the last two columns", cols: 5, rows: 3, input: "abc日", want: []string{"abc日"}, x: 4},
		{name: "overwriting half a wide char blanks the other half", input: "日本\x1b[1GX\x1b[4GY", want: []string{"X  Y"}, x: 4},
		{name: "combining characters attach to the previous cell", input: "e\u0301x", want: []string{"e\u0301x"}, x: 2,
			check: func(t *testing.T, s *Screen) { wantCell(t, s, 0, 0, "e\u0301", 1, Style{}) }},
		{name: "combining after a wide char", input: "日\u0300", want: []string{"日\u0300"}, x: 2},
		{name: "combining at pending wrap", cols: 3, rows: 2, input: "abc\u0301", want: []string{"abc\u0301"}, x: 2},
		{name: "combining at column 0 is dropped", input: "\u0301a", want: []string{"a"}, x: 1},
		{name: "invalid UTF-8 prints U+FFFD", input: "a\xffb", want: []string{"a\ufffdb"}, x: 3},
		{name: "DEC special graphics", input: "\x1b(0lqk\x1b(Bq", want: []string{"┌─┐q"}, x: 4},
		{name: "SO and SI", input: "\x1b)0\x0eq\x0fq", want: []string{"─q"}, x: 2},
		{name: "REP", input: "ab\x1b[3b", want: []string{"abbbb"}, x: 5},
		{name: "insert mode", input: "abc\x1b[1G\x1b[4hX\x1b[4lY", want: []string{"XYbc"}, x: 2},
		{name: "BEL is not printed", input: "a\ab", want: []string{"ab"}, x: 2,
			check: func(t *testing.T, s *Screen) {
				if ev := s.Events(); ev.Bells != 1 {
					t.Errorf("Bells = %d, want 1", ev.Bells)
				}
			}},
		{name: "unknown sequences are ignored", input: "a\x1b[?999h\x1b[99;99~\x1bP+q544e\x1b\\\x1b_Gf=1;AAAA\x1b\\\x1b^pm\x1b\\b", want: []string{"ab"}, x: 2},
		{name: "CAN aborts a sequence", input: "a\x1b[3\x18b", want: []string{"ab"}, x: 2},
	})
}

func TestSGR(t *testing.T) {
	red := IndexedColor(1)
	runCases(t, []screenCase{
		{name: "bold red then reset", input: "\x1b[1;31mA\x1b[0mB", want: []string{"AB"}, x: 2,
			check: func(t *testing.T, s *Screen) {
				wantCell(t, s, 0, 0, "A", 1, Style{FG: red, Attrs: Bold})
				wantCell(t, s, 1, 0, "B", 1, Style{})
			}},
		{name: "every attribute and its reset", input: "\x1b[1;2;3;4;5;7;8;9mA\x1b[22;23;24;25;27;28;29mB\x1b[4mC\x1b[4:0mD\x1b[4:3mE\x1b[mF",
			want: []string{"ABCDEF"}, x: 6,
			check: func(t *testing.T, s *Screen) {
				wantCell(t, s, 0, 0, "A", 1, Style{Attrs: Bold | Faint | Italic | Underline | Blink | Reverse | Conceal | Strikethrough})
				wantCell(t, s, 1, 0, "B", 1, Style{})
				wantCell(t, s, 2, 0, "C", 1, Style{Attrs: Underline})
				wantCell(t, s, 3, 0, "D", 1, Style{})
				wantCell(t, s, 4, 0, "E", 1, Style{Attrs: Underline})
				wantCell(t, s, 5, 0, "F", 1, Style{})
			}},
		{name: "16, bright, 256 and true colours", input: "\x1b[32;45mA\x1b[93;104mB\x1b[38;5;200;48;5;17mC\x1b[38;2;1;2;3;48;2;250;251;252mD\x1b[39;49mE",
			want: []string{"ABCDE"}, x: 5,
			check: func(t *testing.T, s *Screen) {
				wantCell(t, s, 0, 0, "A", 1, Style{FG: IndexedColor(2), BG: IndexedColor(5)})
				wantCell(t, s, 1, 0, "B", 1, Style{FG: IndexedColor(11), BG: IndexedColor(12)})
				wantCell(t, s, 2, 0, "C", 1, Style{FG: IndexedColor(200), BG: IndexedColor(17)})
				wantCell(t, s, 3, 0, "D", 1, Style{FG: RGBColor(1, 2, 3), BG: RGBColor(250, 251, 252)})
				wantCell(t, s, 4, 0, "E", 1, Style{})
			}},
		{name: "colon forms", input: "\x1b[38:5:9mA\x1b[38:2::10:20:30mB\x1b[48:2:1:2:3mC\x1b[58:5:1;1mD",
			want: []string{"ABCD"}, x: 4,
			check: func(t *testing.T, s *Screen) {
				wantCell(t, s, 0, 0, "A", 1, Style{FG: IndexedColor(9)})
				wantCell(t, s, 1, 0, "B", 1, Style{FG: RGBColor(10, 20, 30)})
				wantCell(t, s, 2, 0, "C", 1, Style{FG: RGBColor(10, 20, 30), BG: RGBColor(1, 2, 3)})
				wantCell(t, s, 3, 0, "D", 1, Style{FG: RGBColor(10, 20, 30), BG: RGBColor(1, 2, 3), Attrs: Bold})
			}},
		{name: "erase uses the current background", input: "\x1b[44m\x1b[2J\x1b[m", want: nil,
			check: func(t *testing.T, s *Screen) { wantCell(t, s, 3, 2, " ", 1, Style{BG: IndexedColor(4)}) }},
	})
}

func TestCursorMovement(t *testing.T) {
	runCases(t, []screenCase{
		{name: "CUP and HVP", input: "\x1b[3;4HX\x1b[1;1fY\x1b[HZ", want: []string{"Z", "", "   X"}, x: 1},
		{name: "CUP clamps", input: "\x1b[99;99HX", want: []string{"", "", "", "", "                   X"}, x: 19, y: 4},
		{name: "CUU CUD CUF CUB", input: "\x1b[3;3H\x1b[2AA\x1b[3BB\x1b[5CC\x1b[4DD", want: []string{"  A", "", "", "   B  D  C"}, x: 7, y: 3},
		{name: "CNL and CPL", input: "ab\x1b[2Ec\x1b[1Fd", want: []string{"ab", "d", "c"}, x: 1, y: 1},
		{name: "CHA and VPA", input: "\x1b[5GX\x1b[3dY", want: []string{"    X", "", "     Y"}, x: 6, y: 2},
		{name: "DECSC and DECRC", input: "\x1b[2;3H\x1b[31m\x1b7\x1b[m\x1b[5;5HX\x1b8Y", want: []string{"", "  Y", "", "", "    X"}, x: 3, y: 1,
			check: func(t *testing.T, s *Screen) { wantCell(t, s, 2, 1, "Y", 1, Style{FG: IndexedColor(1)}) }},
		{name: "CSI s and u", input: "\x1b[2;3H\x1b[s\x1b[5;5HX\x1b[uY", want: []string{"", "  Y", "", "", "    X"}, x: 3, y: 1},
		{name: "hide and show", input: "\x1b[?25l", x: 0,
			check: func(t *testing.T, s *Screen) {
				if _, _, v := s.Cursor(); v {
					t.Error("cursor visible after ?25l")
				}
				s.Write([]byte("\x1b[?25h"))
				if _, _, v := s.Cursor(); !v {
					t.Error("cursor hidden after ?25h")
				}
			}},
		{name: "origin mode", input: "\x1b[2;4r\x1b[?6h\x1b[1;1HX\x1b[9;1HY", want: []string{"", "X", "", "Y"}, x: 1, y: 3},
	})
}

func TestErase(t *testing.T) {
	base := "aaaaa\r\nbbbbb\r\nccccc\x1b[2;3H"
	runCases(t, []screenCase{
		{name: "ED 0", cols: 5, rows: 3, input: base + "\x1b[J", want: []string{"aaaaa", "bb"}, x: 2, y: 1},
		{name: "ED 1", cols: 5, rows: 3, input: base + "\x1b[1J", want: []string{"", "   bb", "ccccc"}, x: 2, y: 1},
		{name: "ED 2", cols: 5, rows: 3, input: base + "\x1b[2J", want: nil, x: 2, y: 1},
		{name: "EL 0", cols: 5, rows: 3, input: base + "\x1b[K", want: []string{"aaaaa", "bb", "ccccc"}, x: 2, y: 1},
		{name: "EL 1", cols: 5, rows: 3, input: base + "\x1b[1K", want: []string{"aaaaa", "   bb", "ccccc"}, x: 2, y: 1},
		{name: "EL 2", cols: 5, rows: 3, input: base + "\x1b[2K", want: []string{"aaaaa", "", "ccccc"}, x: 2, y: 1},
		{name: "ECH", cols: 5, rows: 3, input: base + "\x1b[2X", want: []string{"aaaaa", "bb  b", "ccccc"}, x: 2, y: 1},
		{name: "ECH over half a wide char", cols: 6, rows: 1, input: "日本語\x1b[2G\x1b[X", want: []string{"  本語"}, x: 1},
		{name: "ICH", cols: 5, rows: 3, input: base + "\x1b[2@", want: []string{"aaaaa", "bb  b", "ccccc"}, x: 2, y: 1},
		{name: "DCH", cols: 5, rows: 3, input: "abcde\x1b[2G\x1b[2P", want: []string{"ade"}, x: 1},
		{name: "ICH pushes a wide char off the end", cols: 4, rows: 1, input: "ab日\x1b[1G\x1b[@", want: []string{" ab"}, x: 0},
	})
}

func TestEraseScrollbackED3(t *testing.T) {
	s := feed(10, 2, 100, "1\r\n2\r\n3\r\n4")
	if n := s.ScrollbackLen(); n != 2 {
		t.Fatalf("ScrollbackLen = %d, want 2", n)
	}
	s.Write([]byte("\x1b[3J"))
	if n := s.ScrollbackLen(); n != 0 {
		t.Errorf("after ED 3 ScrollbackLen = %d, want 0", n)
	}
	if got := screenLines(s); !slices.Equal(got, []string{"3", "4"}) {
		t.Errorf("ED 3 changed the screen: %q", got)
	}
	s.Write([]byte("\r\n5"))
	if got := scrollbackLines(s); !slices.Equal(got, []string{"3"}) {
		t.Errorf("scrollback after ED 3 and one more line = %q", got)
	}
}

func TestScrollRegions(t *testing.T) {
	fill := "1\r\n2\r\n3\r\n4\r\n5"
	runCases(t, []screenCase{
		{name: "LF at the bottom of the region scrolls it", cols: 5, rows: 5, input: fill + "\x1b[2;4r\x1b[4;1H\nX",
			want: []string{"1", "3", "4", "X", "5"}, x: 1, y: 3},
		{name: "IND and NEL", cols: 5, rows: 5, input: fill + "\x1b[2;4r\x1b[4;3H\x1bDA\x1bEB",
			want: []string{"1", "4", "  A", "B", "5"}, x: 1, y: 3},
		{name: "RI at the top of the region scrolls down", cols: 5, rows: 5, input: fill + "\x1b[2;4r\x1b[2;1H\x1bMX",
			want: []string{"1", "X", "2", "3", "5"}, x: 1, y: 1},
		{name: "RI at the top of the screen", cols: 5, rows: 3, input: "a\r\nb\x1b[H\x1bM", want: []string{"", "a", "b"}},
		{name: "SU and SD", cols: 5, rows: 5, input: fill + "\x1b[2;4r\x1b[2S\x1b[1T",
			want: []string{"1", "", "4", "", "5"}, x: 0, y: 0},
		{name: "IL inside the region", cols: 5, rows: 5, input: fill + "\x1b[2;4r\x1b[3;3H\x1b[LX",
			want: []string{"1", "2", "X", "3", "5"}, x: 1, y: 2},
		{name: "DL inside the region", cols: 5, rows: 5, input: fill + "\x1b[2;4r\x1b[2;3H\x1b[2M",
			want: []string{"1", "4", "", "", "5"}, x: 0, y: 1},
		{name: "IL outside the region does nothing", cols: 5, rows: 5, input: fill + "\x1b[2;4r\x1b[5;1H\x1b[L",
			want: []string{"1", "2", "3", "4", "5"}, x: 0, y: 4},
		{name: "IL and DL without a region", cols: 5, rows: 3, input: "a\r\nb\r\nc\x1b[1;1H\x1b[L\x1b[3;1H\x1b[M",
			want: []string{"", "a"}, x: 0, y: 2},
	})
}

func TestRegionScrollKeepsScrollbackClean(t *testing.T) {
	// A region that does not start at the top never feeds the scrollback.
	s := feed(5, 4, 100, "\x1b[2;4r\x1b[4;1H1\r\n2\r\n3\r\n4\r\n")
	if n := s.ScrollbackLen(); n != 0 {
		t.Errorf("ScrollbackLen = %d, want 0", n)
	}
	// A region from the top (as Codex uses above its inline viewport) does.
	s = feed(5, 4, 100, "\x1b[1;2r\x1b[2;1Ha\r\nb\r\nc\r\n")
	if got := scrollbackLines(s); !slices.Equal(got, []string{"", "a", "b"}) {
		t.Errorf("scrollback = %q", got)
	}
	// DL at the top never feeds it either.
	s = feed(5, 2, 100, "a\r\nb\x1b[H\x1b[M")
	if n := s.ScrollbackLen(); n != 0 {
		t.Errorf("ScrollbackLen after DL = %d, want 0", n)
	}
}

func TestAltScreen(t *testing.T) {
	for _, mode := range []string{"1049", "1047", "47"} {
		t.Run(mode, func(t *testing.T) {
			s := feed(10, 3, 100, "main1\r\nmain2\x1b[?"+mode+"h")
			if !s.Modes().AltScreen {
				t.Fatal("AltScreen not set")
			}
			if mode != "47" && len(screenLines(s)) != 0 {
				t.Errorf("alt screen not blank: %q", screenLines(s))
			}
			s.Write([]byte("\x1b[H\x1b[2Jalt\r\n1\r\n2\r\n3\r\n4\x1b[3;5H"))
			if n := s.ScrollbackLen(); n != 0 {
				t.Errorf("alt screen fed the scrollback: %d lines", n)
			}
			s.Write([]byte("\x1b[?" + mode + "l"))
			if s.Modes().AltScreen {
				t.Error("AltScreen still set")
			}
			if got := screenLines(s); !slices.Equal(got, []string{"main1", "main2"}) {
				t.Errorf("main screen after exit = %q", got)
			}
			x, y, _ := s.Cursor()
			if mode == "1049" && (x != 5 || y != 1) {
				t.Errorf("cursor after 1049 exit = (%d,%d), want (5,1)", x, y)
			}
			if mode != "1049" && (x != 4 || y != 2) {
				t.Errorf("cursor after %s exit = (%d,%d), want (4,2)", mode, x, y)
			}
		})
	}
}

func TestModes(t *testing.T) {
	s := New(10, 3, 0)
	want := proto.TerminalModes{Autowrap: true, CursorVisible: true}
	if got := s.Modes(); got != want {
		t.Fatalf("initial modes = %+v", got)
	}
	s.Write([]byte("\x1b[?2004h\x1b[?1002h\x1b[?1006h\x1b[?1h\x1b=\x1b[?1004h\x1b[?2026h\x1b[5 q\x1b[4h"))
	want = proto.TerminalModes{Autowrap: true, CursorVisible: true, BracketedPaste: true, MouseTracking: 1002, MouseSGR: true,
		AppCursor: true, AppKeypad: true, FocusEvents: true, SyncOutput: true, CursorStyle: 5, Insert: true}
	if got := s.Modes(); got != want {
		t.Errorf("modes = %+v\nwant   %+v", got, want)
	}
	s.Write([]byte("\x1b[?1003h"))
	if m := s.Modes().MouseTracking; m != 1003 {
		t.Errorf("MouseTracking = %d, want 1003", m)
	}
	s.Write([]byte("\x1b[?1000l\x1b[?2004l\x1b[?1006l\x1b[?1l\x1b>\x1b[?1004l\x1b[?2026l\x1b[0 q\x1b[4l"))
	want = proto.TerminalModes{Autowrap: true, CursorVisible: true}
	if got := s.Modes(); got != want {
		t.Errorf("modes after reset = %+v", got)
	}
}

func TestTitleAndEvents(t *testing.T) {
	s := New(10, 3, 0)
	s.Write([]byte("\x1b]0;first\x07"))
	if s.Title() != "first" {
		t.Errorf("Title = %q", s.Title())
	}
	ev := s.Events()
	if !ev.TitleChanged {
		t.Error("TitleChanged not set")
	}
	if ev := s.Events(); ev.TitleChanged {
		t.Error("Events did not clear TitleChanged")
	}
	// ST-terminated, split across writes, with U+2733 whose UTF-8 holds 0x9C.
	seq := "\x1b]2;✳ Claude Code\x1b\\after"
	for i := range len(seq) {
		s.Write([]byte{seq[i]})
	}
	if s.Title() != "✳ Claude Code" {
		t.Errorf("Title = %q", s.Title())
	}
	if got := s.PlainLine(0); got != "after" {
		t.Errorf("line after OSC = %q", got)
	}
	s.Events()
	s.Write([]byte("\x1b]2;✳ Claude Code\x07"))
	if ev := s.Events(); ev.TitleChanged {
		t.Error("TitleChanged set for the same title")
	}

	s.Write([]byte("\x1b]9;4;1;42\x07\a\a"))
	ev = s.Events()
	if !ev.ProgressChanged || ev.Progress != (Progress{State: ProgressNormal, Value: 42}) || ev.Bells != 2 {
		t.Errorf("events = %+v", ev)
	}
	s.Write([]byte("\x1b]9;4;3\x1b\\"))
	if ev := s.Events(); !ev.ProgressChanged || ev.Progress.State != ProgressIndeterminate {
		t.Errorf("indeterminate progress: %+v", ev)
	}
	s.Write([]byte("\x1b]9;4;0;0\x07"))
	if ev := s.Events(); !ev.ProgressChanged || ev.Progress != (Progress{}) {
		t.Errorf("removed progress: %+v", ev)
	}
	s.Write([]byte("\x1b]9;Build done\x07\x1b]777;notify;Codex;needs input\x07\x1b]9;9;/tmp\x07"))
	if ev := s.Events(); !slices.Equal(ev.Notifications, []string{"Build done", "Codex: needs input"}) {
		t.Errorf("notifications = %q", ev.Notifications)
	}
}

func TestReplies(t *testing.T) {
	cases := []struct{ in, want string }{
		{"\x1b[c", "\x1b[?62;22c"},
		{"\x1b[0c", "\x1b[?62;22c"},
		{"\x1b[>c", "\x1b[>1;10;0c"},
		{"\x1b[5n", "\x1b[0n"},
		{"\x1b[3;7H\x1b[6n", "\x1b[3;7R"},
		{"\x1b[3;7H\x1b[?6n", "\x1b[?3;7R"},
		{"\x1b[2;5r\x1b[?6h\x1b[2;3H\x1b[6n", "\x1b[2;3R"},
		{"\x1b[?2004h\x1b[?2004$p", "\x1b[?2004;1$y"},
		{"\x1b[?2026$p", "\x1b[?2026;2$y"},
		{"\x1b[?7777$p", "\x1b[?7777;0$y"},
		{"\x1b[4$p", "\x1b[4;2$y"},
		{"\x1b[18t", "\x1b[8;24;80t"},
		{"\x1b[>0q", "\x1bP>|acpmux-tui\x1b\\"},
		{"\x1b[>q", "\x1bP>|acpmux-tui\x1b\\"},
		// Queries of features this terminal lacks, answered as xterm and
		// tmux answer them: DECRQM says "not recognised" (0); the kitty
		// keyboard query (CSI ? u), a kitty graphics query (APC G a=q), an
		// OSC no terminal defines (7501) and the cell size in pixels
		// (CSI 16 t, which xterm too leaves unanswered unless it allows
		// window reports) get no answer, as their protocols say of such a
		// terminal; each is followed by DA1, which is answered in order.
		{"\x1b[?1016$p", "\x1b[?1016;0$y"},
		{"\x1b[?u\x1b[c", "\x1b[?62;22c"},
		{"\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\\x1b[c", "\x1b[?62;22c"},
		{"\x1b]7501;?\x07\x1b[c", "\x1b[?62;22c"},
		{"\x1b[16t\x1b[c", "\x1b[?62;22c"},
		// What the real Claude Code (2.1.318) sends before it prints an
		// error, byte for byte: every answer it waits for comes, in order.
		{"\x1b[>0q\x1b[?u\x1b]7501;?\x07\x1b[c\x1b[?2026$p\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\\x1b[16t\x1b[?1016$p\x1b[c",
			"\x1bP>|acpmux-tui\x1b\\\x1b[?62;22c\x1b[?2026;2$y\x1b[?1016;0$y\x1b[?62;22c"},
	}
	for _, tc := range cases {
		s := New(80, 24, 0)
		var got []byte
		s.SetReplyFunc(func(b []byte) { got = append(got, b...) })
		s.Write([]byte(tc.in))
		if string(got) != tc.want {
			t.Errorf("%q replied %q, want %q", tc.in, got, tc.want)
		}
		// The same bytes a byte at a time, as a slow pty may hand them.
		got = nil
		one := New(80, 24, 0)
		one.SetReplyFunc(func(b []byte) { got = append(got, b...) })
		for i := range len(tc.in) {
			one.Write([]byte{tc.in[i]})
		}
		if string(got) != tc.want {
			t.Errorf("%q a byte at a time replied %q, want %q", tc.in, got, tc.want)
		}
	}
	// Without a reply function queries are dropped.
	s := New(80, 24, 0)
	s.Write([]byte("\x1b[6n\x1b[c"))
}

// TestResetModesKeepsTheText: ResetModes undoes the modes a program set (as
// RIS would) but leaves the main screen's text and the cursor where they
// were, and leaves the alternate screen.
func TestResetModesKeepsTheText(t *testing.T) {
	s := New(20, 5, 10)
	s.Write([]byte("\x1b[2;4rdied here\r\n\x1b[?2004h\x1b[?1000h\x1b[?1006h\x1b[?1h\x1b=\x1b[?25l\x1b[?1004h\x1b[31m\x1b]9;4;1;50\x07\x1b[?1049hon the alt screen"))
	s.ResetModes()
	if got, want := screenLines(s), []string{"died here"}; !slices.Equal(got, want) {
		t.Fatalf("screen %q, want %q", got, want)
	}
	if m := s.Modes(); m != (proto.TerminalModes{Autowrap: true, CursorVisible: true}) {
		t.Fatalf("modes after ResetModes: %+v", m)
	}
	if x, y, _ := s.Cursor(); x != 0 || y != 1 {
		t.Fatalf("cursor (%d,%d), want (0,1) where the main screen left it", x, y)
	}
	s.Write([]byte("\x1b[5;1Hx\n"))
	if got := s.PlainScrollback(0); got != "died here" {
		t.Fatalf("the scroll region was not reset: scrollback %q", got)
	}
	if ev := s.Events(); ev.Progress.State != ProgressNone {
		t.Fatalf("progress after ResetModes: %+v", ev.Progress)
	}
	wantCell(t, s, 0, 3, "x", 1, Style{})
}
