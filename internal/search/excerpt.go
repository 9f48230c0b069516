package search

import (
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
)

// Bounds of an excerpt, in characters: the context kept before the match,
// and the whole excerpt.
const (
	excerptBefore = 40
	excerptRunes  = 160
)

// Clean makes one line of outside text (a screen line, a line of a message)
// fit to match and to show: its escape sequences and control characters
// taken out (plaintext.Line), its bidirectional controls too, tabs as
// spaces. Printable ASCII, the
// common case, is returned as it is.
func Clean(s string) string {
	if printableASCII(s) {
		return s
	}
	s = plaintext.Line(s)
	if printableASCII(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if plaintext.IsBidi(r) || unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// Excerpt is the part of line (clean, see Clean) around the match at
// [start, end): up to excerptBefore characters before it and at most
// excerptRunes in all, runs of blanks squeezed to one, "…" at each end
// that was cut.
func Excerpt(line string, start, end int) string {
	if start < 0 || end < start || end > len(line) {
		start, end = 0, 0
	}
	// Back excerptBefore characters from the match, forward to fill.
	from := start
	for n := 0; n < excerptBefore && from > 0; n++ {
		_, size := utf8.DecodeLastRuneInString(line[:from])
		from -= size
	}
	to := end
	for n := utf8.RuneCountInString(line[from:end]); n < excerptRunes && to < len(line); n++ {
		_, size := utf8.DecodeRuneInString(line[to:])
		to += size
	}
	var b strings.Builder
	b.Grow(to - from + 8)
	if from > 0 {
		b.WriteString("…")
	}
	space := from == 0 // leading blanks dropped
	for _, r := range line[from:to] {
		if r == ' ' || unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	out := strings.TrimRight(b.String(), " ")
	if to < len(line) {
		out += "…"
	}
	return out
}

// unsafeString is b as a string without a copy, for a look that keeps no
// reference to it.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
