package screen

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// lineWords are what the random lines are made of: plain words, blanks,
// colours (a background too: a blank in it is no blank), wide
// characters, an emoji, and letters with a combining accent (a cell of
// two runes, whose first is a letter alone elsewhere).
var lineWords = []string{
	"a", "bc", "def", " ", "   ", "\x1b[31mred\x1b[0m", "\x1b[1;32mbold\x1b[0m", "\x1b[44m  \x1b[0m",
	"日本", "🙂", "λ", "\x1b[7mrev\x1b[27m", "x\x1b[4mu\x1b[24my", "e\u0301", "e\u0301a",
}

// randomLine is a line of width cols as RenderRow draws it, from random
// words, with the cursor drawn in reverse at a random column half of the
// time.
func randomLine(rng *rand.Rand, cols int) string {
	s := New(cols, 1, 0)
	for range rng.IntN(12) {
		s.Write([]byte(lineWords[rng.IntN(len(lineWords))]))
	}
	line := s.RenderRow(0)
	if rng.IntN(2) == 0 {
		line = WithCursor(line, rng.IntN(cols), cols, reverseCursor)
	}
	return line
}

// reverseCursor draws the cursor's cell in reverse, as the TUI does.
func reverseCursor(c string) string { return "\x1b[7m" + c + "\x1b[27m" }

// drawn is the screen's first row with its cursor, as a lent pane sends it.
func drawn(s *Screen, cols int) string {
	return WithCursor(s.RenderRow(0), s.cur.x, cols, reverseCursor)
}

// keyTyped is a line showing text, with the cursor after it, before and
// after key is typed.
func keyTyped(cols int, text, key string) (before, after string) {
	s := New(cols, 1, 0)
	s.Write([]byte(text))
	before = drawn(s, cols)
	s.Write([]byte(key))
	return before, drawn(s, cols)
}

// typed is line with a few more keys typed at its end, or some taken back:
// the change a key's echo makes.
func typed(rng *rand.Rand, cols int, words []string) (before, after string) {
	s := New(cols, 1, 0)
	for _, w := range words {
		s.Write([]byte(w))
	}
	before = drawn(s, cols)
	if rng.IntN(3) == 0 {
		s.Write([]byte("\b\x1b[K"))
	} else {
		s.Write([]byte(lineWords[rng.IntN(3)]))
	}
	return before, drawn(s, cols)
}

// shown is what a terminal shows after it was sent draws, in turn.
func shown(cols int, draws ...string) string {
	s := New(cols, 1, 0)
	for _, d := range draws {
		s.Write([]byte(d))
	}
	return s.RenderRow(0)
}

// checkChange draws old, then the change to new from its column, on an
// emulated terminal, and wants it to show what new drawn whole shows.
func checkChange(t *testing.T, cols int, old, new string) (change string, changed bool) {
	t.Helper()
	out, col, changed := AppendLineChange(nil, old, new)
	want := shown(cols, "\x1b[0m"+new+"\x1b[0m")
	drawn := "\x1b[0m" + old + "\x1b[0m"
	if changed {
		drawn += fmt.Sprintf("\x1b[1;%dH\x1b[0m", col+1) + string(out)
	} else if len(out) > 0 {
		t.Fatalf("AppendLineChange(%q, %q) appended %q and said nothing changed", old, new, out)
	}
	if got := shown(cols, drawn); got != want {
		t.Fatalf("old %q, new %q: the change %q from column %d (changed %v) shows\n%q\nwant\n%q", old, new, out, col, changed, got, want)
	}
	return string(out), changed
}

// TestLineChangeDrawsWhatTheWholeLineWould: on random lines, and on lines
// typed into, the change drawn over the old line shows the new line.
func TestLineChangeDrawsWhatTheWholeLineWould(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 44))
	for _, cols := range []int{1, 2, 7, 40, 160} {
		for range 400 {
			checkChange(t, cols, randomLine(rng, cols), randomLine(rng, cols))
			var words []string
			for range rng.IntN(8) {
				words = append(words, lineWords[rng.IntN(len(lineWords))])
			}
			before, after := typed(rng, cols, words)
			checkChange(t, cols, before, after)
			checkChange(t, cols, after, before)
		}
	}
}

// TestLineChangeOfAKeyIsSmall: a key typed at the end of a line, on a wide
// pane, is drawn as the key and the cursor after it, not as the line.
func TestLineChangeOfAKeyIsSmall(t *testing.T) {
	const cols = 160
	before, after := keyTyped(cols, "$ echo \x1b[32mhi\x1b[0m there", "x")
	change, changed := checkChange(t, cols, before, after)
	if !changed {
		t.Fatal("a key typed changed nothing")
	}
	if want := "x\x1b[0m\x1b[7m \x1b[0m"; change != want {
		t.Errorf("the key's change is %q, want %q", change, want)
	}
	// Taken back: the cursor, and a blank where the key was.
	change, _ = checkChange(t, cols, after, before)
	if want := "\x1b[0m\x1b[7m \x1b[0m "; change != want {
		t.Errorf("the backspace's change is %q, want %q", change, want)
	}
	if _, changed := checkChange(t, cols, after, after); changed {
		t.Error("a line drawn again as it is says it changed")
	}
	// A style in force where the change starts is set again first.
	s := New(cols, 1, 0)
	s.Write([]byte("\x1b[1;34mblue"))
	before = s.RenderRow(0)
	s.Write([]byte("r"))
	change, _ = checkChange(t, cols, before, s.RenderRow(0))
	if !strings.HasPrefix(change, "\x1b[1;34m") {
		t.Errorf("the change %q does not set the style in force first", change)
	}
}

// BenchmarkLineChange: the change of a key typed at the end of a line of
// a 160-column pane (the cells after the first that differs are walked),
// and of a line scrolled into place (drawn whole at once).
func BenchmarkLineChange(b *testing.B) {
	const cols = 160
	before, after := keyTyped(cols, "$ go test \x1b[32m./...\x1b[0m -run TestSomething -count=1 and some more words", "x")
	other := New(cols, 1, 0)
	other.Write([]byte("\x1b[34mfunc\x1b[0m main() { fmt.Println(\"hello, world\") } // a line of the flood"))
	scrolled := other.RenderRow(0)
	var buf []byte
	b.Run("key", func(b *testing.B) {
		for b.Loop() {
			buf, _, _ = AppendLineChange(buf[:0], before, after)
		}
	})
	b.Run("scrolled", func(b *testing.B) {
		for b.Loop() {
			buf, _, _ = AppendLineChange(buf[:0], before, scrolled)
		}
	})
}
