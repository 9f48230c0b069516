// Package plaintext makes text from programs we do not control safe to show
// in a terminal: nothing an agent writes may reach the user's terminal as a
// control sequence (an OSC 52 that sets the clipboard, an OSC 0 that renames
// the window, a cursor move that hides a line).
package plaintext

import (
	"strings"
	"unicode/utf8"
)

// Clean returns s with every C0 and C1 control character removed except
// newline and tab, and every escape sequence removed whole (CSI, OSC, DCS and
// the other string sequences, up to their terminator). Invalid UTF-8 becomes
// U+FFFD. Text without controls is returned as it is, without copying.
func Clean(s string) string {
	if isPlain(s) {
		return s
	}
	return clean(s, policy{})
}

// policy is what clean does beyond what Clean does (its zero value).
type policy struct {
	// mark is written where a control or a sequence is taken out.
	mark string
	// sgr keeps SGR sequences (ESC [ parameters m): colours and attributes.
	sgr bool
	// bidi takes out the bidirectional controls too (isBidi).
	bidi bool
	// crlf takes the CR of a CR LF out with no mark: a line end.
	crlf bool
}

// clean is Clean with p: one pass, copying s.
func clean(s string, p policy) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
			i++
		case r == 0x1b && p.sgr && sgrEnd(s, i) > 0: // SGR: kept
			end := sgrEnd(s, i)
			b.WriteString(s[i:end])
			i = end
		case r == 0x1b:
			i = skipEscape(s, i+1)
			b.WriteString(p.mark)
		case r == 0x9b: // CSI as a C1 code point
			i = skipCSI(s, i+size)
			b.WriteString(p.mark)
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // OSC, DCS, SOS, PM, APC
			i = skipString(s, i+size)
			b.WriteString(p.mark)
		case r == '\n' || r == '\t':
			b.WriteRune(r)
			i += size
		case r == '\r' && p.crlf && i+1 < len(s) && s[i+1] == '\n':
			i += size
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0), p.bidi && isBidi(r):
			i += size
			b.WriteString(p.mark)
		default:
			b.WriteString(s[i : i+size])
			i += size
		}
	}
	return b.String()
}

// Line is Clean for text shown on one line (a title, a status line): newlines
// and tabs become spaces too.
func Line(s string) string {
	s = Clean(s)
	if strings.ContainsAny(s, "\n\t") {
		s = strings.Map(func(r rune) rune {
			if r == '\n' || r == '\t' {
				return ' '
			}
			return r
		}, s)
	}
	return s
}

// isPlain reports whether s is valid UTF-8 with no control character but
// newline and tab.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			return plainRunes(s[i:])
		}
	}
	return true
}

func plainRunes(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return false
		}
	}
	return true
}

// skipEscape skips the rest of an escape sequence whose ESC was just before i.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[': // CSI
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_': // OSC, DCS, SOS, PM, APC
		return skipString(s, i+1)
	}
	// nF sequences: intermediates 0x20-0x2f, then one final byte.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipCSI skips parameter and intermediate bytes and the final byte.
func skipCSI(s string, i int) int {
	for i < len(s) {
		c := s[i]
		i++
		if c >= 0x40 && c <= 0x7e {
			return i
		}
		if c < 0x20 || c > 0x3f && c < 0x40 {
			return i
		}
	}
	return i
}

// skipString skips a control string up to BEL, ST (ESC \) or C1 ST.
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case s[i] == 0x1b:
			return i
		case s[i] == 0xc2 && i+1 < len(s) && s[i+1] == 0x9c:
			return i + 2
		}
		i++
	}
	return i
}
