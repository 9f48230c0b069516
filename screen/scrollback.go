package screen

import (
	"encoding/binary"
	"unicode/utf8"
)

// sbBlockSize is the size of one scrollback storage block. Lines are packed
// one after another into blocks; a block is freed when its last line is
// evicted, so the scrollback costs its encoded bytes plus at most about two
// blocks, and no allocation per line.
const sbBlockSize = 32 << 10

// sbBlock holds encoded lines back to back, each prefixed by its length.
type sbBlock struct {
	buf   []byte
	lines int // lines still in the scrollback
}

// lineRef locates one line: the sequence number of its block and its offset.
type lineRef struct {
	blk uint32
	off uint32
}

// scrollback is a FIFO ring of at most max encoded lines. Lines are added at
// the newest end and evicted at the oldest, both in O(1).
type scrollback struct {
	max      int
	refs     []lineRef // ring; grows up to max entries
	head     int       // index in refs of the oldest line
	n        int
	blocks   []*sbBlock // blocks[0] has sequence number firstSeq
	firstSeq uint32
	spare    *sbBlock
}

func (sb *scrollback) init(max int) { *sb = scrollback{max: max} }

func (sb *scrollback) len() int { return sb.n }

// clear drops every line (ED 3).
func (sb *scrollback) clear() { sb.init(sb.max) }

// push adds an encoded line at the newest end, evicting the oldest at capacity.
func (sb *scrollback) push(line []byte) {
	if sb.max == 0 {
		return
	}
	if sb.n == sb.max {
		sb.dropOldest()
	}
	need := binary.MaxVarintLen64 + len(line)
	var b *sbBlock
	if k := len(sb.blocks); k > 0 && cap(sb.blocks[k-1].buf)-len(sb.blocks[k-1].buf) >= need {
		b = sb.blocks[k-1]
	} else {
		b = sb.newBlock(need)
		sb.blocks = append(sb.blocks, b)
	}
	off := len(b.buf)
	b.buf = binary.AppendUvarint(b.buf, uint64(len(line)))
	b.buf = append(b.buf, line...)
	b.lines++
	ref := lineRef{blk: sb.firstSeq + uint32(len(sb.blocks)-1), off: uint32(off)}
	if len(sb.refs) < sb.max {
		// The ring has not reached its full size yet, so head is 0.
		if sb.n < len(sb.refs) {
			sb.refs[sb.n] = ref
		} else {
			sb.refs = append(sb.refs, ref)
		}
	} else {
		sb.refs[(sb.head+sb.n)%sb.max] = ref
	}
	sb.n++
}

func (sb *scrollback) newBlock(need int) *sbBlock {
	if b := sb.spare; b != nil && cap(b.buf) >= need {
		sb.spare = nil
		b.buf, b.lines = b.buf[:0], 0
		return b
	}
	return &sbBlock{buf: make([]byte, 0, max(sbBlockSize, need))}
}

func (sb *scrollback) block(ref lineRef) *sbBlock { return sb.blocks[ref.blk-sb.firstSeq] }

// dropOldest evicts the oldest line, freeing its block if it was the last
// line in it.
func (sb *scrollback) dropOldest() {
	sb.block(sb.refs[sb.head]).lines--
	sb.head = (sb.head + 1) % len(sb.refs)
	sb.n--
	for len(sb.blocks) > 1 && sb.blocks[0].lines == 0 {
		sb.spare = sb.blocks[0]
		copy(sb.blocks, sb.blocks[1:])
		sb.blocks[len(sb.blocks)-1] = nil
		sb.blocks = sb.blocks[:len(sb.blocks)-1]
		sb.firstSeq++
	}
}

// popNewest removes the newest line (used when the screen grows and lines
// come back from the scrollback).
func (sb *scrollback) popNewest() {
	if sb.n == 0 {
		return
	}
	ref := sb.refs[(sb.head+sb.n-1)%len(sb.refs)]
	b := sb.block(ref)
	b.buf = b.buf[:ref.off]
	b.lines--
	sb.n--
	if b.lines == 0 && len(sb.blocks) > 1 {
		sb.spare = b
		sb.blocks[len(sb.blocks)-1] = nil
		sb.blocks = sb.blocks[:len(sb.blocks)-1]
	}
}

// line returns the encoded line i (0 = oldest). The bytes are only valid
// until the scrollback changes.
func (sb *scrollback) line(i int) []byte {
	ref := sb.refs[(sb.head+i)%len(sb.refs)]
	buf := sb.block(ref).buf[ref.off:]
	l, k := binary.Uvarint(buf)
	return buf[k : k+int(l)]
}

