package proto

// Terminal describes a pty chat's terminal emulator at one moment.
type Terminal struct {
	// Modes are the modes the harness has set (application cursor keys,
	// bracketed paste, mouse tracking...).
	Modes TerminalModes
	// Scrollback is the number of lines kept above the screen.
	Scrollback int
	// CursorCol and CursorRow are the cursor's 0-based position on the screen.
	CursorCol, CursorRow int
	// CursorVisible is false while the harness hides the cursor.
	CursorVisible bool
	// Cols and Rows are the screen's size.
	Cols, Rows int
}

// TerminalModes are the terminal modes a program has set in a pty chat,
// which a client needs to encode input (keys, mouse, paste) and to draw the
// cursor. The emulator (package screen) keeps them as this type, so a
// Terminal carries them without a copy.
type TerminalModes struct {
	// AltScreen is true while the alternate screen (?47, ?1047, ?1049) is shown.
	AltScreen bool
	// BracketedPaste is mode ?2004.
	BracketedPaste bool
	// MouseTracking is the mouse tracking mode the program asked for (9, 1000,
	// 1002 or 1003), or 0 when the mouse is not tracked.
	MouseTracking int
	// MouseSGR is mode ?1006: mouse reports in SGR encoding.
	MouseSGR bool
	// AppCursor is mode ?1 (DECCKM): cursor keys send application sequences.
	AppCursor bool
	// AppKeypad is DECKPAM (ESC =): the keypad sends application sequences.
	AppKeypad bool
	// Autowrap is mode ?7 (DECAWM).
	Autowrap bool
	// CursorVisible is mode ?25 (DECTCEM).
	CursorVisible bool
	// Origin is mode ?6 (DECOM): cursor addressing relative to the scroll region.
	Origin bool
	// Insert is mode 4 (IRM): printed characters shift the rest of the line right.
	Insert bool
	// FocusEvents is mode ?1004: the program wants focus in/out reports.
	FocusEvents bool
	// SyncOutput is mode ?2026: the program is drawing a frame that should be
	// shown only once the mode is reset.
	SyncOutput bool
	// CursorStyle is the last DECSCUSR (CSI Ps SP q) value, 0 for the default.
	CursorStyle int
}
