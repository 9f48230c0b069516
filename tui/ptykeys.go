package tui

import (
	"strconv"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/proto"
)

// This file turns Bubble Tea's key, paste and mouse messages back into the
// bytes a terminal would send a program, as xterm does, honouring the modes
// the harness set (application cursor keys, bracketed paste, mouse).

// cursorKeys are the final bytes of the cursor and home/end keys.
var cursorKeys = map[tea.KeyType]byte{
	tea.KeyUp: 'A', tea.KeyDown: 'B', tea.KeyRight: 'C', tea.KeyLeft: 'D',
	tea.KeyHome: 'H', tea.KeyEnd: 'F',
}

// modifiedCursorKeys are cursor keys with modifiers: the final byte and the
// xterm modifier parameter (2 shift, 5 ctrl, 6 ctrl+shift).
var modifiedCursorKeys = map[tea.KeyType][2]byte{
	tea.KeyShiftUp: {'A', 2}, tea.KeyShiftDown: {'B', 2}, tea.KeyShiftRight: {'C', 2}, tea.KeyShiftLeft: {'D', 2},
	tea.KeyShiftHome: {'H', 2}, tea.KeyShiftEnd: {'F', 2},
	tea.KeyCtrlUp: {'A', 5}, tea.KeyCtrlDown: {'B', 5}, tea.KeyCtrlRight: {'C', 5}, tea.KeyCtrlLeft: {'D', 5},
	tea.KeyCtrlHome: {'H', 5}, tea.KeyCtrlEnd: {'F', 5},
	tea.KeyCtrlShiftUp: {'A', 6}, tea.KeyCtrlShiftDown: {'B', 6}, tea.KeyCtrlShiftRight: {'C', 6}, tea.KeyCtrlShiftLeft: {'D', 6},
	tea.KeyCtrlShiftHome: {'H', 6}, tea.KeyCtrlShiftEnd: {'F', 6},
}

// tildeKeys are the keys sent as CSI n ~.
var tildeKeys = map[tea.KeyType]int{
	tea.KeyInsert: 2, tea.KeyDelete: 3, tea.KeyPgUp: 5, tea.KeyPgDown: 6,
	tea.KeyF5: 15, tea.KeyF6: 17, tea.KeyF7: 18, tea.KeyF8: 19, tea.KeyF9: 20,
	tea.KeyF10: 21, tea.KeyF11: 23, tea.KeyF12: 24,
}

// ss3Keys are F1-F4, sent as SS3 P..S.
var ss3Keys = map[tea.KeyType]byte{tea.KeyF1: 'P', tea.KeyF2: 'Q', tea.KeyF3: 'R', tea.KeyF4: 'S'}

// encodeKey returns the bytes a terminal sends for k, or nil for a key it
// has no encoding for. Alt prefixes ESC, as xterm's metaSendsEscape does.
func encodeKey(k tea.KeyMsg, modes proto.TerminalModes) []byte {
	if k.Paste {
		return encodePaste(string(k.Runes), modes.BracketedPaste)
	}
	var b []byte
	if k.Alt {
		b = append(b, 0x1b)
	}
	t := k.Type
	switch {
	case t == tea.KeyRunes:
		return append(b, string(k.Runes)...)
	case t == tea.KeySpace:
		return append(b, ' ')
	case t >= 0 && t <= 31 || t == 127:
		// Control characters, enter (CR), tab, esc, backspace (DEL).
		return append(b, byte(t))
	case t == tea.KeyShiftTab:
		return append(b, "\x1b[Z"...)
	}
	if c, ok := cursorKeys[t]; ok {
		if modes.AppCursor {
			return append(b, 0x1b, 'O', c)
		}
		return append(b, 0x1b, '[', c)
	}
	if mc, ok := modifiedCursorKeys[t]; ok {
		return append(b, 0x1b, '[', '1', ';', '0'+mc[1], mc[0])
	}
	if n, ok := tildeKeys[t]; ok {
		b = append(b, 0x1b, '[')
		b = strconv.AppendInt(b, int64(n), 10)
		return append(b, '~')
	}
	switch t {
	case tea.KeyCtrlPgUp:
		return append(b, "\x1b[5;5~"...)
	case tea.KeyCtrlPgDown:
		return append(b, "\x1b[6;5~"...)
	}
	if c, ok := ss3Keys[t]; ok {
		return append(b, 0x1b, 'O', c)
	}
	return nil
}

// encodePaste wraps pasted text in bracketed-paste markers when the harness
// asked for them (?2004), so it is taken as text and not typed commands.
func encodePaste(text string, bracketed bool) []byte {
	if !bracketed {
		return []byte(text)
	}
	b := make([]byte, 0, len(text)+12)
	b = append(b, "\x1b[200~"...)
	b = append(b, text...)
	return append(b, "\x1b[201~"...)
}

// encodeWheel returns a mouse-wheel report for a harness that tracks the
// mouse, at the 0-based cell (col, row) of its screen, or nil when it does
// not track the mouse.
func encodeWheel(up bool, col, row int, modes proto.TerminalModes) []byte {
	if modes.MouseTracking == 0 {
		return nil
	}
	button := 65
	if up {
		button = 64
	}
	if modes.MouseSGR {
		b := []byte("\x1b[<")
		b = strconv.AppendInt(b, int64(button), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(col+1), 10)
		b = append(b, ';')
		b = strconv.AppendInt(b, int64(row+1), 10)
		return append(b, 'M')
	}
	if col+33 > 255 || row+33 > 255 {
		return nil // out of reach of the X10 encoding
	}
	return []byte{0x1b, '[', 'M', byte(32 + button), byte(33 + col), byte(33 + row)}
}
