package tui

import (
	"strconv"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
)

// This file is the status line's words: a note, a warning or an error,
// each one plain line (the text may carry an agent's or a bundle's words).

// setStatus shows a note or an error in the status line.
// The text may carry an agent's words (an error it sent): shown plain.
func (m *Model) setStatus(text string, isErr bool) {
	m.status, m.isErr, m.isWarn = plaintext.Line(text), isErr, false
}

// setWarning shows a warning in the status line: something done, with a
// catch the user should know of.
func (m *Model) setWarning(text string) {
	m.status, m.isErr, m.isWarn = plaintext.Line(text), false, true
	m.c.Log.Warn("tui", "warning", text)
}

// fail shows and logs an error.
func (m *Model) fail(what string, err error) {
	text := describeErr(what, err)
	m.c.Log.Error("tui", "what", what, "err", err)
	m.setStatus(firstLine(text), true)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
