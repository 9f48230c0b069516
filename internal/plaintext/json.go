package plaintext

import (
	"fmt"
	"strings"
)

// JSON returns JSON text with DEL and the C1 controls (U+0080-U+009F, which
// some terminals obey as CSI or OSC) written as \u escapes. encoding/json
// escapes the C0 controls but writes these as they are; outside strings
// JSON holds only ASCII punctuation, so every value stays the same.
func JSON(s string) string {
	if !hasDelOrC1(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		if isDelOrC1(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// JSONBytes is JSON for bytes: b itself when it holds nothing to escape
// (the common case, with no copy), else an escaped copy.
func JSONBytes(b []byte) []byte {
	if !hasDelOrC1(b) {
		return b
	}
	return []byte(JSON(string(b)))
}

// hasDelOrC1 reports whether text holds DEL or a C1 control, as ranging
// over its runes would, without decoding them (`ls --json` asks it of 390
// kB at 1,000 chats, where decoding rune by rune was a sixth of printing):
// DEL is the byte 0x7f, and U+0080-U+009F is 0xc2 then 0x80-0x9f, a pair
// no other sequence holds. 0xc2 is never a continuation byte, and a
// decoder that meets bad bytes skips one at a time, so it reads any such
// pair as the control too.
func hasDelOrC1[T string | []byte](text T) bool {
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == 0x7f:
			return true
		case c == 0xc2 && i+1 < len(text) && text[i+1] >= 0x80 && text[i+1] < 0xa0:
			return true
		}
	}
	return false
}

func isDelOrC1(r rune) bool { return r == 0x7f || r >= 0x80 && r < 0xa0 }
