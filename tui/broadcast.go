package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/acpmux/acpmux-tui/third_party/bubbles/cursor"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/harness"
)

// This file is one prompt to several chats: the chats marked in the list
// (space), or the selected one when none is, get what is typed in the
// dialog (p): an ACP chat as a prompt (a turn of its agent, started if it
// is not running, as `acpmux-tui prompt` does), a running terminal chat as
// typed text and Enter. A terminal chat that is not running is left out,
// saying so: keys typed before its harness is ready would be lost.

// keyBroadcast sends the text to every chat of the dialog.
var keyBroadcast = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send to each"))

// broadcastTarget is one chat of the dialog and how it gets the text.
type broadcastTarget struct {
	id, name, harness string
	// acp sends a prompt; else the text is typed, when running.
	acp, running bool
}

// how says what the chat gets.
func (t broadcastTarget) how() string {
	switch {
	case t.acp:
		return "prompt"
	case t.running:
		return "typed"
	}
	return "not running: left out"
}

// broadcastDoneMsg is the end of one chat's part: its turn ended, or the
// text was typed, or why not.
type broadcastDoneMsg struct {
	name string
	err  error
}

// BroadcastDialog takes one text for several chats.
type BroadcastDialog struct {
	c       *Common
	mux     Mux
	targets []broadcastTarget
	input   textinput.Model
	w       int
}

// openBroadcast opens the dialog on the marked chats, or on the selected
// one when none is marked.
func (m *Model) openBroadcast() tea.Cmd {
	ids := m.sidebar.Marked()
	if len(ids) == 0 {
		if e, ok := m.sidebar.Selected(); ok {
			ids = []string{e.ID}
		}
	}
	var targets []broadcastTarget
	for _, id := range ids {
		e, ok := m.sidebar.Entry(id)
		if !ok || e.Meta == nil {
			continue
		}
		st := m.sidebar.states[id]
		t := broadcastTarget{id: id, name: e.Name(), harness: e.Meta.Harness, running: st.Status.Live()}
		switch {
		case st.Transport != "":
			t.acp = st.Transport == harness.TransportACP
		case m.table != nil && hostOf(id) == "":
			spec, ok := m.table.Get(e.Meta.Harness)
			t.acp = ok && spec.Transport == harness.TransportACP
		default:
			t.acp = true // a host's chat never started here: its server knows, and refuses a terminal chat's prompt
		}
		targets = append(targets, t)
	}
	if len(targets) == 0 {
		m.setStatus("no chat to send to: mark chats with "+m.c.Keys.Mark.Help().Key+", or select one", true)
		return nil
	}
	return m.openDialog(NewBroadcastDialog(m.c, m.mux, targets))
}

// NewBroadcastDialog returns the dialog for targets.
func NewBroadcastDialog(c *Common, mux Mux, targets []broadcastTarget) *BroadcastDialog {
	in := textinput.New()
	in.Prompt = "> "
	in.Placeholder = "the same prompt for each"
	in.Cursor.SetMode(cursor.CursorStatic)
	in.CharLimit = 64 << 10
	in.Focus()
	return &BroadcastDialog{c: c, mux: mux, targets: targets, input: in}
}

// SetSize sets the screen size.
func (d *BroadcastDialog) SetSize(w, h int) {
	d.w = max(min(w-4, 96), minDialogW)
	d.input.Width = max(d.w-8, 1)
}

// Update edits the text; enter sends it to each chat and closes, esc
// cancels.
func (d *BroadcastDialog) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, keyCancel):
		return closeDialog
	case key.Matches(k, keyBroadcast) && !k.Paste:
		text := strings.TrimSpace(d.input.Value())
		if text == "" {
			return nil
		}
		cmds := []tea.Cmd{closeDialog}
		sent := 0
		for _, t := range d.targets {
			if cmd := sendTo(d.mux, t, text); cmd != nil {
				cmds = append(cmds, cmd)
				sent++
			}
		}
		note := fmt.Sprintf("sent to %d of %d chats", sent, len(d.targets))
		cmds = append(cmds, func() tea.Msg { return broadcastSentMsg(note) })
		return tea.Batch(cmds...)
	}
	var cmd tea.Cmd
	d.input, cmd = d.input.Update(k)
	return cmd
}

// broadcastSentMsg says, once the dialog closed, how many chats got it.
type broadcastSentMsg string

// sendTo is what gives text to chat t, or nil when it cannot take it.
func sendTo(m Mux, t broadcastTarget, text string) tea.Cmd {
	switch {
	case t.acp:
		return func() tea.Msg {
			_, err := m.Prompt(context.Background(), t.id, text)
			if err != nil {
				err = agentError{err}
			}
			return broadcastDoneMsg{t.name, err}
		}
	case t.running:
		return func() tea.Msg { return broadcastDoneMsg{t.name, m.Write(t.id, []byte(text+"\r"))} }
	}
	return nil
}

// ShortHelp returns enter and esc.
func (d *BroadcastDialog) ShortHelp() []key.Binding { return []key.Binding{keyBroadcast, keyCancel} }

// View draws the line and the chats with what each gets.
func (d *BroadcastDialog) View() []string {
	st := d.c.Styles
	iw := d.w - 4
	lines := []string{"", " " + d.input.View(), ""}
	for _, t := range d.targets {
		row := fmt.Sprintf("%s · %s · %s", t.name, t.harness, t.how())
		style := st.Dim
		if !t.acp && !t.running {
			style = st.Warn
		}
		lines = append(lines, " "+style.Render(truncPlain(row, iw-1)))
	}
	lines = append(lines, "")
	return st.Box(fmt.Sprintf("one prompt to %d chats", len(d.targets)), lines, d.w, len(lines)+2, true)
}

// broadcastDone shows a chat's failure; the marks stay until the user
// clears them, so the same chats can be asked again.
func (m *Model) broadcastDone(msg broadcastDoneMsg) tea.Cmd {
	if msg.err != nil {
		m.fail("send to "+msg.name, msg.err)
	}
	return nil
}
