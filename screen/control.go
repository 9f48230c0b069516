package screen

import (
	"strconv"

	"github.com/charmbracelet/x/ansi"
)

// This file dispatches control characters, ESC sequences and CSI sequences.

// maxCount bounds repeat counts in sequences (n in CSI n A, etc.).
const maxCount = 1 << 16

// execute handles a C0 control character.
func (s *Screen) execute(b byte) {
	switch b {
	case ansi.BEL:
		s.ev.Bells++
	case ansi.BS:
		s.moveCol(-1)
	case ansi.HT:
		s.tab(1)
	case ansi.LF, ansi.VT, ansi.FF:
		s.cur.wrapPending = false
		s.index()
	case ansi.CR:
		s.cur.x = 0
		s.cur.wrapPending = false
	case ansi.SO:
		s.cur.gl = 1
	case ansi.SI:
		s.cur.gl = 0
	}
}

// handleEsc handles an ESC sequence.
func (s *Screen) handleEsc(cmd ansi.Cmd) {
	inter, final := cmd.Intermediate(), cmd.Final()
	switch inter {
	case 0:
	case '(', ')':
		g := 0
		if inter == ')' {
			g = 1
		}
		if final == '0' {
			s.cur.charsets[g] = '0'
		} else {
			s.cur.charsets[g] = 'B'
		}
		return
	case '#':
		if final == '8' {
			s.alignmentTest()
		}
		return
	default:
		return
	}
	switch final {
	case '7':
		s.saveCursor()
	case '8':
		s.restoreCursor()
	case 'D':
		s.cur.wrapPending = false
		s.index()
	case 'E':
		s.cur.x = 0
		s.cur.wrapPending = false
		s.index()
	case 'M':
		s.cur.wrapPending = false
		s.reverseIndex()
	case 'H':
		s.tabs[s.cur.x] = true
	case 'c':
		s.fullReset()
	case '=':
		s.modes.AppKeypad = true
	case '>':
		s.modes.AppKeypad = false
	}
}

// saveCursor is DECSC.
func (s *Screen) saveCursor() {
	s.buf.saved = s.cur
	s.buf.hasSaved = true
}

// restoreCursor is DECRC; without a saved cursor it homes the cursor and
// resets the pen, like xterm.
func (s *Screen) restoreCursor() {
	if !s.buf.hasSaved {
		s.cur = cursorState{charsets: [2]byte{'B', 'B'}}
		return
	}
	s.cur = s.buf.saved
	s.cur.x = min(s.cur.x, s.cols-1)
	s.cur.y = min(s.cur.y, s.rows-1)
}

// fullReset is RIS: clear the screens and reset every mode. The scrollback
// is kept.
func (s *Screen) fullReset() {
	if s.buf != s.main {
		s.buf = s.main
		s.alt = nil
	}
	for _, r := range s.main.rows {
		r.reset(0)
	}
	s.main.hasSaved = false
	s.resetState()
	s.progress = Progress{}
	s.last = 0
}

// ResetModes puts every mode, the pen, the scroll region and the tab stops
// back to their power-on values, as RIS does, and leaves the alternate
// screen, but keeps what the main screen shows and where the cursor is: what
// a new program started on a terminal an earlier one left in any state
// needs, without wiping what the earlier one printed.
func (s *Screen) ResetModes() {
	s.setPrivateMode(1049, false) // back to the main screen and its cursor
	x, y := min(s.cur.x, s.cols-1), min(s.cur.y, s.rows-1)
	s.main.hasSaved = false
	s.resetState()
	s.cur.x, s.cur.y = x, y
	s.progress = Progress{}
	s.last = 0
}

