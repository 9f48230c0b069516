package capsule

import "unicode/utf8"

// This file lets the detectors see a credential that characters shown as
// nothing split in parts ("ghp_abc\u200bdef…": a zero-width space pasted
// from a web page or a chat app, or put there to slip a key past a
// scanner). The detectors run on what the text shows, without those
// characters; what they find is marked in the text itself, so the
// invisible characters inside a credential go with it, and every other
// one stays where it was (the joiner of an emoji sequence, the non-joiner
// of a Persian word, a soft hyphen): the capsule reads as it did.

// isIgnorable reports whether r is a Default_Ignorable_Code_Point of
// Unicode (DerivedCoreProperties.txt): a character a terminal or a browser
// shows as nothing unless it knows it. They are the soft hyphen, the
// combining grapheme joiner, the Arabic letter mark, the Hangul fillers,
// the Khmer inherent vowels, the Mongolian variation selectors and vowel
// separator, the zero-width space, non-joiner and joiner, the directional
// marks, embeddings, overrides and isolates, the word joiner and the
// invisible operators, the variation selectors, the byte order mark, the
// musical symbol formats and the tag characters.
func isIgnorable(r rune) bool {
	switch {
	case r < 0xad:
		return false
	case r == 0xad, r == 0x34f, r == 0x61c, r == 0x115f, r == 0x1160, r == 0x17b4, r == 0x17b5:
		return true
	case r >= 0x180b && r <= 0x180f:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x206f:
		return true
	case r == 0x3164, r >= 0xfe00 && r <= 0xfe0f, r == 0xfeff, r == 0xffa0, r >= 0xfff0 && r <= 0xfff8:
		return true
	case r >= 0x1bca0 && r <= 0x1bca3, r >= 0x1d173 && r <= 0x1d17a, r >= 0xe0000 && r <= 0xe0fff:
		return true
	}
	return false
}

// shownText is a text as it is shown: without its ignorable characters.
type shownText struct {
	text string
	// at[i] is the offset in the original text of the byte text[i]; nil
	// when the original has no ignorable character (text is the original).
	at []int
}

// shown returns text less its ignorable characters, and where each byte
// kept stands in text. Bytes that are not UTF-8 are kept; should dropping
// a character join the bytes around it into an ignorable character
// ("\xe2\x80" + U+200B + "\x8b" leaves U+200B), that one is dropped too,
// so what is shown holds none.
func shown(text string) shownText {
	first := -1
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if isIgnorable(r) {
			first = i
			break
		}
		i += n
	}
	if first < 0 {
		return shownText{text: text}
	}
	view := make([]byte, first, len(text))
	copy(view, text[:first])
	at := make([]int, first, len(text))
	for i := range at {
		at[i] = i
	}
	for i := first; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if r != utf8.RuneError && isIgnorable(r) {
			i += n
			continue
		}
		for k := i; k < i+n; k++ {
			view = append(view, text[k])
			at = append(at, k)
		}
		i += n
		// Bytes that are not UTF-8 may now end in an ignorable character
		// made of pieces on both sides of one dropped.
		if r == utf8.RuneError {
			if last, m := utf8.DecodeLastRune(view); last != utf8.RuneError && isIgnorable(last) {
				view, at = view[:len(view)-m], at[:len(at)-m]
			}
		}
	}
	return shownText{text: string(view), at: at}
}

// original maps a span of the shown text to the text it was taken from:
// from its first byte to its last, with the ignorable characters between
// them and none of those before or after.
func (s shownText) original(sp span) span {
	if s.at == nil || sp.end <= sp.start {
		return sp
	}
	return span{s.at[sp.start], s.at[sp.end-1] + 1, sp.kind}
}
