package tui

import (
	"fmt"

	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is the options chooser (o): an ACP chat's session mode and
// each of its agent's configuration options (its model...) with their
// values, the current one marked. enter sets the value under the cursor
// through the server (_acpmux/setOption: session/set_mode or
// session/set_config_option to the agent, as `acpmux-tui set` does); the
// agent's refusal shows in the box, which stays open, and its acceptance
// closes it, the summary showing the new value as the server tells it
// (State.Settings).

// ChatOptions is what the chooser needs of the server: a chat's mode and
// options as its agent last said them, and a change of one. Both may
// block.
type ChatOptions interface {
	ChatOptions(id string) (proto.OptionsResult, error)
	SetOption(id, option, value string) (proto.OptionsResult, error)
}

// optionsLoadedMsg brings the options of chat id as the chooser opens.
type optionsLoadedMsg struct {
	id  string
	res proto.OptionsResult
	err error
}

// optionSetMsg brings the server's answer to a change: the options then,
// or the refusal (the agent's, or the server's).
type optionSetMsg struct {
	id  string
	res proto.OptionsResult
	err error
}

// keySetOption sets the value under the cursor.
var keySetOption = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "set"))

// openOptions opens the chooser on chat e; a chat whose harness does not
// speak ACP (as this client's table says: a host's chat is left to its
// server) is told so in the status line.
func (m *Model) openOptions(e sessions.Entry) tea.Cmd {
	if m.table != nil && hostOf(e.ID) == "" {
		if spec, ok := m.table.Get(e.Meta.Harness); ok && spec.Transport != harness.TransportACP {
			m.setStatus(fmt.Sprintf("%s runs %s, a terminal harness: only an ACP chat has modes and options", e.Name(), e.Meta.Harness), true)
			return nil
		}
	}
	return m.openDialog(NewOptionsDialog(m.c, m.mux, e.ID, e.Name()))
}

// optionRow is one value row of the chooser: option o, value v of it.
type optionRow struct{ o, v int }

// OptionsDialog lists an ACP chat's mode and options and sets one.
type OptionsDialog struct {
	c        *Common
	mux      ChatOptions
	id, name string
	loading  bool
	busy     bool // a change is with the agent
	opts     []proto.ChatOption
	rows     []optionRow
	cur      int
	top      int // first row of the list shown
	errText  string
	w, h, sw int
}

// NewOptionsDialog returns the chooser of chat id (named name); it reads
// the options as it opens (Init).
func NewOptionsDialog(c *Common, mux ChatOptions, id, name string) *OptionsDialog {
	return &OptionsDialog{c: c, mux: mux, id: id, name: name, loading: true}
}

// Init reads the chat's options.
func (d *OptionsDialog) Init() tea.Cmd {
	mux, id := d.mux, d.id
	return func() tea.Msg {
		res, err := mux.ChatOptions(id)
		return optionsLoadedMsg{id: id, res: res, err: err}
	}
}

// ErrText returns the error shown in the box, if any.
func (d *OptionsDialog) ErrText() string { return d.errText }

// Current returns the option and value under the cursor ("" when none).
func (d *OptionsDialog) Current() (option, value string) {
	if d.cur >= len(d.rows) {
		return "", ""
	}
	r := d.rows[d.cur]
	return d.opts[r.o].ID, d.opts[r.o].Values[r.v].ID
}

// SetSize sets the screen size.
func (d *OptionsDialog) SetSize(w, h int) {
	d.sw = w
	d.w = max(min(w-4, 72), minDialogW)
	d.h = h
	if d.errText != "" {
		d.w = max(d.w, min(w-4, 96))
	}
	d.scroll()
}

// setOptions shows opts, the cursor on the value current before (or, the
// first time, on the first option's current value).
func (d *OptionsDialog) setOptions(opts []proto.ChatOption) {
	was, wasValue := d.Current()
	d.opts, d.rows, d.cur = opts, nil, 0
	for i, o := range opts {
		for j, v := range o.Values {
			if was != "" && o.ID == was && v.ID == wasValue || was == "" && i == 0 && v.ID == o.Current {
				d.cur = len(d.rows)
			}
			d.rows = append(d.rows, optionRow{i, j})
		}
	}
	d.scroll()
}

// listRoom is how many lines of the list the box shows.
func (d *OptionsDialog) listRoom() int { return max(d.h-12, 3) }

