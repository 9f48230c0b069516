package tui

import (
	"strings"

	"github.com/acpmux/acpmux-tui/third_party/bubbles/help"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// Dialog is a modal box drawn over the screen; while one is open it gets
// every key and every message the root model does not handle itself.
type Dialog interface {
	// Update handles a key or one of the dialog's own messages. A dialog
	// closes itself by returning closeDialog.
	Update(msg tea.Msg) tea.Cmd
	// SetSize tells the dialog the size of the screen it is drawn on.
	SetSize(w, h int)
	// View returns the dialog's box, each line the same width.
	View() []string
	// ShortHelp returns the bindings shown in the help bar.
	ShortHelp() []key.Binding
}

// dialogIniter is a dialog with work to start as it opens (the folder
// picker's first listing).
type dialogIniter interface {
	Init() tea.Cmd
}

// pushDialogMsg asks the root model to put d on top of the dialog that
// sent it; d's result comes back to that one as a message.
type pushDialogMsg struct{ d Dialog }

// pushDialog returns the command that pushes d over the sending dialog.
func pushDialog(d Dialog) tea.Cmd { return func() tea.Msg { return pushDialogMsg{d} } }

// pushDialog puts d on top of the stack of dialogs.
func (m *Model) pushDialog(d Dialog) tea.Cmd {
	if m.dialog != nil {
		m.below = append(m.below, m.dialog)
	}
	return m.openDialog(d)
}

// popDialog closes the top dialog; the one below, if any, gets the keys
// again.
func (m *Model) popDialog() {
	m.dialog = nil
	if n := len(m.below); n > 0 {
		m.dialog, m.below = m.below[n-1], m.below[:n-1]
	}
}

// fromPushed takes the answer of a pushed folder picker (owner tags it):
// the picker is popped and the answer goes to the dialog below, which
// pushed it. A picker nested inside another dialog (new chat) is not on
// the stack: its answer goes to the top dialog, its owner.
func (m *Model) fromPushed(owner int, msg tea.Msg) tea.Cmd {
	if p, ok := m.dialog.(*FolderPicker); ok && p.owner == owner && len(m.below) > 0 {
		m.popDialog()
	}
	if m.dialog == nil {
		return nil
	}
	return m.dialog.Update(msg)
}

var (
	keyYes    = key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "yes"))
	keyNo     = key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n/esc", "no"))
	keyChoose = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "choose"))
	keyMove   = key.NewBinding(key.WithKeys("up", "down", "k", "j"), key.WithHelp("↑/↓", "move"))
	keyClose  = key.NewBinding(key.WithKeys("esc", "q", "?"), key.WithHelp("esc", "close"))
	keyItemUp = key.NewBinding(key.WithKeys("up", "k"))
	keyItemDn = key.NewBinding(key.WithKeys("down", "j"))
)

// minDialogW is the narrowest a dialog is drawn; on a smaller screen its
// right side is cut.
const minDialogW = 24

// fitDialogW is the width of a dialog sized to its content: the widest of
// its lines (content plus a border and a column of padding each side) and
// its title, at least minDialogW and at most the screen less a margin. A
// box no wider than what it holds sits centred with its text.
func fitDialogW(screenW int, title string, lines ...string) int {
	need := ansi.StringWidth(title) + 6 // "╭─ title ─╮"
	for _, l := range lines {
		need = max(need, ansi.StringWidth(l)+4)
	}
	return max(min(need, screenW-4), minDialogW)
}

// Confirm asks a yes/no question; yes runs the command it was given.
type Confirm struct {
	c        *Common
	title    string
	lines    []string
	yesLabel string
	yes      tea.Cmd
	w        int
}

// NewConfirm returns a confirmation dialog; yesLabel says what y does.
func NewConfirm(c *Common, title string, lines []string, yesLabel string, yes tea.Cmd) *Confirm {
	return &Confirm{c: c, title: title, lines: lines, yesLabel: yesLabel, yes: yes}
}

// SetSize sets the screen size; the box fits its text.
func (d *Confirm) SetSize(w, h int) {
	d.w = fitDialogW(w, d.title, append([]string{d.buttons(nil)}, d.lines...)...)
}

// buttons is the line of keys: y and what it does, n to cancel.
func (d *Confirm) buttons(st *Styles) string {
	if st == nil {
		return "y " + d.yesLabel + "   n cancel"
	}
	return st.HelpKey.Render("y") + st.Dim.Render(" "+d.yesLabel+"   ") + st.HelpKey.Render("n") + st.Dim.Render(" cancel")
}

// Update answers y or n.
func (d *Confirm) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, keyYes):
		return tea.Batch(closeDialog, d.yes)
	case key.Matches(k, keyNo):
		return closeDialog
	}
	return nil
}

// ShortHelp returns y and n.
func (d *Confirm) ShortHelp() []key.Binding { return []key.Binding{keyYes, keyNo} }

