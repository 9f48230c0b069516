package search

import (
	"errors"
	"strings"
	"testing"
)

func TestMatchRules(t *testing.T) {
	cases := []struct {
		words []string
		line  string
		want  bool
	}{
		{[]string{"parser"}, "fix the Parser today", true},           // no capital: case ignored
		{[]string{"Parser"}, "fix the parser today", false},          // a capital: as written
		{[]string{"Parser"}, "fix the Parser today", true},           //
		{[]string{"fix", "today"}, "fix the parser today", true},     // every word
		{[]string{"fix", "tomorrow"}, "fix the parser today", false}, // one missing
		{[]string{"the parser"}, "fix THE parser", true},             // a phrase
		{[]string{"the parser"}, "the  parser", false},               //
		{[]string{"émile"}, "hello ÉMILE", true},                     // not ASCII, case ignored
		{[]string{"x"}, "", false},
		{[]string{"ab"}, "aAb", true},  // a candidate that fails, then one that holds
		{[]string{"ab"}, "Aab", true},  //
		{[]string{"bb"}, "bab", false}, //
	}
	for _, c := range cases {
		q, err := Parse(c.words)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.words, err)
		}
		if _, _, got := q.Match(c.line); got != c.want {
			t.Errorf("%q in %q: got %v, want %v", c.words, c.line, got, c.want)
		}
		if c.want && !q.MatchRaw([]byte(c.line)) {
			t.Errorf("%q in %q: MatchRaw said no to a line that holds them", c.words, c.line)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, words := range [][]string{
		nil,
		{"", "  "},
		{"a\x1bb"},
		{strings.Repeat("x", 300)},
		{"\xff"},
		strings.Fields(strings.Repeat("w ", 17)),
	} {
		_, err := Parse(words)
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Errorf("Parse(%q): %v, want a UsageError", words, err)
		}
	}
}

func TestFields(t *testing.T) {
	got := Fields(`fix "the parser"  now`)
	if strings.Join(got, "|") != "fix|the parser|now" {
		t.Fatalf("Fields: %q", got)
	}
}

func TestExcerpt(t *testing.T) {
	line := strings.Repeat("a ", 60) + "needle" + strings.Repeat(" b", 200)
	q, _ := Parse([]string{"needle"})
	s, e, ok := q.Match(line)
	if !ok {
		t.Fatal("no match")
	}
	ex := Excerpt(line, s, e)
	if !strings.HasPrefix(ex, "…") || !strings.HasSuffix(ex, "…") || !strings.Contains(ex, "needle") {
		t.Fatalf("excerpt %q: want the match, cut at both ends", ex)
	}
	if n := len([]rune(ex)); n > excerptRunes+2 {
		t.Fatalf("excerpt of %d characters", n)
	}
	if ex := Excerpt("  short   needle  ", 10, 16); ex != "short needle" {
		t.Fatalf("short excerpt %q", ex)
	}
}

func TestCleanTakesOutWhatATerminalObeys(t *testing.T) {
	hostile := "ok \x1b]0;title\x07\x1b[2Jpar\u202eser\u2066 \x07bell\x9b1m"
	got := Clean(hostile)
	if clean(got) != "" {
		t.Fatalf("Clean(%q) = %q: %s", hostile, got, clean(got))
	}
	q, _ := Parse([]string{"parser"})
	if _, _, ok := q.Match(got); !ok {
		t.Fatalf("Clean(%q) = %q: the word the controls split is not found", hostile, got)
	}
}

// clean says what in s a terminal would obey or a reader not see, or "".
func clean(s string) string {
	for _, r := range s {
		switch {
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			return "a control character"
		case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x61c:
			return "a bidirectional control"
		}
	}
	return ""
}
