package screen

import (
	"strconv"
	"unicode/utf8"
)

// This file turns the screen back into bytes: what a terminal of the
// screen's size must be sent to show the screen as it is now, with the modes
// the program set. A client that attaches to a running harness draws this
// first, then the harness's raw output from that point on.

// Redraw returns the bytes that draw the screen as it is now on a terminal
// of the same size that shows something else, and set the modes the program
// set there: the alternate screen, cursor keys, keypad, bracketed paste,
// mouse tracking and encoding, focus events, insert, autowrap, origin, the
// scroll region, the character sets, the pen, the cursor's position, style
// and visibility, the saved cursor and the title. The scrollback is not sent.
//
// On the main screen, the terminal's lines are first pushed up into its
// scrollback (nothing of the user's is erased). On the alternate screen only
// the alternate screen is drawn, on the terminal's own alternate screen:
// when the program leaves it, or the terminal is given back, the terminal
// shows what it showed before.
func (s *Screen) Redraw() []byte {
	b := make([]byte, 0, s.rows*(s.cols+8)+256)
	// A known state to draw in: plain pen, whole-screen region, origin and
	// insert off, autowrap on (a character drawn in the last column waits
	// there, as the program's did), the cursor hidden, G0 ASCII and in use
	// (cells hold Unicode already).
	b = append(b, "\x1b[m\x1b[r\x1b[?6l\x1b[4l\x1b[?7h\x1b[?25l\x1b(B\x0f"...)
	if s.buf == s.alt {
		b = append(b, "\x1b[?1049h"...) // DECSET 1049: saves the cursor, clears
	} else {
		// From the bottom row, each line feed moves the top row into the
		// terminal's scrollback.
		b = appendCUP(b, s.rows, 1)
		for range s.rows {
			b = append(b, '\n')
		}
	}
	b = append(b, "\x1b[H\x1b[2J"...)
	for y, r := range s.buf.rows {
		n := len(r.cells)
		for n > 0 && r.cells[n-1].blankDefault() {
			n-- // the terminal's cells are blank already
		}
		if n == 0 {
			continue
		}
		b = appendCUP(b, y+1, 1)
		b = renderRow(b, &row{cells: r.cells[:n], n: n, extra: r.extra})
	}

	if s.buf.hasSaved {
		// DECSC in the terminal, so a DECRC of the program's finds it.
		sv := s.buf.saved
		b = appendCUP(b, sv.y+1, sv.x+1)
		b = appendSGR(b, Style{}, sv.pen)
		b = appendCharsets(b, sv.charsets, sv.gl)
		b = append(b, "\x1b7\x1b[m\x1b(B\x0f"...)
	}
	if s.top != 0 || s.bot != s.rows-1 {
		b = append(b, "\x1b["...) // DECSTBM
		b = strconv.AppendInt(b, int64(s.top+1), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(s.bot+1), 10)
		b = append(b, 'r')
	}
	m := s.modes
	private := func(on bool, mode int) {
		if on {
			b = append(b, "\x1b[?"...)
			b = strconv.AppendInt(b, int64(mode), 10)
			b = append(b, 'h')
		}
	}
	private(m.AppCursor, 1) // DECCKM
	private(m.MouseTracking != 0, m.MouseTracking)
	private(m.MouseSGR, 1006)    // SGR mouse encoding
	private(m.FocusEvents, 1004) // focus in/out reports
	private(m.BracketedPaste, 2004)
	if m.AppKeypad {
		b = append(b, "\x1b="...) // DECKPAM
	}
	if m.CursorStyle != 0 {
		b = append(b, "\x1b["...) // DECSCUSR
		b = strconv.AppendInt(b, int64(m.CursorStyle), 10)
		b = append(b, " q"...)
	}
	if s.title != "" {
		b = append(b, "\x1b]2;"...) // OSC 2: window title
		b = appendPrintable(b, s.title)
		b = append(b, '\a')
	}
	y := s.cur.y
	if s.cur.origin {
		b = append(b, "\x1b[?6h"...) // DECOM: addressing inside the region
		y -= s.top
	}
	if r := s.buf.rows[s.cur.y]; s.cur.wrapPending && m.Autowrap {
		// The next character wraps: print the last column again, so the
		// terminal's cursor waits there the same way.
		x := s.cur.x
		if x > 0 && r.live()[x].flags&flagCont != 0 {
			x--
		}
		b = appendCUP(b, y+1, x+1)
		b = renderRow(b, &row{cells: r.live()[x : s.cur.x+1], n: s.cur.x + 1 - x, extra: r.extra})
	} else {
		b = appendCUP(b, y+1, s.cur.x+1)
	}
	if !m.Autowrap {
		b = append(b, "\x1b[?7l"...) // DECAWM
	}
	if m.Insert {
		b = append(b, "\x1b[4h"...) // IRM
	}
	b = appendCharsets(b, s.cur.charsets, s.cur.gl)
	b = appendSGR(b, Style{}, s.cur.pen)
	private(m.CursorVisible, 25) // DECTCEM
	return b
}

// appendCUP appends CUP: the cursor to row, col (1-based).
func appendCUP(b []byte, row, col int) []byte {
	b = append(b, "\x1b["...)
	b = strconv.AppendInt(b, int64(row), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(col), 10)
	return append(b, 'H')
}

// appendCharsets designates G0 and G1 (SCS) and invokes one of them (SI/SO).
func appendCharsets(b []byte, sets [2]byte, gl uint8) []byte {
	for g, intro := range [2]string{"\x1b(", "\x1b)"} {
		if sets[g] == '0' {
			b = append(b, intro...)
			b = append(b, '0')
		}
	}
	if gl == 1 {
		b = append(b, 0x0e) // SO: G1 in use
	}
	return b
}

// appendPrintable appends s without control characters (C0, DEL, C1),
// which could end or escape the string s is sent in, and without invalid
// UTF-8; a U+FFFD that s holds as a character is kept.
func appendPrintable(b []byte, s string) []byte {
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == utf8.RuneError && size == 1 {
			continue
		}
		b = utf8.AppendRune(b, r)
	}
	return b
}
