package termmodes

import (
	"bytes"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/screen"
)

// harnessOutputs are what harnesses leave a terminal in, for the tests below.
var harnessOutputs = []struct{ name, out string }{
	{"nothing", "plain text\r\n"},
	{"tui on the alternate screen", "\x1b[?1049h\x1b[?1003h\x1b[?1006h\x1b[?1004h\x1b=\x1b[?1h\x1b[?2004h\x1b[?25l\x1b[?7l\x1b[4h\x1b[5 q\x1b[31;1mred"},
	{"modes on the main screen", "\x1b[?1000h\x1b[?1015h\x1b[?1h\x1b=\x1b[?25l\x1b[3 q\x1b[?2026h\x1b[7mreverse"},
	{"origin mode and a scroll region", "\x1b[3;10r\x1b[?6h\x1b[2;1Hin the region"},
	{"47 and DEC graphics", "\x1b[?47h\x1b(0\x0elqk\x1b[?9h"},
	{"1047 set in several parameters", "\x1b[?1047;1002;2004h"},
	{"a soft reset after origin mode", "\x1b[?6h\x1b[?25l\x1b[!p"},
	{"a full reset after modes", "\x1b[?1049h\x1b[?1003h\x1bc"},
	{"modes inside a title and after a broken sequence", "\x1b]2;\x1b[?1003h title\x07\x1b[?10\x18\x1b[?2004h"},
}

// TestResetRestoresModes plays harness output, then the reset built
// from it, into the mux's terminal emulator: every mode it knows is back
// at its power-on value, and with no origin mode on the main screen the
// cursor is where the harness left it. The output is also given one byte
// at a time, as a pty may split it.
func TestResetRestoresModes(t *testing.T) {
	fresh := screen.New(40, 12, 0).Modes()
	for _, tc := range harnessOutputs {
		for _, split := range []bool{false, true} {
			name := tc.name
			if split {
				name += " byte by byte"
			}
			t.Run(name, func(t *testing.T) {
				scr := screen.New(40, 12, 100)
				scr.Write([]byte("before\r\n"))
				modes := New()
				if split {
					for i := range len(tc.out) {
						modes.Scan([]byte{tc.out[i]})
					}
				} else {
					modes.Scan([]byte(tc.out))
				}
				scr.Write([]byte(tc.out))
				wasAlt := scr.Modes().AltScreen
				col, row, _ := scr.Cursor()
				scr.Write(modes.Reset())
				if got := scr.Modes(); got != fresh {
					t.Errorf("modes after the reset:\n got %+v\nwant %+v\nreset %q", got, fresh, modes.Reset())
				}
				if !wasAlt && !strings.Contains(tc.out, "?6h") {
					if c, r, _ := scr.Cursor(); c != col || r != row {
						t.Errorf("the cursor moved from %d,%d to %d,%d", col, row, c, r)
					}
				}
				if wasAlt && !strings.Contains(scr.PlainLine(0), "before") {
					t.Errorf("the main screen is not back: %q", scr.PlainLine(0))
				}
				// Text written now is plain ASCII, and a newline on the last
				// row scrolls the whole screen.
				lines := scr.ScrollbackLen()
				scr.Write([]byte("\x1b[12;1Hq\n"))
				if c := scr.Cell(0, 10); c.Content != "q" || c.Style != (screen.Style{}) {
					t.Errorf("text after the reset is %+v", c)
				}
				if scr.ScrollbackLen() != lines+1 {
					t.Errorf("a newline on the last row did not scroll the screen")
				}
			})
		}
	}
}

