package tui

import (
	"github.com/acpmux/acpmux-tui/sessions"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/cursor"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

// This file is the rename dialog (R): one line holding the chat's name,
// enter stores the new one through the server (_acpmux/rename, as
// `acpmux-tui rename` does), whose refusal (empty, too long, not printable, another
// chat's name) shows inline and changes nothing.

// keyRename stores the typed name.
var keyRename = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "rename"))

// chatRenamedMsg is the result of a rename: the chat's stored metadata, or
// the refusal.
type chatRenamedMsg struct {
	id   string
	meta *sessions.Meta
	err  error
}

// renameChat has the server rename chat id, off the UI goroutine.
func renameChat(cs ChatStore, id, name string) tea.Cmd {
	return func() tea.Msg {
		m, err := cs.Rename(id, name)
		return chatRenamedMsg{id: id, meta: m, err: err}
	}
}

// RenameDialog asks for a chat's new name.
type RenameDialog struct {
	c       *Common
	store   ChatStore
	id, was string
	input   textinput.Model
	errText string
	busy    bool
	w       int
}

// NewRenameDialog returns the dialog for chat id, whose name is was; the
// line starts with that name, the cursor at its end.
func NewRenameDialog(c *Common, store ChatStore, id, was string) *RenameDialog {
	in := textinput.New()
	in.Prompt = ""
	in.CharLimit = sessions.MaxNameBytes
	in.Cursor.SetMode(cursor.CursorStatic)
	in.SetValue(was)
	in.CursorEnd()
	in.Focus()
	return &RenameDialog{c: c, store: store, id: id, was: was, input: in}
}

// ErrText returns the refusal shown inline, if any.
func (d *RenameDialog) ErrText() string { return d.errText }

// Value returns the name as typed so far.
func (d *RenameDialog) Value() string { return d.input.Value() }

// SetSize sets the screen size.
func (d *RenameDialog) SetSize(w, h int) {
	d.w = max(min(w-4, 72), minDialogW)
	d.input.Width = max(d.w-6, 1)
}

// Update edits the name; enter renames (the same name closes: nothing to
// change), esc cancels.
func (d *RenameDialog) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case chatRenamedMsg:
		if msg.id != d.id {
			return nil
		}
		d.busy = false
		if msg.err != nil {
			d.errText = msg.err.Error()
			return nil
		}
		return closeDialog
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, keyCancel):
			return closeDialog
		case key.Matches(msg, keyRename):
			if d.busy {
				return nil
			}
			if d.input.Value() == d.was {
				return closeDialog
			}
			d.busy, d.errText = true, ""
			return renameChat(d.store, d.id, d.input.Value())
		}
		d.errText = ""
		var cmd tea.Cmd
		d.input, cmd = d.input.Update(msg)
		return cmd
	}
	return nil
}

// ShortHelp returns enter and esc.
func (d *RenameDialog) ShortHelp() []key.Binding { return []key.Binding{keyRename, keyCancel} }

// View draws the line and any refusal.
func (d *RenameDialog) View() []string {
	st := d.c.Styles
	iw := d.w - 4
	lines := []string{"", " " + st.Dim.Render(truncPlain("chat "+d.id+", now "+d.was, iw-1)), "", " " + d.input.View()}
	if d.errText != "" {
		lines = append(lines, "")
		for _, l := range errorLines(st, d.errText, iw-1) {
			lines = append(lines, " "+l)
		}
	}
	lines = append(lines, "")
	return st.Box("rename chat", lines, d.w, len(lines)+2, true)
}

// renamed shows the result of a rename in the dialog (a refusal stays
// there) and, once stored, in the status line and the list.
func (m *Model) renamed(msg chatRenamedMsg) tea.Cmd {
	var cmd tea.Cmd
	if m.dialog != nil {
		cmd = m.dialog.Update(msg)
	}
	if msg.err != nil {
		if m.dialog == nil {
			m.fail("rename", msg.err)
		}
		return cmd
	}
	m.setStatus("renamed "+msg.id+" to "+msg.meta.Name, false)
	return tea.Batch(cmd, m.reloadList(""))
}
