// Package search finds chats by what they hold: their name, title and
// folders, their conversation (an ACP transcript, a harness's session log
// on disk) and a terminal chat's screen and scrollback. It is grep-like:
// every word must be in the same line, case is ignored unless a word has an
// upper-case letter (smart case), and each hit comes with a short excerpt
// around the match, cleaned of every escape, control and bidirectional
// character where the text enters. The server runs it over the chats it
// holds (their live screens too); the command line runs it over the chat
// files and logs when no server runs.
package search

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/acpmux/acpmux-tui/proto"
)

// Query is a parsed search: the words a line must all hold.
type Query struct {
	terms []term
	// rawOK is set when every term, where it is in a line of JSON text,
	// is there as written (no character JSON may escape): a log line that
	// lacks a term then needs no decoding.
	rawOK bool
}

// term is one word (or a quoted phrase) of a query.
type term struct {
	text string
	// fold ignores case: the term has no upper-case letter. Its text is
	// then lower case.
	fold bool
	// ascii is set when text is ASCII: folding is then byte by byte.
	ascii bool
	// first, firstUp are the first byte of text and its upper case (the
	// same byte when it has none), to find candidates with IndexByte.
	first, firstUp byte
}

// UsageError is a query refused: no word, too many, too long, or a word
// with a control character. The server answers it with -32602.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

// Parse makes a query of words: blank ones are dropped; at least one must
// remain, at most proto.MaxSearchWords, each at most
// proto.MaxSearchWordBytes of valid UTF-8 with no control character.
func Parse(words []string) (Query, error) {
	var q Query
	q.rawOK = true
	for _, w := range words {
		w = strings.TrimSpace(w)
		if w == "" {
			continue
		}
		if len(q.terms) == proto.MaxSearchWords {
			return Query{}, &UsageError{fmt.Sprintf("at most %d words", proto.MaxSearchWords)}
		}
		if len(w) > proto.MaxSearchWordBytes {
			return Query{}, &UsageError{fmt.Sprintf("a word is at most %d bytes", proto.MaxSearchWordBytes)}
		}
		if !utf8.ValidString(w) {
			return Query{}, &UsageError{fmt.Sprintf("word %+q is not valid UTF-8", w)}
		}
		for _, r := range w {
			if unicode.IsControl(r) {
				return Query{}, &UsageError{fmt.Sprintf("word %+q has a control character", w)}
			}
		}
		t := term{text: w, fold: !hasUpper(w)}
		if t.fold {
			t.text = strings.ToLower(w)
		}
		t.ascii = isASCII(t.text)
		t.first, t.firstUp = t.text[0], t.text[0]
		if t.fold && t.ascii {
			t.firstUp = upper(t.first)
		}
		if !t.ascii || strings.ContainsAny(t.text, "\"\\/<>&'") {
			q.rawOK = false
		}
		q.terms = append(q.terms, t)
	}
	if len(q.terms) == 0 {
		return Query{}, &UsageError{"no word to search for"}
	}
	return q, nil
}

// Fields splits what a user typed into words: on blanks, except inside
// double quotes, which make a phrase of one word.
func Fields(s string) []string {
	var out []string
	var b strings.Builder
	quoted, any := false, false
	flush := func() {
		if any {
			out = append(out, b.String())
		}
		b.Reset()
		any = false
	}
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
			if !quoted {
				flush()
			}
		case unicode.IsSpace(r) && !quoted:
			flush()
		default:
			b.WriteRune(r)
			any = true
		}
	}
	flush()
	return out
}

// Words are the query's words as they match (lower case where case is
// ignored).
func (q Query) Words() []string {
	out := make([]string, len(q.terms))
	for i, t := range q.terms {
		out[i] = t.text
	}
	return out
}

// Match reports whether s holds every term, and where the first term is.
func (q Query) Match(s string) (start, end int, ok bool) {
	start, end = -1, -1
	for i, t := range q.terms {
		at, n := t.index(s)
		if at < 0 {
			return -1, -1, false
		}
		if i == 0 {
			start, end = at, at+n
		}
	}
	return start, end, true
}

// MatchRaw reports whether a line of raw bytes (a log's JSON) may hold a
// hit: false only when it surely cannot, a term missing from a line in
// which nothing Clean takes out could have split it (mayHide).
func (q Query) MatchRaw(line []byte) bool {
	if !q.rawOK {
		return true
	}
	s := unsafeString(line)
	for _, t := range q.terms {
		if at, _ := t.index(s); at < 0 {
			return mayHide(line)
		}
	}
	return true
}

