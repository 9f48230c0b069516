package tui

import tea "github.com/charmbracelet/bubbletea"

// This file is what the model tells package frame about the message it
// was given last: that it changed nothing drawn (no frame), or that it
// must be drawn at once (a key's echo, not held for the frame's end).

// Unchanged reports whether the last message changed nothing View draws,
// so the screen need not be drawn again (package frame asks). Only news of
// chats that are not shown, whose sidebar rows look as they did, is known
// to change nothing: with 100 chats at work that is most messages.
func (m *Model) Unchanged() bool { return m.unchanged }

// Urgent reports whether the last message must be drawn at once, inside a
// frame of changes being gathered (package frame asks): the echo of a key
// typed into the chat shown, which a user waits for.
func (m *Model) Urgent() bool { return m.urgent }

// drawsNothing reports whether msg, just handled, changed nothing drawn.
func (m *Model) drawsNothing(msg tea.Msg) bool {
	if _, tick := msg.(folderTickMsg); tick || m.quiet {
		return true
	}
	ch, ok := msg.(chatsChangedMsg)
	if !ok || m.dialog != nil || m.sideChanged {
		return false
	}
	for _, id := range ch.ids {
		if id == m.selected {
			return false
		}
	}
	return true
}
