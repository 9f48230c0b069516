package tui

import (
	"fmt"
	"strings"

	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is the sign-in dialog (A): the ways to sign in that a failed
// ACP chat's agent offered (State.SignIn, cleaned by the mux), one chosen
// with enter and taken through the server (_acpmux/signIn, as
// `acpmux-tui sign-in` does). An agent method restarts the chat, which
// signs in; a terminal method starts a terminal chat running its command
// (the ACP chat starts again when it ends); an environment-variable method
// says, in the box, what to set and where.

// SignIns is what the dialog needs of the server; client.Remote and
// client.Router have it. It may block.
type SignIns interface {
	SignIn(id, method string) (proto.SignInResult, error)
}

// signedInMsg brings the server's answer to a sign-in.
type signedInMsg struct {
	id  string
	res proto.SignInResult
	err error
}

// keySignIn takes the offer under the cursor.
var keySignIn = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "sign in"))

// openSignIn opens the dialog on chat e when its agent wants a sign-in,
// else says in the status line that it does not.
func (m *Model) openSignIn(e sessions.Entry) tea.Cmd {
	offers := m.mux.State(e.ID).SignIn // an in-memory read
	s, ok := m.mux.(SignIns)
	switch {
	case len(offers) == 0:
		m.setStatus(e.Name()+": its agent has not asked to sign in", true)
		return nil
	case !ok:
		m.setStatus("this server cannot sign a chat in", true)
		return nil
	}
	return m.openDialog(NewSignInDialog(m.c, s, e.ID, e.Name(), offers))
}

// SignInDialog lists a chat's sign-in offers and takes one.
type SignInDialog struct {
	c        *Common
	mux      SignIns
	id, name string
	offers   []proto.SignIn
	cur      int
	busy     bool
	info     string // what to do, for an env_var method
	errText  string
	w, sw    int
}

// NewSignInDialog returns the dialog of chat id (named name) and its
// agent's offers.
func NewSignInDialog(c *Common, mux SignIns, id, name string, offers []proto.SignIn) *SignInDialog {
	return &SignInDialog{c: c, mux: mux, id: id, name: name, offers: offers}
}

// Current returns the id of the offer under the cursor.
func (d *SignInDialog) Current() string { return d.offers[d.cur].ID }

// Info returns what the box says to do (an env_var method's variables).
func (d *SignInDialog) Info() string { return d.info }

// ErrText returns the error shown in the box, if any.
func (d *SignInDialog) ErrText() string { return d.errText }

// SetSize sets the screen size.
func (d *SignInDialog) SetSize(w, _ int) {
	d.sw = w
	d.w = max(min(w-4, 88), minDialogW)
}

// Update moves, takes an offer, and takes the server's answer.
func (d *SignInDialog) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case signedInMsg:
		if msg.id != d.id {
			return nil
		}
		d.busy = false
		switch {
		case msg.err != nil:
			d.errText = msg.err.Error()
		case msg.res.Method.Kind == proto.SignInEnv:
			d.info = msg.res.Message // stays open: the user acts elsewhere
		default:
			note := msg.res.Message
			return tea.Batch(closeDialog, func() tea.Msg { return infoMsg(note) })
		}
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, keyCancel):
			return closeDialog
		case d.busy:
		case key.Matches(msg, keyItemUp):
			d.cur = max(d.cur-1, 0)
			d.info, d.errText = "", ""
		case key.Matches(msg, keyItemDn):
			d.cur = min(d.cur+1, len(d.offers)-1)
			d.info, d.errText = "", ""
		case key.Matches(msg, keySignIn):
			d.busy, d.info, d.errText = true, "", ""
			mux, id, method := d.mux, d.id, d.Current()
			return func() tea.Msg {
				res, err := mux.SignIn(id, method)
				return signedInMsg{id: id, res: res, err: err}
			}
		}
	}
	return nil
}

// ShortHelp returns the dialog's keys.
func (d *SignInDialog) ShortHelp() []key.Binding {
	return []key.Binding{keyMove, keySignIn, keyCancel}
}

// View draws each offer on its line (the cursor's highlighted) with what
// taking it does, then the answer or the error.
func (d *SignInDialog) View() []string {
	st := d.c.Styles
	iw := d.w - 4
	lines := []string{""}
	for i, s := range d.offers {
		text := s.Label()
		if i == d.cur {
			lines = append(lines, st.SelectedName.Render("› "+fitPlain(text, iw-3)))
		} else {
			lines = append(lines, "   "+truncPlain(text, iw-3))
		}
	}
	if d.busy {
		lines = append(lines, "", " "+st.Dim.Render("asking the server…"))
	}
	if d.info != "" {
		lines = append(lines, "")
		for _, l := range strings.Split(ansi.Wrap(d.info, iw-2, " "), "\n") {
			lines = append(lines, " "+l)
		}
	}
	if d.errText != "" {
		lines = append(lines, "")
		for _, l := range errorLines(st, ansi.Wrap(d.errText, iw-3, " "), iw-1) {
			lines = append(lines, " "+l)
		}
	}
	lines = append(lines, "")
	title := fmt.Sprintf("sign in · %s", d.name)
	return st.Box(truncPlain(title, iw), lines, d.w, len(lines)+2, true)
}

// maxSignInLines bounds the summary's sign-in lines: the dialog lists
// every offer.
const maxSignInLines = 3

// signInLines are, in the summary, the ways to sign in that a chat's agent
// offered (State.SignIn, cleaned by the mux), a line each, the first
// naming the key that opens the dialog.
func signInLines(row func(string, string) string, offers []proto.SignIn, keyName string, vw int) []string {
	var out []string
	for i, s := range offers {
		if i == maxSignInLines {
			out = append(out, row("", truncPlain(fmt.Sprintf("and %d more (%s)", len(offers)-i, keyName), vw)))
			break
		}
		label := ""
		if i == 0 {
			label = "sign in"
		}
		text := s.Label()
		if i == 0 && keyName != "" {
			text = keyName + ": " + text
		}
		out = append(out, row(label, truncPlain(text, vw)))
	}
	return out
}
