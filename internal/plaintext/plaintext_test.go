package plaintext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text\nwith\ttab", "plain text\nwith\ttab"},
		{"日本語 λ 🙂", "日本語 λ 🙂"},
		{"clip\x1b]52;c;cHduZWQ=\x07board", "clipboard"},
		{"title\x1b]0;pwned\x1b\\ok", "titleok"},
		{"\x1b[31mred\x1b[0m", "red"},
		{"\x1b[?1003h\x1b[?25lmouse", "mouse"},
		{"bell\x07 cr\r back\b", "bell cr back"},
		{"c1 csi \u009b31m done", "c1 csi  done"},
		{"c1 osc \u009d0;x\u009c done", "c1 osc  done"},
		{"dcs\x1bPq#0;2;0;0;0\x1b\\end", "dcsend"},
		{"esc at end\x1b", "esc at end"},
		{"keypad\x1b=\x1b>", "keypad"},
		{"charset\x1b(Bx", "charsetx"},
		{"bad \xff utf8", "bad \uFFFD utf8"},
		{"del\x7f", "del"},
		{"unterminated \x1b]0;title", "unterminated "},
	} {
		if got := Clean(tc.in); got != tc.want {
			t.Errorf("Clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestLine(t *testing.T) {
	if got := Line("a\nb\tc\x1b[2Jd"); got != "a b cd" {
		t.Fatalf("Line = %q", got)
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "x", "\x1b]52;c;x\x07", "\x1b[", "\u009b1;2", "\x1bP\x1b\\", "a\x1b\x1b]0;\x1b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Clean(%q) = %q is not UTF-8", s, out)
		}
		for _, r := range out {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 {
				t.Fatalf("Clean(%q) = %q keeps control %U", s, out, r)
			}
		}
		if Clean(out) != out {
			t.Fatalf("Clean is not idempotent on %q", s)
		}
		if strings.ContainsAny(Line(s), "\n\t") {
			t.Fatalf("Line(%q) keeps a newline or tab", s)
		}
	})
}
