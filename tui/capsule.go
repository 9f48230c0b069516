package tui

import (
	"fmt"
	"os"
	"strings"

	"github.com/acpmux/acpmux-tui/third_party/bubbles/cursor"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/capsule"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file holds the capsule of a handoff (and of a fork whose harness
// cannot branch a conversation): written by the parent's server, asked
// for off the UI goroutine, then, for a handoff, shown for review and
// editing before any chat is made.

// noteCapsuleFork is what the status line says of a fork made as a capsule.
const noteCapsuleFork = harness.ForkedAsCapsule

// keyCapsuleSend sends a reviewed capsule; esc (keyCancel) drops it.
var keyCapsuleSend = key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "send"))

// capsuleBuiltMsg brings the capsule of a chat about to be derived from
// parent ("" when it starts without one), or why it could not be had.
type capsuleBuiltMsg struct {
	parent string
	d      sessions.Derivation
	text   string
	err    error
}

// buildCapsule asks the parent's server for the capsule of derivation d.
// The server runs the harness, so it reads the transcript, the screen and
// the session log where the harness wrote them, in its own environment:
// a TUI started later with another one reads the same.
func buildCapsule(m Mux, parent string, d sessions.Derivation) tea.Cmd {
	return func() tea.Msg {
		text, err := m.Capsule(parent, d)
		return capsuleBuiltMsg{parent: parent, d: d, text: text, err: err}
	}
}

// forksNatively reports whether a fork of a chat of this harness branches
// the conversation without a capsule (see harness.Spec.NativeFork).
func (m *Model) forksNatively(harnessName string) bool {
	if m.table == nil {
		return true
	}
	spec, ok := m.table.Get(harnessName)
	if !ok {
		return true
	}
	native, _ := spec.NativeFork()
	return native
}

// fork makes a fork of e: at once when its harness branches the
// conversation itself, else after its capsule is built. worktree and
// sandbox are the fork dialog's choices (nil: as the server decides for a
// fork; for the sandbox, the parent's).
func (m *Model) fork(e sessions.Entry, worktree, sandbox *bool) tea.Cmd {
	d := sessions.Derivation{Origin: sessions.OriginFork, Worktree: worktree, Sandbox: sandbox}
	if m.forksNatively(e.Meta.Harness) {
		return deriveChat(m.mux, e.ID, d)
	}
	m.setStatus("forking "+e.Name()+"…", false)
	return buildCapsule(m.mux, e.ID, d)
}

func (m *Model) getenv() func(string) string {
	if m.opt.Getenv != nil {
		return m.opt.Getenv
	}
	return os.Getenv
}

// capsuleBuilt derives the chat: a handoff's capsule first opens for
// review; a fork's is sent as built.
func (m *Model) capsuleBuilt(msg capsuleBuiltMsg) tea.Cmd {
	if msg.err != nil {
		m.fail(msg.d.Origin+" (no chat made): its capsule", msg.err)
		return nil
	}
	d := msg.d
	d.Capsule = msg.text
	if d.Origin != sessions.OriginHandoff || msg.text == "" {
		cmd := deriveChat(m.mux, msg.parent, d)
		if d.Origin != sessions.OriginFork || msg.text == "" {
			return cmd
		}
		return func() tea.Msg {
			created, ok := cmd().(chatCreatedMsg)
			if ok {
				created.note = noteCapsuleFork
			}
			return created
		}
	}
	title := fmt.Sprintf("hand off to %s: the capsule, its first message", d.Harness)
	return m.openDialog(NewCapsuleReview(m.c, title, msg.text, func(text string) tea.Cmd {
		d.Capsule = text
		return deriveChat(m.mux, msg.parent, d)
	}))
}

// CapsuleReview shows a handoff's capsule in an editor before the chat is
// made: ctrl+s makes the chat with the capsule as edited, esc makes none.
// Each credential redacted from it (see capsule.Redact) is highlighted
// where its mark stands, and a line counts them by kind.
type CapsuleReview struct {
	c          *Common
	title      string
	area       textarea.Model
	send       func(string) tea.Cmd
	redactions capsule.Redactions // the marks in the capsule as it is now
	err        string
	w, h       int
}

