package screen

import (
	"sync"
	"testing"

	"github.com/mattn/go-runewidth"
)

// TestLazyWidthTableSameWidths: the patched go-runewidth (third_party,
// its width table built at first use instead of in init) gives every rune
// the width the package's own lookup table (CreateLUT, built from the
// interval tables directly) gives it, for both the narrow and the East
// Asian condition; the first uses race from several goroutines, as the
// server's chats would.
func TestLazyWidthTableSameWidths(t *testing.T) {
	for _, eastAsian := range []bool{false, true} {
		lazy := &runewidth.Condition{EastAsianWidth: eastAsian, StrictEmojiNeutral: true}
		ref := &runewidth.Condition{EastAsianWidth: eastAsian, StrictEmojiNeutral: true}
		ref.CreateLUT()
		var wg sync.WaitGroup
		const parts = 4
		bad := make([]rune, parts)
		for p := range parts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				bad[p] = -1
				for r := rune(p); r <= 0x10FFFF; r += parts {
					if lazy.RuneWidth(r) != ref.RuneWidth(r) {
						bad[p] = r
						return
					}
				}
			}()
		}
		wg.Wait()
		for _, r := range bad {
			if r >= 0 {
				t.Fatalf("east asian %v: rune %U: width %d with the lazy table, %d with CreateLUT", eastAsian, r, lazy.RuneWidth(r), ref.RuneWidth(r))
			}
		}
	}
	// The condition the emulator uses, on runes whose widths are known.
	for _, c := range []struct {
		r    rune
		want int
	}{{'a', 1}, {'世', 2}, {'\u0301', 0}, {'😀', 2}, {'\u00a1', 1}} {
		if got := widthCond.RuneWidth(c.r); got != c.want {
			t.Errorf("widthCond.RuneWidth(%U) = %d, want %d", c.r, got, c.want)
		}
	}
}
