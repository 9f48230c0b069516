package tui

import (
	"bytes"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// loanRecorder keeps what the model said it would have lent.
type loanRecorder struct{ wants []*proto.LendPaneParams }

func (l *loanRecorder) Want(p *proto.LendPaneParams) { l.wants = append(l.wants, p) }
func (l *loanRecorder) last() *proto.LendPaneParams {
	if len(l.wants) == 0 {
		return nil
	}
	return l.wants[len(l.wants)-1]
}

// focusedPty opens a rig's model on a chat and focuses its pane, the pty
// drawn at the pane's size.
func focusedPty(t *testing.T, cfg *config.Config) (*rig, *sessions.Meta, *loanRecorder) {
	r := newRig(t, cfg)
	a := r.create(sessions.NewChat{Name: "a"})
	loans := &loanRecorder{}
	r.open(Options{Loans: loans})
	if loans.last() != nil {
		t.Fatalf("a pane was lent before the chat had the keys: %+v", loans.last())
	}
	r.key(keyEnter)
	l := r.m.lay
	r.fake.mu.Lock()
	r.fake.terms[a.ID] = proto.Terminal{Cols: l.chatCols, Rows: l.chatRows, CursorVisible: true, Scrollback: 40}
	r.fake.mu.Unlock()
	r.m.Update(chatsChangedMsg{ids: []string{a.ID}})
	return r, a, loans
}

// The pane whose keys go to a live pty chat of this machine is lent, at
// the place the frame draws it, with the leave key's byte kept; scrolled
// back, left, or under a dialog it is not.
func TestThePaneIsLentWhileItsKeysGoToAPtyChat(t *testing.T) {
	r, a, loans := focusedPty(t, nil)
	w := loans.last()
	l := r.m.lay
	if w == nil || w.ID != a.ID || w.Cols != l.chatCols || w.Rows != l.chatRows || !bytes.Equal(w.HandBack, []byte{0x1d}) {
		t.Fatalf("lent %+v, want chat %s at %dx%d keeping ctrl+]", w, a.ID, l.chatCols, l.chatRows)
	}
	// The frame draws the chat's first row where the loan says.
	row := []rune(ansi.Strip(r.m.ViewLines()[w.Y]))
	if got := string(row[w.X:min(len(row), w.X+len("ready>"))]); got != "ready>" {
		t.Errorf("at the loan's place the frame draws %q, want the chat's ready>", got)
	}
	if w.X+w.Cols != l.width-1 {
		t.Errorf("the loan's pane ends at column %d, want the chat box's right border at %d", w.X+w.Cols, l.width-1)
	}

	r.m.Update(tea.MouseMsg{X: l.sideW + 5, Y: w.Y + 2, Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
	if r.m.pane.Scrolled() == 0 || loans.last() != nil {
		t.Errorf("scrolled back %d, the pane is still lent: %+v", r.m.pane.Scrolled(), loans.last())
	}
	r.m.Update(tea.MouseMsg{X: l.sideW + 5, Y: w.Y + 2, Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if loans.last() == nil {
		t.Error("back at the bottom, the pane is not lent again")
	}

	r.key(keyOf(tea.KeyCtrlCloseBracket))
	if loans.last() != nil {
		t.Errorf("left, the pane is still lent: %+v", loans.last())
	}
	r.key(keyEnter)
	if loans.last() == nil {
		t.Fatal("focused again, the pane is not lent")
	}
	// A dialog that opens over the focused pane (as one a command's
	// answer opens) takes the loan back.
	r.m.dialog = NewConfirm(r.m.c, "a question", []string{"over the pane"}, "yes", nil)
	r.m.Update(chatsChangedMsg{ids: []string{a.ID}})
	if loans.last() != nil {
		t.Errorf("under a dialog, the pane is lent: %+v", loans.last())
	}
}

// A chat that stopped is not lent; a leave key
// of the config's is the byte kept.
func TestThePaneLentKeepsTheConfigsLeaveKey(t *testing.T) {
	cfg := config.Defaults()
	cfg.Keys = map[string]config.KeyList{"leave": {"ctrl+g"}}
	r, a, loans := focusedPty(t, cfg)
	if w := loans.last(); w == nil || !bytes.Equal(w.HandBack, []byte{0x07}) {
		t.Fatalf("lent %+v, want ctrl+g's byte kept", w)
	}
	r.fake.set(a.ID, proto.State{Status: proto.StatusExited, Reason: "exit status 0"}, "ready>")
	r.m.Update(chatsChangedMsg{ids: []string{a.ID}})
	if w := loans.last(); w != nil {
		t.Errorf("a chat that exited is lent: %+v", w)
	}
}

// The barrier a reader sends before it lends the pane runs its Done only
// once the keys the model sent the chat have been answered: a key typed
// into the loan cannot overtake them.
func TestTheLoanBarrierWaitsForTheKeysSent(t *testing.T) {
	r := newRig(t, nil)
	r.create(sessions.NewChat{Name: "a"})
	n := &nowMux{fakeMux: r.fake}
	r.open(Options{Mux: n, Loans: &loanRecorder{}})
	r.key(keyEnter)
	waitIdle(t, r.m.in)

	passed := make(chan struct{})
	r.m.Update(LoanBarrier{Done: func() { close(passed) }})
	select {
	case <-passed:
	default:
		t.Fatal("with no key on its way, the barrier did not pass at once")
	}

	r.typeText("xy")
	if n.unanswered() != 1 {
		t.Fatalf("%d keys sent at once, want x alone", n.unanswered())
	}
	passed = make(chan struct{})
	r.m.Update(LoanBarrier{Done: func() { close(passed) }})
	select {
	case <-passed:
		t.Fatal("the barrier passed with x unanswered")
	default:
	}
	if got := string(r.nextWrite().b) + string(r.nextWrite().b); got != "xy" {
		t.Fatalf("the chat got %q, want xy", got)
	}
	n.answer(nil)
	select {
	case <-passed:
	case <-time.After(wait.Hang):
		t.Fatal("the barrier did not pass once the keys were answered")
	}
}