// NewCapsuleReview returns the review dialog of text; send makes the chat.
func NewCapsuleReview(c *Common, title, text string, send func(string) tea.Cmd) *CapsuleReview {
	a := textarea.New()
	a.ShowLineNumbers = false
	a.Prompt = ""
	a.CharLimit = 0 // bounded in bytes on send
	a.MaxHeight = 0
	a.Cursor.SetMode(cursor.CursorStatic)
	a.FocusedStyle.CursorLine = c.Styles.Plain
	a.SetValue(text)
	a.Focus()
	// The top of the capsule is where reading starts.
	for a.Line() > 0 {
		a.CursorUp()
	}
	a.CursorStart()
	return &CapsuleReview{c: c, title: title, area: a, send: send, redactions: capsule.CountMarks(text)}
}

// SetSize takes most of the screen: a capsule is pages long.
func (d *CapsuleReview) SetSize(w, h int) {
	d.w = max(min(w-4, 120), minDialogW)
	d.h = max(h-4, 8)
	d.area.SetWidth(d.w - 4)
	d.area.SetHeight(d.h - 6)
}

// Value returns the capsule as edited.
func (d *CapsuleReview) Value() string { return d.area.Value() }

// Update edits, sends or cancels.
func (d *CapsuleReview) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(k, keyCapsuleSend):
			text := d.area.Value()
			if strings.TrimSpace(text) == "" {
				d.err = "the capsule is empty: write something, or esc"
				return nil
			}
			if err := sessions.CheckCapsule(text); err != nil {
				d.err = err.Error()
				return nil
			}
			return tea.Batch(closeDialog, d.send(text))
		case key.Matches(k, keyCancel):
			return tea.Batch(closeDialog, func() tea.Msg { return infoMsg("handoff cancelled: no chat made") })
		}
	}
	var cmd tea.Cmd
	d.area, cmd = d.area.Update(msg)
	if _, ok := msg.(tea.KeyMsg); ok {
		d.redactions = capsule.CountMarks(d.area.Value())
	}
	return cmd
}

// Redactions counts the redaction marks in the capsule as it is now.
func (d *CapsuleReview) Redactions() capsule.Redactions { return d.redactions }

// ShortHelp returns send and cancel.
func (d *CapsuleReview) ShortHelp() []key.Binding {
	return []key.Binding{keyCapsuleSend, keyCancel}
}

// View draws the editor, with the redaction marks highlighted, a line
// that counts them and a line of what it holds.
func (d *CapsuleReview) View() []string {
	st := d.c.Styles
	lines := []string{""}
	for _, l := range strings.Split(d.area.View(), "\n") {
		lines = append(lines, " "+highlightMarks(st, l))
	}
	note := fmt.Sprintf("%d of %d bytes · sent once, as the new chat's first message", len(d.area.Value()), sessions.MaxCapsuleBytes)
	lines = append(lines, "")
	if d.err != "" {
		lines = append(lines, errorLines(st, d.err, d.w-4)...)
	} else {
		if d.redactions.Total() > 0 {
			lines = append(lines, " "+st.Warn.Render(truncPlain(d.redactions.String()+" (highlighted)", d.w-4)))
		} else {
			lines = append(lines, " "+st.Dim.Render(truncPlain("no redactions: nothing in it looked like a credential", d.w-4)))
		}
		lines = append(lines, " "+st.Dim.Render(truncPlain(note, d.w-4)))
	}
	return st.Box(d.title, lines, d.w, len(lines)+2, true)
}

// highlightMarks draws each redaction mark in a line of the editor with
// the Redacted style. A mark holds no blank, so the editor never wraps one
// across two lines; one under the cursor is drawn as the editor draws it.
func highlightMarks(st *Styles, line string) string {
	marks := capsule.Marks(line)
	if len(marks) == 0 {
		return line
	}
	var b strings.Builder
	at := 0
	for _, mk := range marks {
		b.WriteString(line[at:mk.Start])
		b.WriteString(st.Redacted.Render(line[mk.Start:mk.End]))
		at = mk.End
	}
	b.WriteString(line[at:])
	return b.String()
}