// View draws the question.
func (d *Confirm) View() []string {
	st := d.c.Styles
	lines := []string{""}
	for _, l := range d.lines {
		lines = append(lines, " "+truncPlain(l, d.w-4))
	}
	lines = append(lines, "", " "+d.buttons(st))
	return st.Box(d.title, lines, d.w, len(lines)+2, true)
}

// Chooser picks one item of a list; choose makes the command for it. An
// item with a refusal is listed but not chosen: enter on it shows the
// refusal in the box and the dialog stays open.
type Chooser struct {
	c        *Common
	title    string
	items    []string
	notes    []string
	refusals []string
	errText  string
	cur      int
	choose   func(string) tea.Cmd
	w, sw    int
}

// NewChooser returns a list dialog; notes (may be nil) are shown beside items.
func NewChooser(c *Common, title string, items, notes []string, choose func(string) tea.Cmd) *Chooser {
	return &Chooser{c: c, title: title, items: items, notes: notes, choose: choose}
}

// Refuse sets, for each item, why it cannot be chosen ("" when it can).
func (d *Chooser) Refuse(refusals []string) *Chooser {
	d.refusals = refusals
	return d
}

// ErrText returns the refusal shown, if any.
func (d *Chooser) ErrText() string { return d.errText }

// listed are the items as listed: each name, padded to the longest so
// that the notes start in one column, and its note ("" for none).
func (d *Chooser) listed() (names, notes []string) {
	width := 0
	for _, it := range d.items {
		width = max(width, ansi.StringWidth(it))
	}
	names, notes = make([]string, len(d.items)), make([]string, len(d.items))
	for i, it := range d.items {
		names[i] = it
		if i < len(d.notes) && d.notes[i] != "" {
			names[i] += strings.Repeat(" ", width-ansi.StringWidth(it))
			notes[i] = "  " + d.notes[i]
		}
	}
	return names, notes
}

// SetSize sets the screen size; the box fits its items.
func (d *Chooser) SetSize(w, h int) {
	names, notes := d.listed()
	rows := make([]string, len(d.items))
	for i := range d.items {
		rows[i] = "› " + names[i] + notes[i]
	}
	d.sw = w
	d.w = fitDialogW(w, d.title, rows...)
	if d.errText != "" {
		// A refusal is as wide as the screen allows, so it is read whole.
		d.w = max(d.w, min(w-4, 96))
	}
}

// Update moves and chooses.
func (d *Chooser) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, keyItemUp):
		d.cur = max(d.cur-1, 0)
		d.setErr("")
	case key.Matches(k, keyItemDn):
		d.cur = min(d.cur+1, len(d.items)-1)
		d.setErr("")
	case key.Matches(k, keyChoose) && len(d.items) > 0:
		if d.cur < len(d.refusals) && d.refusals[d.cur] != "" {
			d.setErr(d.refusals[d.cur])
			return nil
		}
		return tea.Batch(closeDialog, d.choose(d.items[d.cur]))
	case key.Matches(k, keyCancel):
		return closeDialog
	}
	return nil
}

// setErr shows a refusal (or none) and sizes the box for it.
func (d *Chooser) setErr(text string) {
	if text == d.errText {
		return
	}
	d.errText = text
	d.SetSize(d.sw, 0)
}

// ShortHelp returns the chooser's keys.
func (d *Chooser) ShortHelp() []key.Binding { return []key.Binding{keyMove, keyChoose, keyCancel} }

// View draws the list.
func (d *Chooser) View() []string {
	st := d.c.Styles
	var lines []string
	names, notes := d.listed()
	for i := range d.items {
		if i == d.cur {
			lines = append(lines, st.SelectedName.Render("› "+fitPlain(names[i]+notes[i], d.w-4)))
		} else {
			lines = append(lines, "  "+names[i]+st.Dim.Render(notes[i]))
		}
	}
	if d.errText != "" {
		lines = append(lines, "")
		lines = append(lines, errorLines(st, ansi.Wrap(d.errText, d.w-6, " "), d.w-4)...)
	}
	return st.Box(d.title, lines, d.w, len(lines)+2, true)
}

// newHelp returns a help model drawn with the app's styles.
func newHelp(c *Common) help.Model {
	h := help.New()
	st := c.Styles
	h.Styles.ShortKey = st.HelpKey
	h.Styles.ShortDesc = st.HelpDesc
	h.Styles.ShortSeparator = st.Dim
	h.Styles.FullKey = st.HelpKey
	h.Styles.FullDesc = st.HelpDesc
	h.Styles.FullSeparator = st.Dim
	h.Styles.Ellipsis = st.Dim
	return h
}

// errorLines shows an error (such as a -32602 refusal, one bad entry a line)
// in a dialog of inner width w: a mark on the first line, at most
// maxErrLines lines.
func errorLines(st *Styles, text string, w int) []string {
	lines := strings.Split(text, "\n")
	if len(lines) > maxErrLines {
		lines = append(lines[:maxErrLines-1], "…")
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		prefix := "  "
		if i == 0 {
			prefix = "✗ "
		}
		out[i] = st.Error.Render(truncPlain(prefix+l, w))
	}
	return out
}
