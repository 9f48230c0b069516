package screen

import (
	"sync"
	"sync/atomic"
	"unicode"

	"github.com/mattn/go-runewidth"
)

// Color is a cell colour: the zero value is the terminal's default colour,
// other values are an indexed colour (see IndexedColor) or a true colour (see
// RGBColor).
type Color uint32

const (
	colorKindMask    Color = 0xff000000
	colorKindIndexed Color = 0x01000000
	colorKindRGB     Color = 0x02000000
)

// DefaultColor is the terminal's default foreground or background colour.
const DefaultColor Color = 0

// IndexedColor returns the colour with the given palette index (0-15 are the
// standard and bright colours, 16-255 the 256-colour cube and greys).
func IndexedColor(n uint8) Color { return colorKindIndexed | Color(n) }

// RGBColor returns the true colour with the given components.
func RGBColor(r, g, b uint8) Color {
	return colorKindRGB | Color(r)<<16 | Color(g)<<8 | Color(b)
}

// IsDefault reports whether c is the terminal's default colour.
func (c Color) IsDefault() bool { return c == DefaultColor }

// Index returns the palette index of an indexed colour and true, or 0 and
// false for the default colour and true colours.
func (c Color) Index() (uint8, bool) {
	if c&colorKindMask != colorKindIndexed {
		return 0, false
	}
	return uint8(c), true
}

// RGB returns the components of a true colour and true, or zeros and false for
// the default colour and indexed colours.
func (c Color) RGB() (r, g, b uint8, ok bool) {
	if c&colorKindMask != colorKindRGB {
		return 0, 0, 0, false
	}
	return uint8(c >> 16), uint8(c >> 8), uint8(c), true
}

// Attr is a set of text attributes selected by SGR.
type Attr uint8

// The text attributes a cell can carry.
const (
	// Bold is SGR 1.
	Bold Attr = 1 << iota
	// Faint is SGR 2.
	Faint
	// Italic is SGR 3.
	Italic
	// Underline is SGR 4 (any underline style).
	Underline
	// Blink is SGR 5 or 6.
	Blink
	// Reverse is SGR 7.
	Reverse
	// Conceal is SGR 8.
	Conceal
	// Strikethrough is SGR 9.
	Strikethrough
)

// Style is the colours and attributes of a cell.
type Style struct {
	// FG is the foreground colour.
	FG Color
	// BG is the background colour.
	BG Color
	// Attrs are the text attributes.
	Attrs Attr
}

// Cell is one screen cell as seen by a caller of Screen.Cell.
type Cell struct {
	// Content is the cell's grapheme: its base character followed by any
	// combining characters, " " for a blank cell, "" for the right half of a
	// wide character.
	Content string
	// Width is the number of columns the content covers: 1, 2 for a wide
	// character, 0 for the right half of a wide character.
	Width int
	// Style is the cell's colours and attributes.
	Style Style
}

// Cell flags.
const (
	flagWide = 1 << iota // left half of a wide character
	flagCont             // right half of a wide character
)

// cell is the compact internal form of a cell (16 bytes). Its zero value is a
// blank cell in the default style.
type cell struct {
	r     rune // 0 means blank
	fg    Color
	bg    Color
	attr  Attr
	flags uint8
	comb  uint16 // 1-based index into row.extra, 0 for none
}

func (c *cell) style() Style { return Style{FG: c.fg, BG: c.bg, Attrs: c.attr} }

// blankDefault reports whether c is a blank cell in the default style, the
// kind of cell that is trimmed from the end of a line.
func (c *cell) blankDefault() bool {
	return *c == cell{} || *c == cell{r: ' '}
}

// row is one line of the live screen, n cells wide. Its cells are
// allocated when first written (live): until then cells is nil and the row
// reads as n blank cells in the default style, so a screen costs what its
// program wrote, not rows x cols cells from the start.
type row struct {
	cells   []cell // nil, or n cells
	n       int
	extra   []string // combining characters, referenced by cell.comb
	wrapped bool     // the line continues on the next row (autowrap)
	// hi bounds the cells written since the row was last blanked: every
	// cell from hi on is the zero cell. It spares clearing and encoding
	// the blank rest of a short line, and tells printing whether it
	// extends the row (see keptLine).
	hi int
	// stamp names this version of the row (see Screen.Stamps): every
	// change to the row clears it, and Stamps gives it a new one.
	stamp uint64
	// kept is the row's scrollback encoding, kept up while the row is
	// printed left to right from blank (see keptLine).
	kept keptLine
}

// stamps numbers row versions, across every screen, so that no two rows
// or versions of a row ever share a stamp.
var stamps atomic.Uint64

// touch records that the row's cells or flags changed: its next stamp is
// new, and its kept encoding is dropped. A flood changes each row many
// times between two looks at it; the stamp is drawn once, when asked for
// (Screen.Stamps).
func (r *row) touch() {
	r.stamp = 0
	r.kept.ok = false
}

// restamp is touch for a change the kept encoding follows: printing that
// extends it, or the wrapped flag, which is encoded when the line is.
func (r *row) restamp() { r.stamp = 0 }

// stampNow returns the row's stamp, drawing a new one if it changed.
func (r *row) stampNow() uint64 {
	if r.stamp == 0 {
		r.stamp = stamps.Add(1)
	}
	return r.stamp
}

// newRow returns a blank row cols wide, its cells not yet allocated.
func newRow(cols int) *row {
	r := &row{n: cols}
	r.kept.restart()
	return r
}