// scroll keeps the cursor's line, and the header of its option, shown.
func (d *OptionsDialog) scroll() {
	if d.cur >= len(d.rows) {
		d.top = 0
		return
	}
	// Row k of option o is line k+o+1: each option's header comes first.
	line := d.cur + d.rows[d.cur].o + 1
	if line-1 < d.top {
		d.top = max(line-1, 0)
	}
	if line >= d.top+d.listRoom() {
		d.top = line - d.listRoom() + 1
	}
}

// setErr shows an error (or none) and sizes the box for it.
func (d *OptionsDialog) setErr(text string) {
	d.errText = text
	d.SetSize(d.sw, d.h)
}

// Update moves, sets, and takes the server's answers.
func (d *OptionsDialog) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case optionsLoadedMsg:
		if msg.id != d.id {
			return nil
		}
		d.loading = false
		if msg.err != nil {
			d.setErr(msg.err.Error())
			return nil
		}
		d.setOptions(msg.res.Options)
		if len(d.opts) == 0 {
			text := "its agent offers no modes or options"
			if !msg.res.Running {
				text = "no modes or options known: its agent has not run yet (start the chat, then look again)"
			}
			d.setErr(text)
		}
	case optionSetMsg:
		if msg.id != d.id {
			return nil
		}
		d.busy = false
		if msg.err != nil {
			d.setErr(msg.err.Error())
			return nil
		}
		option, _ := d.Current()
		d.setOptions(msg.res.Options)
		note := "set"
		if o, err := proto.FindOption(d.opts, option); err == nil {
			note = fmt.Sprintf("%s: %s is %s now", d.name, o.Name, o.CurrentName())
		}
		return tea.Batch(closeDialog, func() tea.Msg { return infoMsg(note) })
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, keyCancel):
			return closeDialog
		case d.loading || d.busy:
		case key.Matches(msg, keyItemUp):
			d.cur = max(d.cur-1, 0)
			d.setErr("")
			d.scroll()
		case key.Matches(msg, keyItemDn):
			d.cur = max(min(d.cur+1, len(d.rows)-1), 0)
			d.setErr("")
			d.scroll()
		case key.Matches(msg, keySetOption) && len(d.rows) > 0:
			r := d.rows[d.cur]
			o := d.opts[r.o]
			if o.Values[r.v].ID == o.Current {
				return closeDialog // nothing to change
			}
			d.busy = true
			d.setErr("")
			mux, id, option, value := d.mux, d.id, o.ID, o.Values[r.v].ID
			return func() tea.Msg {
				res, err := mux.SetOption(id, option, value)
				return optionSetMsg{id: id, res: res, err: err}
			}
		}
	}
	return nil
}

// ShortHelp returns the chooser's keys.
func (d *OptionsDialog) ShortHelp() []key.Binding {
	return []key.Binding{keyMove, keySetOption, keyCancel}
}

// View draws each option and its values, the current value marked ●, the
// cursor's row highlighted; a long list scrolls to keep the cursor shown.
func (d *OptionsDialog) View() []string {
	st := d.c.Styles
	iw := d.w - 4
	lines := []string{""}
	switch {
	case d.loading:
		lines = append(lines, " "+st.Dim.Render("asking the server…"))
	default:
		var list []string
		row := 0
		for _, o := range d.opts {
			head := o.Name
			if o.Description != "" {
				head += " · " + o.Description
			}
			list = append(list, " "+st.Bold.Render(truncPlain(head, iw-1)))
			for _, v := range o.Values {
				mark := "○"
				if v.ID == o.Current {
					mark = "●"
				}
				text := mark + " " + v.Name
				if v.Description != "" {
					text += "  " + st.Dim.Render(v.Description)
				}
				if v.Group != "" {
					text += st.Dim.Render("  [" + v.Group + "]")
				}
				if row == d.cur {
					list = append(list, st.SelectedName.Render("› "+fitPlain(ansi.Strip(text), iw-3)))
				} else {
					list = append(list, "   "+truncPlain(text, iw-3))
				}
				row++
			}
		}
		end := min(d.top+d.listRoom(), len(list))
		lines = append(lines, list[min(d.top, end):end]...)
		if d.busy {
			lines = append(lines, "", " "+st.Dim.Render("asking the agent…"))
		}
	}
	if d.errText != "" {
		lines = append(lines, "")
		for _, l := range errorLines(st, ansi.Wrap(d.errText, iw-3, " "), iw-1) {
			lines = append(lines, " "+l)
		}
	}
	lines = append(lines, "")
	return st.Box(truncPlain("mode and options · "+d.name, iw), lines, d.w, len(lines)+2, true)
}
