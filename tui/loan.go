package tui

import (
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
)

// Loans is told which chat pane to lend the server (frame.Input): while
// the pane's keys go to a pty chat of this machine, the server reads the
// terminal and draws the chat's rows in the pane itself, so a key and its
// echo wake no TUI on their way, and the TUI draws the rest of its screen.
type Loans interface {
	Want(p *proto.LendPaneParams)
}

// LoanBarrier goes through the model before a pane is lent
// (frame.Input.Barrier): its update comes after every key read before it,
// and Done runs once every key those sent the chat has been answered, so
// a key typed into the loan never overtakes one the TUI read itself.
type LoanBarrier struct{ Done func() }

// loanable is the pane to lend now, or nil: the focused chat pane of a
// live pty chat of this machine, drawn as the chat is (not scrolled back,
// at the chat's size, with no dialog over it and the server there).
func (m *Model) loanable() *proto.LendPaneParams {
	p := m.pane
	switch {
	case !m.lay.ready || m.dialog != nil || m.linkLost != nil:
		return nil
	case !p.Focused() || p.ID() == "" || p.IsACP() || hostOf(p.ID()) != "" || p.linkDown != "":
		return nil
	case p.scroll != 0 || !p.state.Status.Live() || p.term.Cols != p.w || p.term.Rows != p.h || p.w <= 0 || p.h <= 0:
		return nil
	case m.loaded && m.sidebar.Len() == 0:
		return nil
	}
	on, off := m.cursorSGR()
	return &proto.LendPaneParams{
		ID: p.ID(), X: m.lay.sideW + 1, Y: m.lay.sumH + 1, Cols: p.w, Rows: p.h,
		CursorOn: on, CursorOff: off, HandBack: m.handBack(),
	}
}

// cursorSGR is what the pane draws a cursor's cell between.
func (m *Model) cursorSGR() (on, off string) {
	if m.loanCursor == nil {
		drawn := m.c.Styles.Cursor.Render("X")
		on, off, _ = strings.Cut(drawn, "X")
		m.loanCursor = &[2]string{on, off}
	}
	return m.loanCursor[0], m.loanCursor[1]
}

// handBack is the single bytes the focused pane keeps from the chat: those
// of the leave key (anything with ESC goes back to the TUI anyway).
func (m *Model) handBack() []byte {
	keys := m.c.Keys.Leave.Keys()
	if m.loanKeys != nil && slices.Equal(keys, m.loanKeys) {
		return m.loanBytes
	}
	var out []byte
	for b := 0; b < 0x80; b++ {
		if b != 0x1b && key.Matches(keyOfByte(byte(b)), m.c.Keys.Leave) {
			out = append(out, byte(b))
		}
	}
	m.loanKeys, m.loanBytes = slices.Clone(keys), out
	return out
}

// keyOfByte is the key Bubble Tea reads a byte typed alone as.
func keyOfByte(b byte) tea.KeyMsg {
	switch {
	case b == ' ':
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case b < 0x20 || b == 0x7f:
		return tea.KeyMsg{Type: tea.KeyType(b)}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{rune(b)}}
}
