// Package termmodes follows the terminal modes a program's output sets
// on a terminal lent to it, and builds the sequence that puts them back.
package termmodes

import (
	"bytes"
	"maps"
	"slices"
	"strconv"
)

// `attach` lends a harness the terminal: the client, or the server when
// the client handed the terminal over. The tracker reads the bytes exactly as they reach the terminal (the redraws the
// server sends, and the harness's output after them), so what is reset is
// what the terminal was really told. Modes every terminal handles
// harmlessly are reset whether or not they were seen; those whose reset has
// side effects (leaving the alternate screen restores a saved cursor, the
// kitty keyboard stack is shared with whoever ran us) only when the harness
// changed them.

// Limits on what the tracker keeps, so a hostile harness cannot grow it.
const (
	maxSeqBytes     = 64      // a CSI longer than this is not one we track
	maxTrackedModes = 64      // distinct mode numbers remembered
	maxModeNumber   = 1 << 16 // larger mode numbers are not remembered
	maxKittyPushes  = 1 << 10 // the kitty keyboard stack depth we count to
)

// scanState is where the tracker is in an escape sequence.
type scanState uint8

const (
	scanGround    scanState = iota // text
	scanEscape                     // after ESC
	scanEscInter                   // after ESC and an intermediate (ESC ( 0)
	scanCSI                        // after ESC [
	scanString                     // inside OSC, DCS, APC, PM or SOS
	scanStringEsc                  // ESC inside a string: ST if '\' follows
)

// Unconditional resets: modes that are off (or, for 7 and 25, on) in any
// terminal a shell hands to a command, and whose reset does nothing when
// they already are.
var (
	// privateModesOff are DEC private modes reset with CSI ? n l: cursor
	// keys (DECCKM), X10 and every mouse tracking and mouse encoding mode,
	// focus events, bracketed paste and synchronized output.
	privateModesOff = []int{1, 9, 1000, 1001, 1002, 1003, 1004, 1005, 1006, 1015, 1016, 2004, 2026}
	// privateModesOn are DEC private modes set with CSI ? n h: autowrap
	// (DECAWM) and the visible cursor (DECTCEM).
	privateModesOn = []int{7, 25}
	// ansiModesOff are ANSI modes reset with CSI n l: insert (IRM).
	ansiModesOff = []int{4}
)

// privateDefaultOn reports whether a DEC private mode is on in a terminal
// as a shell hands it over: autowrap (DECAWM), autorepeat (DECARM) and the
// visible cursor (DECTCEM). Every other one is off.
func privateDefaultOn(mode int) bool { return mode == 7 || mode == 8 || mode == 25 }

// ansiDefaultOn reports whether an ANSI mode is on in a terminal as a shell
// hands it over: send/receive (SRM, local echo off). Every other one (KAM,
// IRM, LNM...) is off.
func ansiDefaultOn(mode int) bool { return mode == 12 }

// Modes is what the bytes written to the terminal so far have left
// set, as far as a reset needs to know.
type Modes struct {
	state scanState
	seq   []byte // the CSI being read: parameters and intermediates
	long  bool   // the CSI passed maxSeqBytes and is ignored

	// private and ansi hold the last state set for each mode number seen
	// (CSI ? n h/l and CSI n h/l).
	private, ansi map[int]bool
	// alt is the mode that entered the alternate screen (47, 1047 or 1049),
	// 0 on the main screen.
	alt int
	// kittyPushes counts the kitty keyboard protocol entries pushed (CSI > u)
	// and not popped, on the main [0] and the alternate [1] screen; kittySet
	// is true where flags were set (CSI = u) with nothing pushed.
	kittyPushes [2]int
	kittySet    [2]bool
	// modKeys has bit n set when xterm key modifier resource n was set
	// (CSI > n ; v m), as modifyOtherKeys (4) is.
	modKeys uint8
	// cursorStyle is true once DECSCUSR (CSI n SP q) was sent.
	cursorStyle bool
	// version counts the sequences that changed what Reset returns, or
	// may have.
	version uint64
}

// New is a tracker of a terminal as a shell hands it over.
func New() *Modes {
	return &Modes{private: map[int]bool{}, ansi: map[int]bool{}, seq: make([]byte, 0, maxSeqBytes)}
}

// Scan follows p, a chunk of output in the order the terminal gets it.
// Sequences may be split across chunks.
func (t *Modes) Scan(p []byte) {
	for i := 0; i < len(p); i++ {
		if t.state == scanGround {
			j := bytes.IndexByte(p[i:], 0x1b)
			if j < 0 {
				return
			}
			i += j
			t.state = scanEscape
			continue
		}
		t.step(p[i])
	}
}

