package tui

import (
	"context"
	"log/slog"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

// Mux is what the TUI uses of the embedded mux; *mux.Mux satisfies it, and
// tests give a fake. State, Render, Terminal and Transcript are in-memory
// reads, called from Update on a change notice; everything else may block
// and is only called inside a tea.Cmd or the input writer.
type Mux interface {
	// Changes delivers ids of chats whose screen or state changed, at most
	// one pending per chat until State or Render is called for it.
	Changes() <-chan string
	State(id string) mux.State
	Render(id string, scroll int) string
	Terminal(id string) mux.Terminal
	Transcript(id string) []mux.Entry

	Start(id string, cols, rows int) error
	Restart(id string, cols, rows int) error
	Stop(id string)
	Forget(id string)
	Write(id string, p []byte) error
	ResizeAll(cols, rows int)
	CreateAndStart(n sessions.NewChat, cols, rows int) (*sessions.Meta, error)
	Fill() error

	Prompt(ctx context.Context, id, text string) (string, error)
	Cancel(id string) error
	AnswerPermission(id, optionID string) error
}

var _ Mux = (*mux.Mux)(nil)

// Common is what every component shares: styles, key map, logger.
type Common struct {
	Styles *Styles
	Keys   config.KeyMap
	Log    *slog.Logger
}

// chatsChangedMsg carries the chats the mux reported changed within one
// frame.
type chatsChangedMsg struct{ ids []string }

// waitChanges reads the mux's change notices: it blocks for the first one,
// then gathers every other that arrives within one frame, so a flood of
// output from many chats is one message per frame.
func waitChanges(ch <-chan string, frame time.Duration) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		first, ok := <-ch
		if !ok {
			return nil
		}
		ids := []string{first}
		seen := map[string]bool{first: true}
		timer := time.NewTimer(frame)
		defer timer.Stop()
		for {
			select {
			case id, ok := <-ch:
				if !ok {
					return chatsChangedMsg{ids}
				}
				if !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			case <-timer.C:
				return chatsChangedMsg{ids}
			}
		}
	}
}

// writeErrMsg reports a failed write of input to a harness.
type writeErrMsg struct {
	id  string
	err error
}

// inputWriter sends keys to harnesses in the order they were typed, off the
// UI goroutine: a pty write may block while the harness is busy.
type inputWriter struct {
	queue chan writeReq
	errs  chan writeErrMsg
}

type writeReq struct {
	id string
	b  []byte
}

func newInputWriter(m Mux) *inputWriter {
	w := &inputWriter{queue: make(chan writeReq, 4096), errs: make(chan writeErrMsg, 16)}
	go func() {
		for req := range w.queue {
			if err := m.Write(req.id, req.b); err != nil {
				select {
				case w.errs <- writeErrMsg{req.id, err}:
				default: // the UI has not taken the last error yet
				}
			}
		}
	}()
	return w
}

// send queues input; when the harness is so far behind that the queue is
// full, the input is dropped and reported rather than blocking the UI.
func (w *inputWriter) send(id string, b []byte) bool {
	select {
	case w.queue <- writeReq{id, b}:
		return true
	default:
		return false
	}
}

func (w *inputWriter) close() { close(w.queue) }

// waitWriteErr delivers the writer's next error.
func (w *inputWriter) waitWriteErr() tea.Cmd {
	return func() tea.Msg { return <-w.errs }
}