// Encoded line layout:
//
//	flags byte: lineWrapped, lineStyled
//	if lineStyled: uvarint text length
//	text: the cells as UTF-8 (blank cells as spaces, wide characters once,
//	      combining characters after their base), trailing default blanks trimmed
//	if lineStyled: runs to the end, each uvarint cell count, a mask byte
//	      (bits 0-1 fg kind, 2-3 bg kind, 4 attrs present), then the fg
//	      (1 or 3 bytes), bg (1 or 3 bytes) and attrs (1 byte) present.
const (
	lineWrapped = 1 << iota
	lineStyled
)

// lineText returns the text part of an encoded line.
func lineText(line []byte) []byte {
	if len(line) == 0 {
		return nil
	}
	if line[0]&lineStyled == 0 {
		return line[1:]
	}
	l, k := binary.Uvarint(line[1:])
	return line[1+k : 1+k+int(l)]
}

// lineEncoder encodes rows into scrollback lines, reusing its buffers.
type lineEncoder struct {
	text, runs, out []byte
}

// keptLine is a row's scrollback encoding made as the row is printed: the
// text and the closed style runs that lineEncoder.encode makes of cells
// [0, hi), kept while every change to the row since it was blanked printed
// characters at or past hi. A flood's line is so encoded as its characters
// go by, instead of read back from its cells when it scrolls off, 45 lines
// later.
type keptLine struct {
	ok       bool
	text     []byte
	runs     []byte
	cur      Style // the style of the open run
	runStart int   // the cell the open run starts at
}

// restart starts the encoding of a blank row.
func (k *keptLine) restart() {
	k.ok, k.text, k.runs, k.cur, k.runStart = true, k.text[:0], k.runs[:0], Style{}, 0
}

// add accounts for cells printed in style st from x, on a row whose cells
// from hi on were blank: the blanks between hi and x first, as encode sees
// them. The caller appends the characters' text.
func (k *keptLine) add(hi, x int, st Style) {
	if x > hi {
		k.style(hi, Style{})
		for range x - hi {
			k.text = append(k.text, ' ')
		}
	}
	k.style(x, st)
}

// style starts a run of style st at cell x, unless the open run has it.
func (k *keptLine) style(x int, st Style) {
	if st == k.cur {
		return
	}
	if x > k.runStart {
		k.runs = binary.AppendUvarint(k.runs, uint64(x-k.runStart))
		k.runs = appendStyle(k.runs, k.cur)
	}
	k.cur, k.runStart = st, x
}

// encode returns the compact encoding of r, valid until the next call.
func (e *lineEncoder) encode(r *row) []byte {
	if r.kept.ok {
		return e.encodeKept(r)
	}
	cells := r.cells
	end := min(r.hi, len(cells))
	for end > 0 && cells[end-1].blankDefault() {
		end--
	}
	text, runs := e.text[:0], e.runs[:0]
	var cur Style // style of the run being built
	runStart := 0
	for i := 0; i < end; i++ {
		c := &cells[i]
		if c.fg != cur.FG || c.bg != cur.BG || c.attr != cur.Attrs {
			if i > runStart {
				runs = binary.AppendUvarint(runs, uint64(i-runStart))
				runs = appendStyle(runs, cur)
			}
			cur, runStart = c.style(), i
		}
		if c.flags == 0 && c.comb == 0 && c.r < utf8.RuneSelf {
			// Most cells are ASCII or blank, in runs of one style:
			// take the run in one go.
			j := i
			for {
				b := byte(c.r)
				if b == 0 {
					b = ' '
				}
				text = append(text, b)
				if j++; j == end {
					break
				}
				c = &cells[j]
				if c.r >= utf8.RuneSelf || c.flags != 0 || c.comb != 0 || c.fg != cur.FG || c.bg != cur.BG || c.attr != cur.Attrs {
					break
				}
			}
			i = j - 1
			continue
		}
		if c.flags == 0 && c.comb == 0 {
			text = utf8.AppendRune(text, c.r)
			continue
		}
		switch {
		case c.flags&flagCont != 0:
			if i > 0 && cells[i-1].flags&flagWide != 0 {
				continue
			}
			text = append(text, ' ') // a lone right half
		case c.flags&flagWide != 0 && (i+1 >= len(cells) || cells[i+1].flags&flagCont == 0):
			text = append(text, ' ') // a lone left half
		case c.r == 0:
			text = append(text, ' ')
		default:
			text = utf8.AppendRune(text, c.r)
		}
		if c.comb != 0 {
			text = append(text, r.combining(c)...)
		}
	}
	// A last run in the default style is left out: decoding defaults to it.
	if cur != (Style{}) {
		runs = binary.AppendUvarint(runs, uint64(end-runStart))
		runs = appendStyle(runs, cur)
	}
	out := appendLine(e.out[:0], r.wrapped, text, runs, Style{}, 0)
	e.text, e.runs, e.out = text, runs, out
	return out
}

