package client

import (
	"unicode/utf8"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/internal/rpcline"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file cleans what another host sends, at the one place it enters
// this program: a host link's reader (Conn.readLoop) passes each answer,
// error and notification through cleanFromHost before anything decodes
// it, and ssh's stderr is cleaned where it becomes an error (sshLink).
// Every string a host sends (names, ids, folders, statuses, versions,
// errors, transcripts, notices, screens) is then as plaintext.Foreign
// makes it, whatever method carried it, so no view has to remember. A
// chat's screen keeps its colours: its lines are rendered with SGR
// sequences (plaintext.ForeignScreen). The attach stream is the harness's
// own output, base64 on the wire, and goes to the terminal as attach's
// does here: the user asked for the harness in this terminal.

// textKind is how the strings of a JSON value from a host are cleaned.
type textKind uint8

const (
	// plainText strings become as plaintext.Foreign makes them.
	plainText textKind = iota
	// screenPatch is the value of a "screen" member (a
	// proto.ScreenPatch): its "full" and "rows" are screenText.
	screenPatch
	// screenText strings keep their SGR sequences
	// (plaintext.ForeignScreen).
	screenText
)

// cleanFromHost cleans an answer or a notification a host sent; method is
// the notification's, or the call's an answer answers.
func cleanFromHost(a answer, method string) answer {
	kind := plainText
	if method == proto.MethodRender {
		kind = screenText // {text}: the chat's screen
	}
	a.Result = cleanHostJSON(a.Result, kind)
	a.Params = cleanHostJSON(a.Params, plainText)
	if a.Error != nil {
		e := *a.Error
		e.Message = plaintext.Foreign(e.Message)
		e.Data = cleanHostJSON(e.Data, plainText)
		a.Error = &e
	}
	return a
}

// cleanHostJSON returns v, valid JSON a host sent, with each string in it
// (object keys too) as plaintext.Foreign makes it, and the strings of a
// screen (the "full" and "rows" of any "screen" member, or all of v when
// kind is screenText) as plaintext.ForeignScreen does. It is one pass over
// the bytes, and returns v itself, not a copy, when no string needs
// cleaning: the common case, screens with colours included.
func cleanHostJSON(v []byte, kind textKind) []byte {
	if len(v) == 0 {
		return v
	}
	w := hostWalker{in: v}
	w.value(0, kind)
	if w.out == nil {
		return v
	}
	return append(w.out, v[w.done:]...)
}

// hostWalker walks one JSON value a host sent, copying it to out from the
// first string that changes.
type hostWalker struct {
	in   []byte
	out  []byte // nil until a string changes
	done int    // in[:done] is in out
}

// value walks the value at in[i:] and returns where it ends. Input that is
// not JSON ends the walk (the reader has refused it already).
func (w *hostWalker) value(i int, kind textKind) int {
	i = skipSpace(w.in, i)
	if i >= len(w.in) {
		return i
	}
	switch w.in[i] {
	case '"':
		if kind == screenPatch {
			kind = plainText
		}
		return w.str(i, kind)
	case '{':
		return w.object(i, kind)
	case '[':
		if kind == screenPatch {
			kind = plainText
		}
		return w.array(i, kind)
	}
	// A number, true, false or null.
	for i < len(w.in) && !isDelimiter(w.in[i]) {
		i++
	}
	return i
}

func (w *hostWalker) object(i int, kind textKind) int {
	for i++; ; {
		i = skipSpace(w.in, i)
		switch {
		case i >= len(w.in):
			return i
		case w.in[i] == '}':
			return i + 1
		case w.in[i] == ',':
			i++
			continue
		case w.in[i] != '"':
			return len(w.in)
		}
		keyStart := i
		i = w.str(i, plainText)
		key := w.in[keyStart:i]
		if i = skipSpace(w.in, i); i < len(w.in) && w.in[i] == ':' {
			i++
		}
		end := w.value(i, memberKind(kind, key))
		if end <= i {
			return len(w.in)
		}
		i = end
	}
}

func (w *hostWalker) array(i int, kind textKind) int {
	for i++; ; {
		i = skipSpace(w.in, i)
		switch {
		case i >= len(w.in):
			return i
		case w.in[i] == ']':
			return i + 1
		case w.in[i] == ',':
			i++
			continue
		}
		end := w.value(i, kind)
		if end <= i {
			return len(w.in)
		}
		i = end
	}
}

// memberKind is how the value of member key (quoted, as sent) of an
// object of kind is cleaned. Only the exact spelling the server writes
// makes a screen: any other is cleaned as plain text, the safe side.
func memberKind(kind textKind, key []byte) textKind {
	switch {
	case kind == screenText:
		return screenText
	case string(key) == `"screen"`:
		return screenPatch
	case kind == screenPatch && (string(key) == `"full"` || string(key) == `"rows"`):
		return screenText
	}
	return plainText
}

// str walks the string at in[i] (its opening quote) and returns where it
// ends; a string that needs cleaning is written cleaned to out.
func (w *hostWalker) str(i int, kind textKind) int {
	end, dirty := scanHostString(w.in, i, kind == screenText)
	if !dirty {
		return end
	}
	s, ok := rpcline.Unquote(w.in[i:end])
	if !ok {
		return len(w.in)
	}
	if kind == screenText {
		s = plaintext.ForeignScreen(s)
	} else {
		s = plaintext.Foreign(s)
	}
	if w.out == nil {
		w.out = make([]byte, 0, len(w.in)+len(w.in)/8)
	}
	w.out = append(w.out, w.in[w.done:i]...)
	w.out = rpcline.AppendString(w.out, s)
	w.done = end
	return end
}

// scanHostString returns where the JSON string at b[i] (its opening quote)
// ends, and whether its value may hold what plaintext.Foreign (with
// screen, plaintext.ForeignScreen) takes out: a control character but
// newline and tab, raw or escaped, or a bidirectional control; with
// screen, an escaped ESC that starts an SGR sequence is passed over. It
// reads the bytes as sent, decoding nothing: invalid UTF-8 needs no
// cleaning here, as every decoder of JSON makes it U+FFFD. It may say
// dirty of a string that is clean (a string is then decoded and encoded
// again for nothing), never the other way.
func scanHostString(b []byte, i int, screen bool) (end int, dirty bool) {
	for j := i + 1; j < len(b); {
		// Most bytes of any text need no look: passed over in a tight
		// loop.
		for j < len(b) && !hostByteToLook[b[j]] {
			j++
		}
		if j >= len(b) {
			break
		}
		c := b[j]
		switch {
		case c == '"':
			return j + 1, false
		case c == '\\':
			if j+1 >= len(b) {
				return len(b), true
			}
			switch b[j+1] {
			case 'u':
				r, ok := hex4(b, j+2)
				if !ok {
					return stringEnd(b, j), true
				}
				if r == 0x1b && screen {
					if n := plaintext.SGRTail(b, j+6); n > 0 {
						j = n
						continue
					}
				}
				if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0 || plaintext.IsBidi(r) {
					return stringEnd(b, j), true
				}
				j += 6
			case 'b', 'f', 'r':
				return stringEnd(b, j), true
			default:
				j += 2
			}
		case c < 0x20 || c == 0x7f:
			return stringEnd(b, j), true
		case c < utf8.RuneSelf:
			j++
		case c == 0xc2 && j+1 < len(b) && b[j+1] >= 0x80 && b[j+1] < 0xa0, // U+0080–U+009F: C1
			c == 0xd8 && j+1 < len(b) && b[j+1] == 0x9c, // U+061C: ALM
			c == 0xe2 && j+2 < len(b) && isBidiTail(b[j+1], b[j+2]):
			return stringEnd(b, j), true
		default:
			j++
		}
	}
	return len(b), true
}

// hostByteToLook marks the bytes scanHostString looks at in a string: the
// quote, the backslash, the C0 controls and DEL (raw: not JSON, but
// refused all the same), and the lead bytes of C1 controls (C2) and of
// bidirectional controls (D8, E2).
var hostByteToLook = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	for _, c := range []byte{'"', '\\', 0x7f, 0xc2, 0xd8, 0xe2} {
		t[c] = true
	}
	return t
}()

// isBidiTail says whether E2 then c1, c2 is a bidirectional control in
// UTF-8: E2 80 8E–8F (U+200E, U+200F), E2 80 AA–AE (U+202A–U+202E), or
// E2 81 A6–A9 (U+2066–U+2069).
func isBidiTail(c1, c2 byte) bool {
	return c1 == 0x80 && (c2 == 0x8e || c2 == 0x8f || c2 >= 0xaa && c2 <= 0xae) || c1 == 0x81 && c2 >= 0xa6 && c2 <= 0xa9
}

// stringEnd returns where the JSON string that b[j] is inside ends.
func stringEnd(b []byte, j int) int {
	for ; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// hex4 reads the four hex digits at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func isDelimiter(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r'
}