// step advances the state machine by one byte outside the ground state.
func (t *Modes) step(b byte) {
	switch {
	case b == 0x18 || b == 0x1a: // CAN, SUB: abort the sequence
		t.state = scanGround
		return
	case b == 0x1b && t.state != scanStringEsc:
		if t.state == scanString {
			t.state = scanStringEsc
		} else {
			t.state = scanEscape
		}
		return
	}
	switch t.state {
	case scanEscape:
		t.escape(b)
	case scanEscInter:
		switch {
		case b < 0x20: // C0 controls are executed inside a sequence
		case b < 0x30:
		default:
			t.state = scanGround
		}
	case scanCSI:
		switch {
		case b < 0x20 || b == 0x7f:
		case b < 0x40:
			if len(t.seq) < maxSeqBytes {
				t.seq = append(t.seq, b)
			} else {
				t.long = true
			}
		case b < 0x7f:
			if !t.long {
				t.csi(t.seq, b)
			}
			t.state = scanGround
		default:
			t.state = scanGround
		}
	case scanString:
		if b == 0x07 { // BEL ends an OSC
			t.state = scanGround
		}
	case scanStringEsc:
		// Any ESC ends the string; ESC \ is ST, anything else starts a new
		// sequence, as xterm reads it.
		if b == '\\' {
			t.state = scanGround
			return
		}
		t.state = scanEscape
		t.step(b)
	}
}

// escape handles the byte after ESC.
func (t *Modes) escape(b byte) {
	t.state = scanGround
	switch {
	case b == '[':
		t.state, t.seq, t.long = scanCSI, t.seq[:0], false
	case b == ']' || b == 'P' || b == '_' || b == '^' || b == 'X':
		t.state = scanString
	case b < 0x20: // a C0 control inside the sequence
		t.state = scanEscape
	case b < 0x30:
		t.state = scanEscInter
	case b == 'c': // RIS: the terminal is back to its power-on state
		*t = Modes{private: map[int]bool{}, ansi: map[int]bool{}, seq: t.seq[:0], version: t.version + 1}
	}
	// DECKPAM (ESC =) and DECKPNM (ESC >) need no tracking: ESC > is always
	// part of the reset.
}

// csi handles a complete CSI sequence: seq is its parameter and
// intermediate bytes, final its final byte.
func (t *Modes) csi(seq []byte, final byte) {
	var prefix, inter byte
	if len(seq) > 0 && seq[0] >= '<' && seq[0] <= '?' {
		prefix, seq = seq[0], seq[1:]
	}
	if n := len(seq); n > 0 && seq[n-1] < 0x30 {
		inter, seq = seq[n-1], seq[:n-1]
	}
	params := parseParams(seq)
	param := func(i, def int) int {
		if i < len(params) && params[i] >= 0 {
			return params[i]
		}
		return def
	}
	screen := 0
	if t.alt != 0 {
		screen = 1
	}
	switch {
	case inter == 0 && (final == 'h' || final == 'l') && prefix == '?':
		// DECSET, DECRST
		for _, p := range params {
			t.setPrivate(p, final == 'h')
		}
	case inter == 0 && (final == 'h' || final == 'l') && prefix == 0:
		// SM, RM
		for _, p := range params {
			remember(t.ansi, p, final == 'h')
		}
	case inter == 0 && final == 'm' && prefix == '>':
		// XTMODKEYS: CSI > Pp ; Pv m sets key modifier resource Pp.
		if r := param(0, -1); r >= 0 && r < 8 {
			t.modKeys |= 1 << r
		} else if len(params) == 0 {
			t.modKeys = 0xff
		}
	case inter == 0 && final == 'u' && prefix == '>':
		// Kitty keyboard protocol: push flags.
		t.kittyPushes[screen] = min(t.kittyPushes[screen]+1, maxKittyPushes)
	case inter == 0 && final == 'u' && prefix == '<':
		// Kitty keyboard protocol: pop n entries.
		t.kittyPushes[screen] = max(t.kittyPushes[screen]-max(param(0, 1), 1), 0)
	case inter == 0 && final == 'u' && prefix == '=':
		// Kitty keyboard protocol: set the flags of the top entry.
		if t.kittyPushes[screen] == 0 {
			t.kittySet[screen] = true
		}
	case inter == ' ' && final == 'q' && prefix == 0:
		// DECSCUSR: cursor style.
		t.cursorStyle = true
	case inter == '!' && final == 'p' && prefix == 0:
		// DECSTR: soft reset (origin off, autowrap on, cursor shown, ...).
		for _, m := range []int{1, 6, 7, 25} {
			delete(t.private, m)
		}
		delete(t.ansi, 4)
	default:
		return
	}
	t.version++
}

// Version changes whenever what Reset returns may have: a caller that
// keeps a copy of the reset builds it again only then.
func (t *Modes) Version() uint64 { return t.version }

