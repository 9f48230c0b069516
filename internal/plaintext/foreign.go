package plaintext

import "unicode/utf8"

// This file is text from another machine: what a host's server sends over
// ssh is cleaned as it is read (client.Conn), once, so no view of it has to
// remember. It gets Clean's treatment, and more: a bidirectional control
// can make a line read in another order than it runs, and what is taken
// out is marked, so a value of strict syntax (a chat id) that held a
// control is never taken for another that holds none.

// Foreign returns s, text another host sent, fit to show: each escape
// sequence (whole, as Clean finds it), each control character but newline
// and tab, and each bidirectional control (U+061C, U+200E, U+200F,
// U+202A–U+202E, U+2066–U+2069) becomes one U+FFFD; the CR of a CR LF goes
// with no mark. Invalid UTF-8 becomes U+FFFD. Text with none of them is
// returned as it is, without copying.
func Foreign(s string) string {
	if foreignPlain(s, false) {
		return s
	}
	return clean(s, policy{mark: "\uFFFD", bidi: true, crlf: true})
}

// ForeignScreen is Foreign for a terminal screen another host rendered:
// lines whose colours and attributes are SGR sequences (ESC [ digits, ";"
// and ":" then m), which stay. Everything else Foreign marks is taken out
// with no mark, as it took no column on that screen either.
func ForeignScreen(s string) string {
	if foreignPlain(s, true) {
		return s
	}
	return clean(s, policy{sgr: true, bidi: true, crlf: true})
}

// foreignPlain reports whether s is valid UTF-8 with no control character
// but newline and tab, and no bidirectional control; with sgr, an ESC that
// starts an SGR sequence is allowed too. ASCII, most of any text, is
// checked a byte at a time without decoding.
func foreignPlain(s string, sgr bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f, c == '\n', c == '\t':
			i++
		case c == 0x1b && sgr:
			end := sgrEnd(s, i)
			if end == 0 {
				return false
			}
			i = end
		case c < utf8.RuneSelf:
			return false
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 || r < 0xa0 || isBidi(r) {
				return false
			}
			i += size
		}
	}
	return true
}

// sgrEnd returns where the SGR sequence that starts at s[i] (an ESC) ends,
// or 0 when none does: ESC [, parameters (digits, ";" and ":"), then m.
func sgrEnd(s string, i int) int {
	if i >= len(s) || s[i] != 0x1b {
		return 0
	}
	return SGRTail(s, i+1)
}

// SGRTail returns where an SGR sequence whose ESC is just before b[j] ends:
// b[j] is "[", then parameters (digits, ";" and ":"), then "m"; 0 when
// what is there is not that. It reads a string or bytes alike, so a
// reader of JSON whose ESC was written \u001b asks it too.
func SGRTail[T ~string | ~[]byte](b T, j int) int {
	if j >= len(b) || b[j] != '[' {
		return 0
	}
	for k := j + 1; k < len(b); k++ {
		switch c := b[k]; {
		case c == 'm':
			return k + 1
		case c >= '0' && c <= '9', c == ';', c == ':':
		default:
			return 0
		}
	}
	return 0
}

// IsBidi reports whether r is a bidirectional control: the Arabic letter
// mark, the left-to-right and right-to-left marks, and the embedding,
// override and isolate controls.
func IsBidi(r rune) bool { return isBidi(r) }

func isBidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}