// handleCsi handles a CSI sequence.
func (s *Screen) handleCsi(cmd ansi.Cmd, params ansi.Params) {
	prefix, inter, final := cmd.Prefix(), cmd.Intermediate(), cmd.Final()
	// count returns parameter i as a repeat count: at least 1, bounded.
	count := func(i int) int {
		n, _, _ := params.Param(i, 1)
		return min(max(n, 1), maxCount)
	}
	param := func(i, def int) int {
		n, _, _ := params.Param(i, def)
		return n
	}
	if inter != 0 {
		s.handleCsiIntermediate(prefix, inter, final, params)
		return
	}
	switch prefix {
	case 0:
	case '?':
		switch final {
		case 'h', 'l':
			for _, p := range params {
				s.setPrivateMode(p.Param(0), final == 'h')
			}
		case 'J':
			s.eraseDisplay(param(0, 0))
		case 'K':
			s.eraseLine(param(0, 0))
		case 'n':
			if param(0, 0) == 6 {
				s.replyCursor("\x1b[?")
			}
		}
		return
	case '>':
		switch final {
		case 'c':
			s.sendReply([]byte("\x1b[>1;10;0c"))
		case 'q':
			s.sendReply([]byte("\x1bP>|acpmux-tui\x1b\\"))
		}
		return
	default:
		return
	}
	switch final {
	case '@':
		s.insertCells(s.buf.rows[s.cur.y], s.cur.x, count(0))
	case 'A':
		s.moveUp(count(0))
	case 'B', 'e':
		s.moveDown(count(0))
	case 'C', 'a':
		s.moveCol(count(0))
	case 'D':
		s.moveCol(-count(0))
	case 'E':
		s.moveDown(count(0))
		s.cur.x = 0
	case 'F':
		s.moveUp(count(0))
		s.cur.x = 0
	case 'G', '`':
		s.cur.x = min(count(0), s.cols) - 1
		s.cur.wrapPending = false
	case 'H', 'f':
		s.setCursor(count(1)-1, count(0)-1)
	case 'I':
		s.tab(count(0))
	case 'J':
		s.eraseDisplay(param(0, 0))
	case 'K':
		s.eraseLine(param(0, 0))
	case 'L':
		s.insertLines(count(0))
	case 'M':
		s.deleteLines(count(0))
	case 'P':
		s.deleteCells(s.buf.rows[s.cur.y], s.cur.x, count(0))
	case 'S':
		s.scrollUp(s.top, s.bot, count(0), true)
	case 'T':
		if len(params) <= 1 {
			s.scrollDown(s.top, s.bot, count(0))
		}
	case 'X':
		s.eraseChars(count(0))
	case 'Z':
		s.backTab(count(0))
	case 'b':
		s.repeat(count(0))
	case 'c':
		if param(0, 0) == 0 {
			s.sendReply([]byte("\x1b[?62;22c"))
		}
	case 'd':
		y := count(0) - 1
		if s.cur.origin {
			s.setCursor(s.cur.x, y)
		} else {
			s.cur.y = min(y, s.rows-1)
			s.cur.wrapPending = false
		}
	case 'g':
		switch param(0, 0) {
		case 0:
			s.tabs[s.cur.x] = false
		case 3:
			clear(s.tabs)
		}
	case 'h', 'l':
		for _, p := range params {
			s.setANSIMode(p.Param(0), final == 'h')
		}
	case 'm':
		s.selectGraphics(params)
	case 'n':
		switch param(0, 0) {
		case 5:
			s.sendReply([]byte("\x1b[0n"))
		case 6:
			s.replyCursor("\x1b[")
		}
	case 'r':
		s.setRegion(param(0, 1), param(1, s.rows))
	case 's':
		s.saveCursor()
	case 'u':
		s.restoreCursor()
	case 't':
		if param(0, 0) == 18 {
			s.sendReply([]byte("\x1b[8;" + strconv.Itoa(s.rows) + ";" + strconv.Itoa(s.cols) + "t"))
		}
	}
}

// handleCsiIntermediate handles CSI sequences with an intermediate byte.
func (s *Screen) handleCsiIntermediate(prefix, inter, final byte, params ansi.Params) {
	switch {
	case inter == ' ' && final == 'q' && prefix == 0:
		n, _, _ := params.Param(0, 0)
		s.modes.CursorStyle = min(max(n, 0), 6)
	case inter == '$' && final == 'p':
		n, _, _ := params.Param(0, 0)
		s.replyModeReport(prefix == '?', n)
	case inter == '!' && final == 'p' && prefix == 0:
		// DECSTR, soft reset.
		s.modes.Insert, s.cur.origin, s.modes.Autowrap = false, false, true
		s.modes.CursorVisible = true
		s.modes.AppCursor, s.modes.AppKeypad = false, false
		s.top, s.bot = 0, s.rows-1
		s.cur.pen = Style{}
		s.cur.charsets, s.cur.gl = [2]byte{'B', 'B'}, 0
		s.buf.saved, s.buf.hasSaved = cursorState{charsets: [2]byte{'B', 'B'}}, false
	}
}

// replyCursor sends the cursor position report (1-based, relative to the
// scroll region in origin mode).
func (s *Screen) replyCursor(intro string) {
	y := s.cur.y
	if s.cur.origin {
		y -= s.top
	}
	b := append(s.scratch[:0], intro...)
	b = strconv.AppendInt(b, int64(y+1), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(s.cur.x+1), 10)
	b = append(b, 'R')
	s.scratch = b
	s.sendReply(append([]byte(nil), b...))
}