// setPrivate records DECSET/DECRST of one mode; the alternate screen is
// followed apart, as leaving it must be done the way it was entered.
func (t *Modes) setPrivate(mode int, on bool) {
	switch mode {
	case 47, 1047, 1049:
		if on && t.alt == 0 {
			t.alt = mode
		} else if !on {
			t.alt = 0
		}
	case 1048: // save or restore the cursor: not a mode
	default:
		remember(t.private, mode, on)
	}
}

// remember records a mode's state, within the tracker's bounds.
func remember(modes map[int]bool, mode int, on bool) {
	if mode < 0 || mode >= maxModeNumber {
		return
	}
	if _, ok := modes[mode]; !ok && len(modes) >= maxTrackedModes {
		return
	}
	modes[mode] = on
}

// parseParams reads ';'-separated decimal parameters; an empty one is -1.
// Sub-parameters (after ':') are ignored.
func parseParams(seq []byte) []int {
	if len(seq) == 0 {
		return nil
	}
	var out []int
	for f := range bytes.SplitSeq(seq, []byte{';'}) {
		if i := bytes.IndexByte(f, ':'); i >= 0 {
			f = f[:i]
		}
		n, err := strconv.Atoi(string(f))
		if err != nil || n < 0 {
			n = -1
		}
		out = append(out, n)
	}
	return out
}

// Reset returns the bytes that put the terminal back as a shell hands it to
// a command: every mode the harness was seen to change, and the modes that
// are always safe to reset. The order matters:
//  1. the kitty keyboard entries pushed on the screen shown now are popped
//     (each screen has its own stack);
//  2. modes go back to their defaults (origin mode's reset homes the cursor,
//     harmless on the alternate screen about to be left);
//  3. the alternate screen is left the way it was entered (1049 restores
//     the cursor saved on entry), then the main screen's kitty entries go;
//  4. the scroll region is reset inside DECSC/DECRC, so the cursor stays
//     where the harness left it;
//  5. key modifiers, cursor style, keypad, character set, window title
//     (popped from the stack SaveTitles pushed it on), and last the
//     SGR attributes, so a terminal that misreads a sequence above as SGR
//     ends plain anyway.
func (t *Modes) Reset() []byte {
	var b []byte
	mode := func(intro string, m int, final byte) {
		b = append(b, intro...)
		b = strconv.AppendInt(b, int64(m), 10)
		b = append(b, final)
	}
	kitty := func(screen int) {
		if n := t.kittyPushes[screen]; n > 0 {
			mode("\x1b[<", n, 'u') // pop n entries
		} else if t.kittySet[screen] {
			b = append(b, "\x1b[=0;1u"...) // no flags
		}
	}
	if t.alt != 0 {
		kitty(1)
	} else {
		kitty(0)
	}

	// DEC private modes: the unconditional ones, and every other one the
	// harness moved away from its default.
	private := map[int]bool{}
	for m, on := range t.private {
		if def := privateDefaultOn(m); on != def {
			private[m] = def
		}
	}
	for _, m := range privateModesOff {
		private[m] = false
	}
	for _, m := range privateModesOn {
		private[m] = true
	}
	for _, m := range slices.Sorted(maps.Keys(private)) {
		if private[m] {
			mode("\x1b[?", m, 'h') // DECSET
		} else {
			mode("\x1b[?", m, 'l') // DECRST
		}
	}
	ansi := map[int]bool{}
	for m, on := range t.ansi {
		if def := ansiDefaultOn(m); on != def {
			ansi[m] = def
		}
	}
	for _, m := range ansiModesOff {
		ansi[m] = false
	}
	for _, m := range slices.Sorted(maps.Keys(ansi)) {
		if ansi[m] {
			mode("\x1b[", m, 'h') // SM
		} else {
			mode("\x1b[", m, 'l') // RM
		}
	}

	if t.alt != 0 {
		mode("\x1b[?", t.alt, 'l') // back to the main screen
		kitty(0)
	}
	b = append(b, "\x1b7\x1b[r\x1b8"...) // DECSC, DECSTBM (whole screen), DECRC
	for r := range 8 {
		if t.modKeys&(1<<r) != 0 {
			mode("\x1b[>", r, 'm') // XTMODKEYS: resource r to its default
		}
	}
	if t.cursorStyle {
		b = append(b, "\x1b[0 q"...) // DECSCUSR: the user's cursor style
	}
	b = append(b, "\x1b>"...)      // DECKPNM: numeric keypad
	b = append(b, "\x1b(B\x0f"...) // G0 is ASCII, and in use (SI)
	b = append(b, RestoreTitles...)
	b = append(b, "\x1b[m"...) // SGR 0
	return b
}

// SaveTitles is written when the terminal is borrowed: XTWINOPS pushes the
// window and icon titles, which the reset pops, so a title the harness sets
// does not outlive it. Terminals without a title stack ignore both.
const (
	SaveTitles    = "\x1b[22;0t"
	RestoreTitles = "\x1b[23;0t"
)
