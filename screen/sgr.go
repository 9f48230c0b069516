package screen

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// This file handles SGR (colours and attributes) and OSC strings (title,
// progress, notifications).

func appendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }

// selectGraphics is SGR (CSI Pm m).
func (s *Screen) selectGraphics(params ansi.Params) {
	pen := &s.cur.pen
	if len(params) == 0 {
		*pen = Style{}
		return
	}
	for i := 0; i < len(params); i++ {
		p := params[i].Param(0)
		// Sub-parameters (colon form) belong to this parameter.
		end := i
		for end < len(params)-1 && params[end].HasMore() {
			end++
		}
		sub := params[i+1 : end+1]
		switch {
		case p == 0:
			*pen = Style{}
		case p == 1:
			pen.Attrs |= Bold
		case p == 2:
			pen.Attrs |= Faint
		case p == 3:
			pen.Attrs |= Italic
		case p == 4:
			if len(sub) > 0 && sub[0].Param(1) == 0 {
				pen.Attrs &^= Underline
			} else {
				pen.Attrs |= Underline
			}
		case p == 5 || p == 6:
			pen.Attrs |= Blink
		case p == 7:
			pen.Attrs |= Reverse
		case p == 8:
			pen.Attrs |= Conceal
		case p == 9:
			pen.Attrs |= Strikethrough
		case p == 21:
			pen.Attrs |= Underline
		case p == 22:
			pen.Attrs &^= Bold | Faint
		case p == 23:
			pen.Attrs &^= Italic
		case p == 24:
			pen.Attrs &^= Underline
		case p == 25:
			pen.Attrs &^= Blink
		case p == 27:
			pen.Attrs &^= Reverse
		case p == 28:
			pen.Attrs &^= Conceal
		case p == 29:
			pen.Attrs &^= Strikethrough
		case p >= 30 && p <= 37:
			pen.FG = IndexedColor(uint8(p - 30))
		case p == 39:
			pen.FG = DefaultColor
		case p >= 40 && p <= 47:
			pen.BG = IndexedColor(uint8(p - 40))
		case p == 49:
			pen.BG = DefaultColor
		case p >= 90 && p <= 97:
			pen.FG = IndexedColor(uint8(p - 90 + 8))
		case p >= 100 && p <= 107:
			pen.BG = IndexedColor(uint8(p - 100 + 8))
		case p == 38 || p == 48 || p == 58:
			var c Color
			var ok bool
			if len(sub) > 0 {
				c, ok = subColor(sub)
			} else {
				var used int
				c, used, ok = semicolonColor(params[i+1:])
				end = i + used
			}
			if ok && p == 38 {
				pen.FG = c
			} else if ok && p == 48 {
				pen.BG = c
			}
		}
		i = end
	}
}

// subColor decodes the sub-parameters of 38:5:n, 38:2:r:g:b or
// 38:2:cs:r:g:b.
func subColor(sub ansi.Params) (Color, bool) {
	switch sub[0].Param(0) {
	case 5:
		if len(sub) >= 2 {
			return IndexedColor(clampByte(sub[1].Param(0))), true
		}
	case 2:
		v := sub[1:]
		if len(v) >= 4 {
			v = v[1:] // colour space id
		}
		if len(v) >= 3 {
			return RGBColor(clampByte(v[0].Param(0)), clampByte(v[1].Param(0)), clampByte(v[2].Param(0))), true
		}
	}
	return 0, false
}

// semicolonColor decodes 38;5;n or 38;2;r;g;b from the parameters after 38
// and returns how many it used.
func semicolonColor(rest ansi.Params) (Color, int, bool) {
	if len(rest) == 0 {
		return 0, 0, false
	}
	switch rest[0].Param(0) {
	case 5:
		if len(rest) >= 2 {
			return IndexedColor(clampByte(rest[1].Param(0))), 2, true
		}
		return 0, len(rest), false
	case 2:
		if len(rest) >= 4 {
			return RGBColor(clampByte(rest[1].Param(0)), clampByte(rest[2].Param(0)), clampByte(rest[3].Param(0))), 4, true
		}
		return 0, len(rest), false
	}
	return 0, 1, false
}

func clampByte(n int) uint8 { return uint8(min(max(n, 0), 255)) }

// handleOsc handles an OSC string; data is the whole string, command number
// included.
func (s *Screen) handleOsc(cmd int, data []byte) {
	_, rest, _ := bytes.Cut(data, []byte{';'})
	switch cmd {
	case 0, 2:
		title := validUTF8(rest)
		if title != s.title {
			s.title = title
			s.ev.TitleChanged = true
		}
	case 9:
		if p, ok := parseProgress(rest); ok {
			if p != s.progress {
				s.progress = p
				s.ev.ProgressChanged = true
			}
			return
		}
		if len(rest) > 0 && !conEmuCommand(rest) {
			s.notify(validUTF8(rest))
		}
	case 777:
		kind, msg, _ := bytes.Cut(rest, []byte{';'})
		if string(kind) == "notify" {
			title, body, _ := bytes.Cut(msg, []byte{';'})
			text := validUTF8(title)
			if len(body) > 0 {
				text += ": " + validUTF8(body)
			}
			s.notify(text)
		}
	}
}

func (s *Screen) notify(text string) {
	if len(s.ev.Notifications) >= maxNotifications {
		copy(s.ev.Notifications, s.ev.Notifications[1:])
		s.ev.Notifications = s.ev.Notifications[:maxNotifications-1]
	}
	s.ev.Notifications = append(s.ev.Notifications, text)
}

// parseProgress parses the "4;state;value" of OSC 9;4.
func parseProgress(b []byte) (Progress, bool) {
	f := strings.Split(string(b), ";")
	if len(f) < 2 || f[0] != "4" {
		return Progress{}, false
	}
	st, err := strconv.Atoi(f[1])
	if err != nil || st < 0 || st > 4 {
		return Progress{}, true // malformed progress: ignore, never notify
	}
	p := Progress{State: ProgressState(st)}
	if len(f) >= 3 {
		if v, err := strconv.Atoi(f[2]); err == nil {
			p.Value = min(max(v, 0), 100)
		}
	}
	if p.State == ProgressNone || p.State == ProgressIndeterminate {
		p.Value = 0
	}
	return p, true
}

// conEmuCommand reports whether an OSC 9 payload is a numbered ConEmu command
// ("9;path", "1;ms", ...) rather than notification text.
func conEmuCommand(b []byte) bool {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i > 0 && (i == len(b) || b[i] == ';')
}

// validUTF8 returns b as a string with invalid UTF-8 replaced (U+FFFD for
// each run of it) and control characters (C0, DEL, and C1 however it is
// encoded) dropped. A redraw writes the result back as it is
// (appendPrintable keeps all of it).
func validUTF8(b []byte) string {
	clean := true
	for _, c := range b {
		if c < 0x20 || c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return string(b)
	}
	var sb strings.Builder
	for _, r := range strings.ToValidUTF8(string(b), "\uFFFD") {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			continue
		}
		sb.WriteRune(r)
	}
	return sb.String()
}
