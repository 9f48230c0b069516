package plaintext

import (
	"bytes"
	"fmt"
	"strings"
)

// JSON returns JSON text with DEL and the C1 controls (U+0080-U+009F, which
// some terminals obey as CSI or OSC) written as \u escapes. encoding/json
// escapes the C0 controls but writes these as they are; outside strings
// JSON holds only ASCII punctuation, so every value stays the same.
func JSON(s string) string {
	if !strings.ContainsFunc(s, isDelOrC1) {
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
	if !bytes.ContainsFunc(b, isDelOrC1) {
		return b
	}
	return []byte(JSON(string(b)))
}

func isDelOrC1(r rune) bool { return r == 0x7f || r >= 0x80 && r < 0xa0 }
