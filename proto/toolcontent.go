package proto

import "slices"

// This file holds what an ACP chat's entries carry beyond their text: what
// a tool call produced (ACP's ToolCallContent), the slash commands an agent
// offers (available_commands_update), and the files a prompt links
// (resource_link blocks). Everything here that came from an agent was
// cleaned where it entered (the mux): one-line fields have no control
// character, texts only newline and tab, and no escape sequence at all.

// The types of a tool call's content, as ACP names them.
const (
	ToolContentText     = "content"  // a content block's text
	ToolContentDiff     = "diff"     // an edit: Path, OldText (nil: a new file), NewText
	ToolContentTerminal = "terminal" // a terminal's output (TerminalID, Text: its output as last heard)
)

// MaxToolContentText bounds each text a tool content keeps (Text, OldText,
// NewText); what is past it is dropped and counted in Size. The mux bounds
// all the texts of one tool call's content together too (2 MiB; 64 KiB for
// a permission request's, which travels in the chat's state).
const MaxToolContentText = 1 << 20

// MaxToolContents bounds the contents one tool call keeps.
const MaxToolContents = 16

// ToolContent is one piece of what a tool call produced or will change.
type ToolContent struct {
	// Type is ToolContentText, ToolContentDiff or ToolContentTerminal.
	Type string `json:"type"`
	// Text is a text content's text, or a terminal's output.
	Text string `json:"text,omitempty"`
	// Path is the file a diff changes (one line).
	Path string `json:"path,omitempty"`
	// OldText is the file's text before a diff; nil for a new file.
	OldText *string `json:"oldText,omitempty"`
	// NewText is the file's text after a diff.
	NewText string `json:"newText,omitempty"`
	// TerminalID is the agent's id of a terminal.
	TerminalID string `json:"terminalId,omitempty"`
	// Size is, when a text was cut to its bound, the bytes the agent sent
	// in all (of Text, OldText and NewText together); 0 when nothing was
	// cut.
	Size int64 `json:"size,omitempty"`
}

// Equal reports whether two contents are the same, field for field.
func (c ToolContent) Equal(o ToolContent) bool {
	return c.Type == o.Type && c.Text == o.Text && c.Path == o.Path && c.NewText == o.NewText &&
		c.TerminalID == o.TerminalID && c.Size == o.Size &&
		(c.OldText == nil) == (o.OldText == nil) && (c.OldText == nil || *c.OldText == *o.OldText)
}

// Command is a slash command an ACP agent offers (ACP's AvailableCommand):
// its name without the slash, what it does, and the hint of its input when
// it takes one. All three are one clean line.
type Command struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Hint        string `json:"hint,omitempty"`
}

// MaxCommands bounds the commands kept of one agent.
const MaxCommands = 256

// sameCommands is slices.Equal that tells nil from empty.
func sameCommands(a, b []Command) bool {
	return (a == nil) == (b == nil) && slices.Equal(a, b)
}

// sameContents reports whether two content lists are the same.
func sameContents(a, b []ToolContent) bool {
	return (a == nil) == (b == nil) && slices.EqualFunc(a, b, ToolContent.Equal)
}

// Link is a file a prompt links (an ACP resource_link block): its
// file:// URI and its name as the composer showed it.
type Link struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

// MaxPromptLinks bounds the links one prompt carries.
const MaxPromptLinks = 64
