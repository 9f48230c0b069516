package proto

import "github.com/acpmux/acpmux-tui/screen"

// Terminal describes a pty chat's terminal emulator at one moment.
type Terminal struct {
	// Modes are the modes the harness has set (application cursor keys,
	// bracketed paste, mouse tracking...).
	Modes screen.Modes
	// Scrollback is the number of lines kept above the screen.
	Scrollback int
	// CursorCol and CursorRow are the cursor's 0-based position on the screen.
	CursorCol, CursorRow int
	// CursorVisible is false while the harness hides the cursor.
	CursorVisible bool
	// Cols and Rows are the screen's size.
	Cols, Rows int
}