// live returns the row's cells, allocating them blank on first use: every
// write to a cell goes through it (or, printing, liveTo). The caller may
// change any cell, so the kept encoding is dropped.
func (r *row) live() []cell {
	r.kept.ok = false
	return r.liveTo(r.n)
}

// liveTo is live for a caller that leaves every cell from end on as it is
// or sets it to the zero cell.
func (r *row) liveTo(end int) []cell {
	if r.cells == nil && r.n > 0 {
		r.cells = make([]cell, r.n)
	}
	r.hi = max(r.hi, end)
	return r.cells
}

// reset blanks the whole row with background bg.
func (r *row) reset(bg Color) {
	r.touch()
	if bg == 0 {
		clear(r.cells[:min(r.hi, len(r.cells))])
		r.hi = 0
		r.kept.restart()
	} else {
		c := r.live()
		for i := range c {
			c[i] = cell{bg: bg}
		}
	}
	r.extra = r.extra[:0]
	r.wrapped = false
}

// blank blanks cells [from, to) with background bg, also blanking the other
// half of any wide character cut by the range.
func (r *row) blank(from, to int, bg Color) {
	n := r.n
	from = max(from, 0)
	to = min(to, n)
	if from >= to {
		return
	}
	r.touch()
	if r.cells == nil && bg == 0 {
		return // blank already
	}
	// Blanking in the default background leaves nothing past hi.
	if bg == 0 {
		r.liveTo(0)
	} else {
		r.live()
	}
	if r.cells[from].flags&flagCont != 0 && from > 0 {
		r.cells[from-1] = cell{bg: r.cells[from-1].bg}
	}
	if to < n && r.cells[to].flags&flagCont != 0 {
		r.cells[to] = cell{bg: r.cells[to].bg}
	}
	for i := from; i < to; i++ {
		r.cells[i] = cell{bg: bg}
	}
}

// fixWide repairs wide characters whose other half is missing, which can
// happen after cells are shifted or the row is truncated.
func (r *row) fixWide() {
	r.touch()
	n := len(r.cells) // 0 for a row not yet written: no wide characters
	for i := 0; i < n; i++ {
		c := &r.cells[i]
		switch {
		case c.flags&flagWide != 0:
			if i+1 >= n || r.cells[i+1].flags&flagCont == 0 {
				*c = cell{bg: c.bg}
			} else {
				i++
			}
		case c.flags&flagCont != 0:
			*c = cell{bg: c.bg}
		}
	}
}

// addCombining appends combining characters s to cell i.
func (r *row) addCombining(i int, s string) {
	r.touch()
	c := &r.live()[i]
	if c.comb != 0 {
		r.extra[c.comb-1] += s
		return
	}
	if len(r.extra) >= 4*len(r.cells)+16 || len(r.extra) >= 0xfff0 {
		r.compactExtra()
		if len(r.extra) >= 0xfff0 {
			return
		}
	}
	r.extra = append(r.extra, s)
	c.comb = uint16(len(r.extra))
}

// compactExtra drops combining strings no longer referenced by a cell.
func (r *row) compactExtra() {
	old := r.extra
	r.extra = make([]string, 0, len(r.cells))
	for i := range r.cells {
		c := &r.cells[i]
		if c.comb != 0 {
			r.extra = append(r.extra, old[c.comb-1])
			c.comb = uint16(len(r.extra))
		}
	}
}

// combining returns the combining characters of cell c in this row.
func (r *row) combining(c *cell) string {
	if c.comb == 0 || int(c.comb) > len(r.extra) {
		return ""
	}
	return r.extra[c.comb-1]
}

// widthPages caches the width of the runes of the first four planes (the
// rest are private use, tags or unassigned), in pages of 256 runes: a page
// is filled at the first look-up of a rune in it and read-only afterwards,
// so output in a script or of emoji costs a few pages, and no page is
// filled before a rune needs it.
var widthPages [widthCached / widthPageSize]widthPage

const (
	widthCached   = 0x40000
	widthPageSize = 256
)

type widthPage struct {
	once sync.Once
	w    [widthPageSize]uint8
}

var widthCond = runewidth.Condition{EastAsianWidth: false, StrictEmojiNeutral: true}

// zeroWidthTables are the classes of runes that never advance the cursor.
var zeroWidthTables = []*unicode.RangeTable{unicode.Mn, unicode.Me, unicode.Cf}

func computeWidth(r rune) uint8 {
	if r < 0x20 || (r >= 0x7f && r < 0xa0) {
		return 0
	}
	if unicode.In(r, zeroWidthTables...) {
		return 0
	}
	w := widthCond.RuneWidth(r)
	if w > 2 {
		w = 2
	}
	return uint8(w)
}

// runeWidth returns the number of columns r advances the cursor: 0 for
// combining and format characters, 2 for wide characters, else 1. The same
// function measures runes when they are written and when scrollback lines are
// decoded, so both always agree.
func runeWidth(r rune) int {
	if r < 0x7f {
		if r >= 0x20 {
			return 1
		}
		return 0
	}
	if r < widthCached {
		pg := &widthPages[r/widthPageSize]
		pg.once.Do(func() {
			base := r &^ (widthPageSize - 1)
			for i := range pg.w {
				pg.w[i] = computeWidth(base + rune(i))
			}
		})
		return int(pg.w[r%widthPageSize])
	}
	return int(computeWidth(r))
}
