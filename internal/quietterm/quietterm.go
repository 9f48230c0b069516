// Package quietterm keeps Bubble Tea's package init from asking the
// terminal anything.
//
// bubbletea v1's init calls lipgloss.HasDarkBackground, so that a program
// asks the terminal for its background before Bubble Tea reads the
// keyboard. In acpmux-tui that made every command whose output is a
// terminal (ls, show, new, each hook) write an OSC 11 query and a cursor
// report request and wait for the answers: a round trip to the terminal
// (over ssh, to the far end and back), or up to termenv's five-second
// timeout in a terminal that answers neither. The TUI asks for its
// background itself, on its own renderer (launch.go, tuiRenderer), and then
// gives the answer to the default renderer (Settle).
//
// This package's init sets the default renderer's background before
// bubbletea's init runs, which then has nothing to ask. Go initialises
// packages in import-path order among those whose imports are done
// (the spec's "Package initialization"): this package imports only lipgloss,
// which bubbletea imports too, and "github.com/acpmux/..." sorts before
// "github.com/charmbracelet/bubbletea", so it always runs first.
// TestNoCommandAsksTheTerminal (main package) holds that.
package quietterm

import "github.com/charmbracelet/lipgloss"

func init() {
	// A placeholder until Settle: dark is lipgloss's own guess when a
	// terminal does not answer.
	lipgloss.SetHasDarkBackground(true)
}

// Settle gives the default renderer the background a renderer found by
// asking the terminal (the TUI's), for the styles made without a renderer
// of their own (bubbles' help, for one).
func Settle(dark bool) {
	lipgloss.SetHasDarkBackground(dark)
}
