package textarea

import (
	"strings"
	"testing"
)

// acpmux-tui's patch: a new or reset text area holds the lines it has, not
// a 10,000-line array (240 kB each), and still stops at maxLines.
func TestValueGrowsWithTheText(t *testing.T) {
	m := New()
	if c := cap(m.value); c > 16 {
		t.Fatalf("a new text area reserves %d lines", c)
	}
	m.SetValue("a\nb\nc")
	if got := m.Value(); got != "a\nb\nc" {
		t.Fatalf("value %q after SetValue", got)
	}
	m.Reset()
	if c := cap(m.value); c > 16 {
		t.Fatalf("a reset text area reserves %d lines", c)
	}
	m.CharLimit = 0
	m.MaxHeight = 0
	m.InsertString(strings.Repeat("x\n", maxLines+5))
	if n := m.LineCount(); n != maxLines {
		t.Fatalf("pasting %d lines gave %d, want the limit %d", maxLines+6, n, maxLines)
	}
}
