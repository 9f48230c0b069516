package main

import "os"

// terminalModes is what the fake prints, before anything else, when
// $ACPMUX_FAKE_TERMINAL_MODES is set (with any $ACPMUX_FAKE_MODE): it sets
// the terminal modes a full-screen harness sets and leaves them set, as one
// that is killed would.
const terminalModes = "\x1b[?1049h" + // the alternate screen
	"\x1b[?1003h\x1b[?1006h" + // mouse tracking: any motion, SGR encoding
	"\x1b[?1004h" + // focus events
	"\x1b=" + // DECKPAM: application keypad
	"\x1b[?1h" + // DECCKM: application cursor keys
	"\x1b[?2004h" + // bracketed paste
	"\x1b[?25l" + // the cursor hidden
	"\x1b[?7l" + // no autowrap
	"\x1b[4h" + // IRM: insert mode
	"\x1b[5 q" + // DECSCUSR: a blinking bar cursor
	"\x1b[>4;2m" + // modifyOtherKeys 2
	"\x1b[>1u" + // the kitty keyboard protocol: push
	"\x1b]2;fake harness\x07" + // the window title
	"\x1b[31m" // red text

// init runs before main, so the modes come before "ready>" whatever the
// mode. (A hook here rather than a mode of main's, so every mode can have it.)
func init() {
	if os.Getenv("ACPMUX_FAKE_TERMINAL_MODES") != "" {
		os.Stdout.WriteString(terminalModes)
	}
}
