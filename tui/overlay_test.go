package tui

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestOverlayKeepsColumnsUnderWideCharacters: a box drawn over a line
// whose wide characters its edges cut in two leaves the line as wide as it
// was, the rest of it in its columns (a blank where half a character
// would be), so the borders under it stay where they were.
func TestOverlayKeepsColumnsUnderWideCharacters(t *testing.T) {
	for _, c := range []struct {
		bg, want string
	}{
		// The box goes in columns 2 to 4.
		{"ab漢字cd|", "ab[B] cd|"},    // its right edge cuts 字
		{"a漢bcdefg|", "a [B]defg|"}, // its left edge cuts 漢
		{"a漢bc字d|", "a [B]字d|"},     // the left cut, 字 whole after it
		{"a漢b字d|", "a [B] d|"},      // both
		{"abcdefg|", "ab[B]fg|"},
	} {
		lines := []string{c.bg}
		overlay(lines, []string{"[B]"}, 8, 1)
		if lines[0] != c.want || ansi.StringWidth(lines[0]) != ansi.StringWidth(c.bg) {
			t.Errorf("[B] over %q: %q, want %q", c.bg, lines[0], c.want)
		}
	}
}