// mayHide reports whether a line of JSON may hold, inside a string, what
// Clean takes out of the text and so joins what was around it: an escape
// of a control Clean drops (\b, \f and \r, which encoding/json writes
// so, or any \u: \u001b, or a bidirectional control), a DEL, a C1
// control or a bidirectional control written as UTF-8. A raw control
// byte is not looked for: JSON with one does not decode.
func mayHide(line []byte) bool {
	if bytes.Contains(line, []byte(`\u`)) || bytes.Contains(line, []byte(`\b`)) || bytes.Contains(line, []byte(`\f`)) ||
		bytes.Contains(line, []byte(`\r`)) || bytes.IndexByte(line, 0x7f) >= 0 {
		return true
	}
	return hasLead(line, 0xc2, func(b []byte) bool { return len(b) > 1 && b[1] >= 0x80 && b[1] <= 0x9f }) || // C1
		hasLead(line, 0xd8, func(b []byte) bool { return len(b) > 1 && b[1] == 0x9c }) || // U+061C
		hasLead(line, 0xe2, func(b []byte) bool { // U+200E, U+200F, U+202A–U+202E, U+2066–U+2069
			return len(b) > 2 && (b[1] == 0x80 && (b[2] == 0x8e || b[2] == 0x8f || b[2] >= 0xaa && b[2] <= 0xae) ||
				b[1] == 0x81 && b[2] >= 0xa6 && b[2] <= 0xa9)
		})
}

// hasLead reports whether some occurrence of the byte lead in b starts a
// sequence that is says yes to.
func hasLead(b []byte, lead byte, is func([]byte) bool) bool {
	for {
		i := bytes.IndexByte(b, lead)
		if i < 0 {
			return false
		}
		if is(b[i:]) {
			return true
		}
		b = b[i+1:]
	}
}

// index is where t is in s and the length of what matched, or -1.
func (t term) index(s string) (int, int) {
	switch {
	case !t.fold:
		return strings.Index(s, t.text), len(t.text)
	case t.ascii:
		return indexFoldASCII(s, t), len(t.text)
	}
	return indexFold(s, t.text)
}

// indexFoldASCII finds t (lower-case ASCII) in s ignoring ASCII case. The
// candidates are found by IndexByte for each case of the first byte, each
// scan kept until passed, so no byte is looked at twice by either.
func indexFoldASCII(s string, t term) int {
	n := len(t.text)
	lo, up := -2, -2 // next candidate of each case; -2: not looked for yet
	for from := 0; from+n <= len(s); {
		if lo != -1 && lo < from {
			lo = nextByte(s, from, t.first)
		}
		if t.firstUp == t.first {
			up = -1
		} else if up != -1 && up < from {
			up = nextByte(s, from, t.firstUp)
		}
		at := lo
		if at < 0 || up >= 0 && up < at {
			at = up
		}
		if at < 0 || at+n > len(s) {
			return -1
		}
		if equalFoldASCII(s[at+1:at+n], t.text[1:]) {
			return at
		}
		from = at + 1
	}
	return -1
}

func nextByte(s string, from int, c byte) int {
	i := strings.IndexByte(s[from:], c)
	if i < 0 {
		return -1
	}
	return from + i
}

// equalFoldASCII reports whether s equals lower (lower-case ASCII),
// ignoring the case of s's ASCII letters.
func equalFoldASCII(s, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// indexFold finds lower (lower case, not ASCII) in s ignoring case, rune
// by rune: where it starts in s and how many bytes of s matched.
func indexFold(s, lower string) (int, int) {
	want := []rune(lower)
	for i := range s {
		j, k := i, 0
		for k < len(want) && j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if !equalRuneFold(r, want[k]) {
				break
			}
			j += size
			k++
		}
		if k == len(want) {
			return i, j - i
		}
	}
	return -1, 0
}

// equalRuneFold reports whether a and b are the same letter in some case
// (Unicode simple folding).
func equalRuneFold(a, b rune) bool {
	if a == b {
		return true
	}
	for r := unicode.SimpleFold(a); r != a; r = unicode.SimpleFold(r) {
		if r == b {
			return true
		}
	}
	return false
}

func hasUpper(s string) bool {
	for _, r := range s {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}
