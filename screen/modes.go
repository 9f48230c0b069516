package screen

// This file sets and reports modes (SM/RM, DECSET/DECRST, DECRQM) and
// switches between the main and alternate screens.

// setANSIMode handles SM and RM (CSI Pm h / l).
func (s *Screen) setANSIMode(mode int, on bool) {
	if mode == 4 {
		s.modes.Insert = on
	}
}

// setPrivateMode handles DECSET and DECRST (CSI ? Pm h / l).
func (s *Screen) setPrivateMode(mode int, on bool) {
	switch mode {
	case 1:
		s.modes.AppCursor = on
	case 6:
		s.cur.origin = on
		s.setCursor(0, 0)
	case 7:
		s.modes.Autowrap = on
		if !on {
			s.cur.wrapPending = false
		}
	case 25:
		s.modes.CursorVisible = on
	case 9, 1000, 1002, 1003:
		if on {
			s.modes.MouseTracking = mode
		} else {
			s.modes.MouseTracking = 0
		}
	case 1004:
		s.modes.FocusEvents = on
	case 1006:
		s.modes.MouseSGR = on
	case 2004:
		s.modes.BracketedPaste = on
	case 2026:
		s.modes.SyncOutput = on
	case 47, 1047:
		if on {
			s.enterAltScreen(false)
		} else {
			s.exitAltScreen(mode == 1047)
		}
	case 1048:
		if on {
			s.saveCursor()
		} else {
			s.restoreCursor()
		}
	case 1049:
		if on {
			if s.buf == s.main {
				s.saveCursor()
			}
			s.enterAltScreen(true)
		} else {
			wasAlt := s.buf != s.main
			s.exitAltScreen(true)
			if wasAlt {
				s.restoreCursor()
			}
		}
	}
}

// privateModeState returns 1 if a DEC private mode is set, 2 if reset and 0 if
// it is not recognised, as DECRQM reports it.
func (s *Screen) privateModeState(mode int) int {
	var on bool
	switch mode {
	case 1:
		on = s.modes.AppCursor
	case 6:
		on = s.cur.origin
	case 7:
		on = s.modes.Autowrap
	case 25:
		on = s.modes.CursorVisible
	case 9, 1000, 1002, 1003:
		on = s.modes.MouseTracking == mode
	case 1004:
		on = s.modes.FocusEvents
	case 1006:
		on = s.modes.MouseSGR
	case 2004:
		on = s.modes.BracketedPaste
	case 2026:
		on = s.modes.SyncOutput
	case 47, 1047, 1049:
		on = s.buf != s.main
	default:
		return 0
	}
	if on {
		return 1
	}
	return 2
}

// replyModeReport answers DECRQM (CSI ? Ps $ p, or CSI Ps $ p for ANSI modes).
func (s *Screen) replyModeReport(private bool, mode int) {
	state := 0
	intro := "\x1b["
	if private {
		intro = "\x1b[?"
		state = s.privateModeState(mode)
	} else if mode == 4 {
		state = 2
		if s.modes.Insert {
			state = 1
		}
	}
	b := []byte(intro)
	b = appendInt(b, mode)
	b = append(b, ';')
	b = appendInt(b, state)
	b = append(b, "$y"...)
	s.sendReply(b)
}

// enterAltScreen switches to the alternate screen, clearing it if asked.
func (s *Screen) enterAltScreen(clearIt bool) {
	if s.buf == s.alt && s.alt != nil {
		if clearIt {
			for _, r := range s.alt.rows {
				r.reset(0)
			}
		}
		return
	}
	if s.alt == nil {
		s.alt = newBuffer(s.cols, s.rows)
	} else if clearIt {
		for _, r := range s.alt.rows {
			r.reset(0)
		}
	}
	s.buf = s.alt
	s.modes.AltScreen = true
	s.top, s.bot = 0, s.rows-1
	s.cur.wrapPending = false
}

// exitAltScreen switches back to the main screen; the alternate screen is
// dropped (cleared) when clearIt is set.
func (s *Screen) exitAltScreen(clearIt bool) {
	if s.buf == s.main {
		return
	}
	s.buf = s.main
	if clearIt {
		s.alt = nil
	}
	s.modes.AltScreen = false
	s.top, s.bot = 0, s.rows-1
	s.cur.wrapPending = false
}
