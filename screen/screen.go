// Package screen is the terminal emulator behind each pty chat: a screen of
// cells and a bounded scrollback, fed with a harness's output and drawn by the
// TUI.
//
// The live screen is a slice of row pointers, so scrolling rotates pointers
// instead of moving cells, and a row scrolled off the top is encoded compactly
// (UTF-8 text and style runs, trailing blanks trimmed) into a ring of fixed
// capacity. Escape sequences are parsed with charmbracelet/x/ansi; printable
// text and plain SGR sequences take fast paths that never enter the parser,
// and a row printed left to right keeps its scrollback encoding as it goes
// (keptLine). A screen with slow set takes none of them; the tests check
// both read the same.
package screen

import (
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"

	"github.com/acpmux/acpmux-tui/proto"
)

// ProgressState is the state part of a ConEmu progress report (OSC 9;4).
type ProgressState int

// The progress states of OSC 9;4.
const (
	// ProgressNone means no progress is shown.
	ProgressNone ProgressState = iota
	// ProgressNormal shows Value percent.
	ProgressNormal
	// ProgressError shows Value percent in an error state.
	ProgressError
	// ProgressIndeterminate shows activity without a value.
	ProgressIndeterminate
	// ProgressPaused shows Value percent in a paused or warning state.
	ProgressPaused
)

// Progress is the last progress a program reported with OSC 9;4.
type Progress struct {
	// State is the kind of progress shown.
	State ProgressState
	// Value is the percentage, 0 to 100.
	Value int
}

// maxNotifications bounds the notifications kept between two Events calls.
const maxNotifications = 16

// Events are what happened since the last call to Screen.Events.
type Events struct {
	// Bells is the number of BEL characters received.
	Bells int
	// TitleChanged is true when the title was set to a different value.
	TitleChanged bool
	// ProgressChanged is true when Progress changed.
	ProgressChanged bool
	// Progress is the current progress (whether or not it changed).
	Progress Progress
	// Notifications are the texts of desktop notifications the program sent
	// (OSC 9 with plain text, OSC 777;notify), oldest first, at most 16.
	Notifications []string
}

// cursorState is the cursor and what DECSC saves with it.
type cursorState struct {
	x, y        int
	pen         Style
	wrapPending bool
	origin      bool
	charsets    [2]byte // 'B' for ASCII, '0' for DEC special graphics
	gl          uint8   // the charset invoked by SI/SO: 0 for G0, 1 for G1
}

// buffer is one of the two screens (main and alternate).
type buffer struct {
	rows     []*row
	saved    cursorState
	hasSaved bool
}

func newBuffer(cols, rows int) *buffer {
	b := &buffer{rows: make([]*row, rows)}
	for i := range b.rows {
		b.rows[i] = newRow(cols)
	}
	return b
}

// stringSeq collects an OSC, DCS, SOS, PM or APC string. It is collected here
// rather than by the ansi parser so that UTF-8 inside the string (such as
// U+2733, whose encoding holds the C1 byte 0x9C) does not end it early.
type stringSeq struct {
	active bool
	kind   byte // ']' OSC, 'P' DCS, 'X' SOS, '^' PM, '_' APC
	esc    bool // the previous byte was ESC
	data   []byte
}

// maxStringData bounds the bytes kept of one OSC string; the rest is dropped.
const maxStringData = 4096

// Screen is a terminal emulator: a live screen of cells, an alternate screen,
// a bounded scrollback, the cursor, modes, title and events.
//
// Screen is not safe for concurrent use; the mux guards it with its own mutex.
type Screen struct {
	cols, rows int
	main, alt  *buffer
	buf        *buffer // the active buffer: main or alt
	sb         scrollback
	cur        cursorState
	top, bot   int // scroll region, inclusive rows
	tabs       []bool
	modes      proto.TerminalModes
	title      string
	progress   Progress
	ev         Events
	reply      func([]byte)

	p       *ansi.Parser
	utf8buf [utf8.UTFMax]byte
	nutf8   int
	str     stringSeq
	last    rune // the last printed graphic character, for REP

	// slow turns off the fast paths (plainSGR, printASCII's runs, the
	// rows' kept encodings), for tests that check they do what the
	// general path does.
	slow bool

	scratch   []byte // replies
	enc       lineEncoder
	decodeRow *row // scrollback line decoded for rendering
	renderBuf []byte
}

