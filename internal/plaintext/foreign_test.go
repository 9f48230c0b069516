package plaintext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestForeign: every escape sequence, control and bidirectional control
// becomes one U+FFFD, a CR LF a line end; text with none is as it was.
func TestForeign(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text\nwith\ttab é 🙂", "plain text\nwith\ttab é 🙂"},
		{"clip\x1b]52;c;cHduZWQ=\x07board", "clip\uFFFDboard"},
		{"title\x1b]0;pwned\x1b\\ok", "title\uFFFDok"},
		{"\x1b[31mred\x1b[0m", "\uFFFDred\uFFFD"},
		{"clear\x1b[2J", "clear\uFFFD"},
		{"dcs\x1bPq#0;2\x1b\\end", "dcs\uFFFDend"},
		{"c1 csi \u009b2J done", "c1 csi \uFFFD done"},
		{"c1 osc \u009d0;x\u009c done", "c1 osc \uFFFD done"},
		{"rlo \u202etxt.exe\u202c", "rlo \uFFFDtxt.exe\uFFFD"},
		{"marks \u200e\u200f\u061c \u2066i\u2069", "marks \uFFFD\uFFFD\uFFFD \uFFFDi\uFFFD"},
		{"crlf\r\nline", "crlf\nline"},
		{"cr\rback\bbell\x07del\x7f", "cr\uFFFDback\uFFFDbell\uFFFDdel\uFFFD"},
		{"bad \xff utf8", "bad \uFFFD utf8"},
		{"abc\x1b[2J", "abc\uFFFD"},
	} {
		if got := Foreign(tc.in); got != tc.want {
			t.Errorf("Foreign(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestForeignScreen: SGR stays, the rest goes with no mark.
func TestForeignScreen(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\x1b[31mred\x1b[m \x1b[38;2;1;2;3mrgb\x1b[0m \x1b[4:3mcurly\x1b[m", "\x1b[31mred\x1b[m \x1b[38;2;1;2;3mrgb\x1b[0m \x1b[4:3mcurly\x1b[m"},
		{"row\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b[?25l\u009b2J\u202e end", "row end"},
		{"\x1b[1;31", ""},
		{"a\r\nb\rc", "a\nbc"},
		{"\x1b[31m\x1b", "\x1b[31m"},
	} {
		if got := ForeignScreen(tc.in); got != tc.want {
			t.Errorf("ForeignScreen(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzForeign: whatever the text, Foreign leaves no control and no
// bidirectional control, ForeignScreen none but SGR sequences; both are
// idempotent, and return their text as it is exactly when it has nothing
// to take out.
func FuzzForeign(f *testing.F) {
	for _, s := range []string{"", "x", "\x1b]52;c;x\x07", "\x1b[", "\x1b[31m", "\u009b1;2", "\x1bP\x1b\\", "\u202e", "\xe2\x80", "a\r\n", "\x1b[1m\x1b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, fn := range map[string]func(string) string{"Foreign": Foreign, "ForeignScreen": ForeignScreen} {
			out := fn(s)
			if !utf8.ValidString(out) {
				t.Fatalf("%s(%q) = %q is not UTF-8", name, s, out)
			}
			rest := out
			if name == "ForeignScreen" {
				rest = stripSGR(t, out)
			}
			for _, r := range rest {
				if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 || IsBidi(r) {
					t.Fatalf("%s(%q) = %q keeps %U", name, s, out, r)
				}
			}
			if fn(out) != out {
				t.Fatalf("%s is not idempotent on %q", name, s)
			}
			if (out == s) != foreignPlain(s, name == "ForeignScreen") {
				t.Fatalf("%s(%q) = %q, and foreignPlain says %v", name, s, out, foreignPlain(s, name == "ForeignScreen"))
			}
		}
	})
}

// stripSGR takes the SGR sequences out of s, failing on any other ESC.
func stripSGR(t *testing.T, s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			end := sgrEnd(s, i)
			if end == 0 {
				t.Fatalf("%q has an ESC that starts no SGR at %d", s, i)
			}
			i = end
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}