// appendLine frames a scrollback line onto out: its flags, then its text
// alone when all of it is in the default style, else the text's length,
// the text and its style runs, closed by the open run (n cells in open)
// when that is not the default.
func appendLine(out []byte, wrapped bool, text, runs []byte, open Style, n int) []byte {
	var flags byte
	if wrapped {
		flags |= lineWrapped
	}
	if len(runs) == 0 && open == (Style{}) {
		out = append(out, flags)
		return append(out, text...)
	}
	out = append(out, flags|lineStyled)
	out = binary.AppendUvarint(out, uint64(len(text)))
	out = append(out, text...)
	out = append(out, runs...)
	if open != (Style{}) {
		out = binary.AppendUvarint(out, uint64(n))
		out = appendStyle(out, open)
	}
	return out
}

// encodeKept is encode of a row whose encoding was kept: the kept text and
// runs, trimmed and closed as encode would.
func (e *lineEncoder) encodeKept(r *row) []byte {
	k := &r.kept
	text, end := k.text, r.hi
	if k.cur == (Style{}) {
		// Trailing blanks in the default style are left out; they are
		// spaces of the open run, one cell each.
		for end > k.runStart && text[len(text)-1] == ' ' {
			text = text[:len(text)-1]
			end--
		}
	}
	e.out = appendLine(e.out[:0], r.wrapped, text, k.runs, k.cur, end-k.runStart)
	return e.out
}

func colorKind(c Color) byte {
	switch c & colorKindMask {
	case colorKindIndexed:
		return 1
	case colorKindRGB:
		return 2
	}
	return 0
}

func appendColor(dst []byte, c Color) []byte {
	switch c & colorKindMask {
	case colorKindIndexed:
		return append(dst, byte(c))
	case colorKindRGB:
		return append(dst, byte(c>>16), byte(c>>8), byte(c))
	}
	return dst
}

func appendStyle(dst []byte, st Style) []byte {
	mask := colorKind(st.FG) | colorKind(st.BG)<<2
	if st.Attrs != 0 {
		mask |= 1 << 4
	}
	dst = append(dst, mask)
	dst = appendColor(dst, st.FG)
	dst = appendColor(dst, st.BG)
	if st.Attrs != 0 {
		dst = append(dst, byte(st.Attrs))
	}
	return dst
}

// readColor decodes a colour of the given kind from b.
func readColor(b []byte, kind byte) (Color, []byte) {
	switch kind {
	case 1:
		if len(b) >= 1 {
			return IndexedColor(b[0]), b[1:]
		}
	case 2:
		if len(b) >= 3 {
			return RGBColor(b[0], b[1], b[2]), b[3:]
		}
	}
	return DefaultColor, b
}

// runReader walks the style runs of an encoded line.
type runReader struct {
	b    []byte
	left int
	st   Style
}

// next returns the style of the next cell.
func (rr *runReader) next() Style {
	for rr.left == 0 {
		if len(rr.b) == 0 {
			rr.st = Style{}
			return rr.st
		}
		n, k := binary.Uvarint(rr.b)
		if k <= 0 || len(rr.b) <= k {
			rr.b = nil
			continue
		}
		mask := rr.b[k]
		b := rr.b[k+1:]
		var st Style
		st.FG, b = readColor(b, mask&3)
		st.BG, b = readColor(b, mask>>2&3)
		if mask&(1<<4) != 0 && len(b) > 0 {
			st.Attrs = Attr(b[0])
			b = b[1:]
		}
		rr.b, rr.st, rr.left = b, st, int(min(n, 1<<30))
	}
	rr.left--
	return rr.st
}

// decodeLine decodes an encoded line into r, truncating it to r's width.
func decodeLine(line []byte, r *row) {
	r.reset(0)
	if len(line) == 0 {
		return
	}
	r.wrapped = line[0]&lineWrapped != 0
	text := lineText(line)
	var rr runReader
	if line[0]&lineStyled != 0 {
		_, k := binary.Uvarint(line[1:])
		rr.b = line[1+k+len(text):]
	}
	cols := r.n
	r.live()
	x := 0
	for i := 0; i < len(text); {
		ru, size := rune(text[i]), 1
		if ru >= utf8.RuneSelf {
			ru, size = utf8.DecodeRune(text[i:])
		}
		i += size
		w := runeWidth(ru)
		if w == 0 {
			if x > 0 {
				p := x - 1
				if r.cells[p].flags&flagCont != 0 && p > 0 {
					p--
				}
				r.addCombining(p, string(ru))
			}
			continue
		}
		if x+w > cols {
			return
		}
		st := rr.next()
		c := cell{r: ru, fg: st.FG, bg: st.BG, attr: st.Attrs}
		if ru == ' ' {
			c.r = 0
		}
		if w == 2 {
			rr.next()
			c.flags = flagWide
			r.cells[x] = c
			c.r, c.flags = 0, flagCont
			r.cells[x+1] = c
		} else {
			r.cells[x] = c
		}
		x += w
	}
}