// New returns a screen of cols x rows cells that keeps at most scrollbackLines
// lines scrolled off the top of the main screen.
func New(cols, rows, scrollbackLines int) *Screen {
	cols, rows = max(cols, 1), max(rows, 1)
	s := &Screen{cols: cols, rows: rows}
	s.main = newBuffer(cols, rows)
	s.buf = s.main
	s.sb.init(max(scrollbackLines, 0))
	s.resetState()
	// Strings are collected by collectString; the parser's own data buffer
	// only serves strings entered through C1 bytes inside other sequences.
	s.p = new(ansi.Parser)
	s.p.SetParamsSize(parser.MaxParamsSize)
	s.p.SetDataSize(1024)
	s.p.SetHandler(ansi.Handler{
		Print:     s.printRune,
		Execute:   s.execute,
		HandleCsi: s.handleCsi,
		HandleEsc: s.handleEsc,
		HandleOsc: s.handleOsc,
	})
	return s
}

// resetState sets the cursor, modes, region and tab stops to their power-on
// values.
func (s *Screen) resetState() {
	s.cur = cursorState{charsets: [2]byte{'B', 'B'}}
	s.top, s.bot = 0, s.rows-1
	s.modes = proto.TerminalModes{Autowrap: true, CursorVisible: true}
	s.resetTabs()
}

func (s *Screen) resetTabs() {
	s.tabs = make([]bool, s.cols)
	for i := 8; i < s.cols; i += 8 {
		s.tabs[i] = true
	}
}

// Write feeds the program's output to the screen. Sequences and UTF-8
// characters may be split across calls. It always returns len(p), nil.
func (s *Screen) Write(p []byte) (int, error) {
	n := len(p)
	if s.nutf8 > 0 {
		p = s.finishRune(p)
	}
	for len(p) > 0 {
		if s.str.active {
			p = s.collectString(p)
			continue
		}
		if s.p.State() != parser.GroundState {
			p = s.feedParser(p)
			continue
		}
		b := p[0]
		switch {
		case b >= 0x20 && b < 0x7f && s.slow:
			s.printRune(rune(b))
			p = p[1:]
		case b >= 0x20 && b < 0x7f:
			i := 1
			for i < len(p) && p[i] >= 0x20 && p[i] < 0x7f {
				i++
			}
			s.printASCII(p[:i])
			p = p[i:]
		case b == ansi.ESC:
			if k := s.plainSGR(p); k > 0 {
				p = p[k:]
				continue
			}
			s.p.Advance(b)
			p = p[1:]
		case b < 0x20:
			s.execute(b)
			p = p[1:]
		case b == 0x7f:
			p = p[1:]
		default:
			if !utf8.FullRune(p) {
				s.nutf8 = copy(s.utf8buf[:], p)
				return n, nil
			}
			r, size := utf8.DecodeRune(p)
			s.printRune(r)
			p = p[size:]
		}
	}
	return n, nil
}

// maxPlainSGR bounds the parameters plainSGR takes; longer sequences go
// through the parser.
const maxPlainSGR = 16

// plainSGR applies the SGR sequence at the start of p when it is whole and
// plain (ESC [ then numbers of at most three digits, each ended by ';' or
// the final 'm'), the bulk of the sequences coloured output holds, without
// the parser, and returns its length; else it returns 0 and leaves p to
// the parser. The parameters it hands selectGraphics are those the parser
// would.
func (s *Screen) plainSGR(p []byte) int {
	if s.slow || len(p) < 4 || p[1] != '[' {
		return 0
	}
	var params [maxPlainSGR]ansi.Param
	n, v, digits := 0, 0, 0
	for i := 2; i < len(p); i++ {
		switch c := p[i]; {
		case c >= '0' && c <= '9':
			if digits == 3 {
				return 0
			}
			v = v*10 + int(c-'0')
			digits++
		case (c == ';' || c == 'm') && digits > 0 && n < len(params):
			params[n] = ansi.Param(v)
			n++
			if c == 'm' {
				s.selectGraphics(params[:n])
				return i + 1
			}
			v, digits = 0, 0
		default:
			return 0
		}
	}
	return 0
}

