package tui

import (
	"encoding/base64"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/tui/markdown"
)

// maxClipboard bounds what a copy sends to the terminal's clipboard: many
// terminals refuse a longer OSC 52, and the text travels in the frame.
const maxClipboard = 256 << 10

// clipboardMsg asks the app to put text on the terminal's clipboard (OSC
// 52, written between frames); what names what was copied, for the status
// line.
type clipboardMsg struct{ what, text string }

// osc52 is the sequence that sets the clipboard to text: base64 makes any
// text safe inside it.
func osc52(text string) string {
	return "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte(text)) + "\a"
}

// copyEntry returns the command that copies the last agent message of
// entries up to end (its markdown source, as the agent sent it, cleaned),
// or with code its last fenced code block; nil when there is none.
func copyEntry(entries []proto.Entry, end int, code bool) tea.Cmd {
	for i := min(end, len(entries)) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Kind != proto.EntryAgent {
			continue
		}
		what, text := "the agent's message", e.Text
		if code {
			blocks := markdown.CodeBlocks(e.Text)
			if len(blocks) == 0 {
				continue
			}
			what, text = "the code block", blocks[len(blocks)-1]
		}
		if len(text) > maxClipboard {
			text = text[:maxClipboard]
			what += " (its first 256 KiB)"
		}
		return func() tea.Msg { return clipboardMsg{what, text} }
	}
	what := "no message of the agent"
	if code {
		what = "no code block"
	}
	return func() tea.Msg { return clipboardMsg{what: what} }
}