// TestResetWhatChanged checks the resets made only when the harness
// changed something: leaving the alternate screen the way it was entered,
// popping exactly the kitty keyboard entries pushed, on the screen they were
// pushed on, and resetting key modifiers, cursor style and other modes only
// when set.
func TestResetWhatChanged(t *testing.T) {
	for _, tc := range []struct {
		name, out  string
		has, hasnt []string
	}{
		{"nothing", "hello", []string{"\x1b[?1003l", "\x1b[?2004l", "\x1b[?25h", "\x1b>", "\x1b[m", "\x1b7\x1b[r\x1b8"},
			[]string{"?1049l", "?47l", "u", " q", "\x1b[>", "?6l"}},
		{"1049", "\x1b[?1049h", []string{"\x1b[?1049l"}, []string{"?47l", "?1047l"}},
		{"1047", "\x1b[?1047h", []string{"\x1b[?1047l"}, []string{"?1049l"}},
		{"alternate screen left", "\x1b[?1049hx\x1b[?1049l", nil, []string{"?1049l"}},
		{"kitty pushes", "\x1b[>1u\x1b[>3u", []string{"\x1b[<2u"}, nil},
		{"kitty push and pop", "\x1b[>1u\x1b[<u", nil, []string{"<"}},
		{"kitty flags set", "\x1b[=5;1u", []string{"\x1b[=0;1u"}, nil},
		{"modifyOtherKeys", "\x1b[>4;2m", []string{"\x1b[>4m"}, []string{"\x1b[>0m"}},
		{"cursor style", "\x1b[6 q", []string{"\x1b[0 q"}, nil},
		{"origin mode", "\x1b[?6h", []string{"\x1b[?6l"}, nil},
		{"origin mode reset by the harness", "\x1b[?6h\x1b[?6l", nil, []string{"?6l"}},
		{"autorepeat off", "\x1b[?8l", []string{"\x1b[?8h"}, nil},
		{"an unknown mode", "\x1b[?4242h\x1b[?4243l", []string{"\x1b[?4242l"}, []string{"4243"}},
		{"newline mode", "\x1b[20h", []string{"\x1b[20l"}, nil},
		{"local echo", "\x1b[12l", []string{"\x1b[12h"}, nil},
		{"local echo left off", "\x1b[12h", nil, []string{"\x1b[12"}},
		{"sequences split by a full reset", "\x1b[?1049h\x1b[>1u\x1bc", nil, []string{"?1049l", "<"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New()
			m.Scan([]byte(tc.out))
			reset := string(m.Reset())
			for _, s := range tc.has {
				if !strings.Contains(reset, s) {
					t.Errorf("the reset %q lacks %q", reset, s)
				}
			}
			for _, s := range tc.hasnt {
				if strings.Contains(reset, s) {
					t.Errorf("the reset %q has %q", reset, s)
				}
			}
		})
	}

	// Entries pushed on each screen are popped on that screen.
	m := New()
	m.Scan([]byte("\x1b[>1u\x1b[?1049h\x1b[>1u\x1b[>1u"))
	reset := string(m.Reset())
	alt, leave, main := strings.Index(reset, "\x1b[<2u"), strings.Index(reset, "\x1b[?1049l"), strings.Index(reset, "\x1b[<1u")
	if alt < 0 || leave < alt || main < leave {
		t.Errorf("kitty pops and the screen switch out of order: %q", reset)
	}
	// The SGR reset comes last.
	if !strings.HasSuffix(reset, "\x1b[m") {
		t.Errorf("the reset does not end with SGR 0: %q", reset)
	}
}

// TestResetBounded feeds a flood of distinct modes and an overlong
// sequence: the tracker keeps a bounded number of modes and ignores the
// sequence.
func TestResetBounded(t *testing.T) {
	m := New()
	var b bytes.Buffer
	for i := range 10000 {
		b.WriteString("\x1b[?")
		b.WriteString(strings.Repeat("9", 1+i%3))
		b.WriteString(string(rune('0' + i%10)))
		b.WriteString("h\x1b[")
		b.WriteString(strings.Repeat("1", i%100))
		b.WriteString("h")
	}
	b.WriteString("\x1b[?" + strings.Repeat("1;", 100) + "1049h")
	m.Scan(b.Bytes())
	if len(m.private) > maxTrackedModes || len(m.ansi) > maxTrackedModes {
		t.Fatalf("the tracker kept %d private and %d ANSI modes", len(m.private), len(m.ansi))
	}
	if m.alt != 0 {
		t.Fatalf("an overlong sequence was taken as entering the alternate screen")
	}
}

// FuzzModes feeds the tracker arbitrary output in two chunks:
// it never panics, and its reset always ends plain.
func FuzzModes(f *testing.F) {
	for _, tc := range harnessOutputs {
		f.Add([]byte(tc.out), len(tc.out)/2)
	}
	f.Fuzz(func(t *testing.T, out []byte, cut int) {
		m := New()
		cut = min(max(cut, 0), len(out))
		m.Scan(out[:cut])
		m.Scan(out[cut:])
		if !bytes.HasSuffix(m.Reset(), []byte("\x1b[m")) {
			t.Fatal("the reset does not end with SGR 0")
		}
		if len(m.private) > maxTrackedModes || len(m.ansi) > maxTrackedModes || len(m.seq) > maxSeqBytes {
			t.Fatal("the tracker grew past its bounds")
		}
	})
}