// finishRune completes a UTF-8 character split across writes.
func (s *Screen) finishRune(p []byte) []byte {
	for len(p) > 0 && s.nutf8 < utf8.UTFMax && !utf8.FullRune(s.utf8buf[:s.nutf8]) {
		if p[0] < 0x80 || p[0] >= 0xc0 {
			break // not a continuation byte: the pending rune is invalid
		}
		s.utf8buf[s.nutf8] = p[0]
		s.nutf8++
		p = p[1:]
	}
	if !utf8.FullRune(s.utf8buf[:s.nutf8]) && len(p) == 0 {
		return p // still incomplete; wait for more
	}
	r, _ := utf8.DecodeRune(s.utf8buf[:s.nutf8])
	s.nutf8 = 0
	s.printRune(r)
	return p
}

// feedParser feeds bytes to the escape sequence parser until it is back in
// the ground state or a string sequence starts.
func (s *Screen) feedParser(p []byte) []byte {
	for i, b := range p {
		if s.p.State() == parser.EscapeState {
			switch b {
			case ']', 'P', 'X', '^', '_':
				s.p.Reset()
				s.str.active, s.str.kind, s.str.esc = true, b, false
				s.str.data = s.str.data[:0]
				return p[i+1:]
			}
		}
		s.p.Advance(b)
		if s.p.State() == parser.GroundState {
			return p[i+1:]
		}
	}
	return nil
}

// collectString collects the bytes of a string sequence up to its terminator
// (BEL for OSC, ST = ESC \), dispatching it when complete.
func (s *Screen) collectString(p []byte) []byte {
	for i, b := range p {
		if s.str.esc {
			s.str.esc = false
			s.endString()
			if b == '\\' {
				return p[i+1:]
			}
			// Any other ESC sequence ends the string and starts anew.
			s.p.Advance(ansi.ESC)
			return p[i:]
		}
		switch {
		case b == ansi.ESC:
			s.str.esc = true
		case b == ansi.BEL && s.str.kind == ']':
			s.endString()
			return p[i+1:]
		case b == ansi.CAN || b == ansi.SUB:
			s.str.active = false
			return p[i+1:]
		default:
			if s.str.kind == ']' && len(s.str.data) < maxStringData {
				s.str.data = append(s.str.data, b)
			}
		}
	}
	return nil
}

func (s *Screen) endString() {
	s.str.active = false
	if s.str.kind != ']' {
		return // DCS, SOS, PM and APC strings are ignored.
	}
	data := s.str.data
	cmd := -1
	for _, c := range data {
		if c == ';' {
			break
		}
		if c < '0' || c > '9' {
			cmd = -1
			break
		}
		if cmd < 0 {
			cmd = 0
		}
		if cmd < 1<<20 {
			cmd = cmd*10 + int(c-'0')
		}
	}
	s.handleOsc(cmd, data)
}

// Resize changes the screen size. Content is kept, truncated or padded
// without reflow; when rows shrink, rows above the cursor move into the
// scrollback so the cursor stays visible, and when rows grow, lines come back
// from the scrollback. The scroll region is reset.
func (s *Screen) Resize(cols, rows int) {
	cols, rows = max(cols, 1), max(rows, 1)
	if cols == s.cols && rows == s.rows {
		return
	}
	s.resize(cols, rows)
}

// Size returns the screen size in cells.
func (s *Screen) Size() (cols, rows int) { return s.cols, s.rows }

// SetReplyFunc sets where replies to device queries (DA, DSR, DECRQM) go; the
// mux writes them back to the pty. Without one, queries get no reply.
func (s *Screen) SetReplyFunc(f func([]byte)) { s.reply = f }

// Cursor returns the cursor position (0-based) and whether it is visible.
func (s *Screen) Cursor() (col, row int, visible bool) {
	return s.cur.x, s.cur.y, s.modes.CursorVisible
}

// Title returns the window title last set with OSC 0 or OSC 2.
func (s *Screen) Title() string { return s.title }

// Modes returns the modes the program has set.
func (s *Screen) Modes() proto.TerminalModes {
	m := s.modes
	m.Origin = s.cur.origin
	return m
}

// Events returns what happened since the last call and clears it.
func (s *Screen) Events() Events {
	ev := s.ev
	ev.Progress = s.progress
	s.ev = Events{}
	return ev
}

// ScrollbackLen returns the number of lines in the scrollback.
func (s *Screen) ScrollbackLen() int { return s.sb.len() }

// sendReply hands reply bytes to the reply function, if any.
func (s *Screen) sendReply(b []byte) {
	if s.reply != nil {
		s.reply(b)
	}
}
