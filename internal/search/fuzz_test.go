package search

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
)

// FuzzExcerpt feeds outside text through the path every hit takes (Clean,
// Match, Excerpt): what comes out is valid UTF-8 with no control or
// bidirectional character, holds the match, and is bounded.
func FuzzExcerpt(f *testing.F) {
	f.Add("fix the parser", "parser")
	f.Add("\x1b]52;c;aGk=\x07parser\u202e", "parser")
	f.Add("\xff\xfe par\x9b2Jser", "PAR")
	f.Fuzz(func(t *testing.T, line, word string) {
		q, err := Parse(Fields(word))
		if err != nil {
			return
		}
		s := Clean(line)
		start, end, ok := q.Match(s)
		if !ok {
			return
		}
		ex := Excerpt(s, start, end)
		if !utf8.ValidString(ex) {
			t.Fatalf("excerpt %q is not UTF-8", ex)
		}
		if why := clean(ex); why != "" {
			t.Fatalf("excerpt %q of %q has %s", ex, line, why)
		}
		if n := utf8.RuneCountInString(ex); n > excerptRunes+2+len([]rune(s[start:end])) {
			t.Fatalf("excerpt of %d characters", n)
		}
		if !strings.Contains(strings.Join(strings.Fields(ex), " "), strings.Join(strings.Fields(s[start:end]), " ")) {
			t.Fatalf("excerpt %q lost the match %q", ex, s[start:end])
		}
	})
}

// FuzzMatchRaw holds the filter of a log's raw lines to what it promises:
// a line of JSON whose text, decoded and cleaned as a hit's is, holds every
// word is never skipped.
func FuzzMatchRaw(f *testing.F) {
	f.Add("we fixed the zebra parser", "zebra")
	f.Add("ze\u202ebra", "zebra")
	f.Add("ze\x1b]0;\nx\x07bra", "zebra")
	f.Add("caf\u00e9 <b>", "caf")
	f.Add("ze\rbra ze\fbra ze\bbra", "zebra") // short escapes of controls Clean drops
	f.Fuzz(func(t *testing.T, text, word string) {
		q, err := Parse(Fields(word))
		if err != nil {
			return
		}
		raw, err := json.Marshal(map[string]string{"content": text})
		if err != nil {
			return
		}
		for _, l := range strings.Split(plaintext.Clean(text), "\n") {
			if _, _, ok := q.Match(Clean(l)); ok && !q.MatchRaw(raw) {
				t.Fatalf("MatchRaw skips %s, whose line %q holds %q", raw, Clean(l), q.Words())
			}
		}
	})
}
