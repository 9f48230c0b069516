package tui

import (
	"fmt"
	"strings"

	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// This file is the `?` dialog: every key binding, a key and what it does
// on each row, in as many columns as the screen holds; when they do not
// fit its height the rows scroll. Nothing is cut: a description too long
// for its column wraps the layout into fewer columns, down to one, where
// it is wrapped at the dialog's width.

// Keys of the help dialog besides closing it.
var (
	keyHelpDown = key.NewBinding(key.WithKeys("down", "j", "pgdown", "ctrl+d", "end"), key.WithHelp("↓/pgdn", "scroll"))
	keyHelpUp   = key.NewBinding(key.WithKeys("up", "k", "pgup", "ctrl+u", "home"))
)

// helpEntry is one binding as the dialog shows it.
type helpEntry struct{ key, desc string }

// HelpDialog shows every key binding (the `?` key).
type HelpDialog struct {
	c       *Common
	entries []helpEntry
	w, h    int
	off     int      // the first row shown
	laid    []string // rows(), laid out again only by SetSize
}

// NewHelpDialog returns the help for groups of bindings, in their order;
// a binding with no keys (rebound away) is left out.
func NewHelpDialog(c *Common, groups [][]key.Binding) *HelpDialog {
	d := &HelpDialog{c: c}
	for _, g := range groups {
		for _, b := range g {
			if h := b.Help(); b.Enabled() && h.Key != "" {
				d.entries = append(d.entries, helpEntry{h.Key, h.Desc})
			}
		}
	}
	return d
}

// SetSize sets the screen size.
func (d *HelpDialog) SetSize(w, h int) {
	d.w = max(w-4, minDialogW)
	d.h = h
	d.laid = d.rows()
	d.off = min(d.off, d.maxOff())
}

// Update scrolls, and closes on esc, q or ?.
func (d *HelpDialog) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return nil
	}
	step := 1
	switch k.String() {
	case "pgdown", "pgup", "ctrl+d", "ctrl+u":
		step = max(d.bodyRows()-1, 1)
	case "home", "end":
		step = len(d.entries)
	}
	switch {
	case key.Matches(k, keyClose):
		return closeDialog
	case key.Matches(k, keyHelpDown):
		d.off = min(d.off+step, d.maxOff())
	case key.Matches(k, keyHelpUp):
		d.off = max(d.off-step, 0)
	}
	return nil
}

// ShortHelp returns the scroll key, when there is more than shows, and
// the close key.
func (d *HelpDialog) ShortHelp() []key.Binding {
	if d.maxOff() > 0 {
		return []key.Binding{keyHelpDown, keyClose}
	}
	return []key.Binding{keyClose}
}

// inner is the dialog's width inside its border and margin.
func (d *HelpDialog) inner() int { return max(d.w-4, 10) }

// layout is how the entries fall in columns: the key column's width, a
// column's width, and the number of columns.
func (d *HelpDialog) layout() (keyW, colW, cols int) {
	descW := 0
	for _, e := range d.entries {
		keyW = max(keyW, ansi.StringWidth(e.key))
		descW = max(descW, ansi.StringWidth(e.desc))
	}
	colW = keyW + 2 + descW
	const gap = 3
	cols = max((d.inner()+gap)/(colW+gap), 1)
	return keyW, colW, cols
}

// rows are the lines of the layout, whole, before scrolling.
func (d *HelpDialog) rows() []string {
	st := d.c.Styles
	keyW, colW, cols := d.layout()
	n := (len(d.entries) + cols - 1) / cols
	out := make([]string, 0, n)
	for r := range n {
		var b strings.Builder
		for c := range cols {
			i := c*n + r // down the first column, then the next
			if i >= len(d.entries) {
				break
			}
			e := d.entries[i]
			if c > 0 {
				b.WriteString("   ")
			}
			b.WriteString(st.HelpKey.Render(e.key + strings.Repeat(" ", keyW-ansi.StringWidth(e.key))))
			b.WriteString("  ")
			desc := e.desc
			if cols == 1 {
				// One column: a description wider than the dialog wraps
				// under itself rather than being cut.
				for j, part := range strings.Split(ansi.Wrap(desc, max(d.inner()-keyW-2, 8), " "), "\n") {
					if j > 0 {
						out = append(out, b.String())
						b.Reset()
						b.WriteString(strings.Repeat(" ", keyW+2))
					}
					b.WriteString(st.HelpDesc.Render(part))
				}
				continue
			}
			b.WriteString(st.HelpDesc.Render(desc + strings.Repeat(" ", colW-keyW-2-ansi.StringWidth(desc))))
		}
		out = append(out, b.String())
	}
	return out
}

// bodyRows is how many rows of bindings fit the screen: its height less
// the border, the blank lines, the note and the status line under the
// dialog.
func (d *HelpDialog) bodyRows() int { return max(d.h-7, 3) }

// maxOff is the last first row that still fills the dialog.
func (d *HelpDialog) maxOff() int { return max(len(d.laid)-d.bodyRows(), 0) }

// View draws the rows that fit, and says where the others are.
func (d *HelpDialog) View() []string {
	st := d.c.Styles
	rows := d.laid
	shown := rows[min(d.off, len(rows)):]
	if len(shown) > d.bodyRows() {
		shown = shown[:d.bodyRows()]
	}
	lines := []string{""}
	for _, l := range shown {
		lines = append(lines, " "+l)
	}
	note := "Rebind any key under [keys] in the config file."
	if len(rows) > d.bodyRows() {
		note = fmt.Sprintf("rows %d-%d of %d · ↓/↑ scroll · rebind under [keys]", d.off+1, d.off+len(shown), len(rows))
	}
	lines = append(lines, "", " "+st.Dim.Render(truncPlain(note, d.inner())))
	// No wider than the columns and the note need.
	_, colW, cols := d.layout()
	w := max(min(d.w, max(cols*colW+(cols-1)*3, ansi.StringWidth(note))+4), minDialogW)
	return st.Box("keys", lines, w, len(lines)+2, true)
}
