package client

import (
	"fmt"
	"os"
	"sync"
	"syscall"

	"golang.org/x/term"

	"github.com/acpmux/acpmux-tui/internal/termmodes"
)

// fatalSignals end an attach: the terminal is restored, and Attach returns
// a *SignalError so the caller can end the process the way the signal would
// have; the harness keeps running in the server. (In raw mode ctrl+c and
// ctrl+\ are keys for the harness, so these come from kill, or from the
// terminal going away.)
var fatalSignals = []os.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT}

// SignalError is returned by Attach when a fatal signal (SIGTERM, SIGHUP,
// SIGINT or SIGQUIT) ended it. The terminal has been given back; the
// harness keeps running. The caller should end the process by the same
// signal.
type SignalError struct {
	// Signal is the signal that arrived.
	Signal syscall.Signal
}

func (e *SignalError) Error() string { return fmt.Sprintf("attach: %v", e.Signal) }

// borrowedTerminal is the terminal `attach` lends a harness: raw, with the
// redraws and the output the server streams passing through it, its modes
// followed so restore can give the terminal back as it was found. Once
// restored it lets nothing more through, so no late output of the harness
// can undo the reset.
type borrowedTerminal struct {
	in, out *os.File
	saved   *term.State

	mu       sync.Mutex
	restored bool
	modes    *termmodes.Modes
	drawn    bool // something has been written since the terminal was lent
}

// borrowTerminal puts in into raw mode and pushes the terminal's titles; the
// result must be restored on every way out.
func borrowTerminal(in, out *os.File) (*borrowedTerminal, error) {
	saved, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		return nil, fmt.Errorf("attach: the terminal cannot go raw: %w", err)
	}
	_, _ = out.WriteString(termmodes.SaveTitles)
	return &borrowedTerminal{in: in, out: out, saved: saved, modes: termmodes.New()}, nil
}

// Write passes harness output to the terminal, following the modes it sets.
// After restore it drops the output.
func (t *borrowedTerminal) Write(p []byte) (int, error) {
	defer t.restoreIfPanicking()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.restored {
		return len(p), nil
	}
	t.drawn = t.drawn || len(p) > 0
	t.modes.Scan(p)
	return t.out.Write(p)
}

// redraw draws a snapshot of the chat's screen. A redraw only sets the
// modes the harness has on now, so on a terminal that shows an earlier
// state of the chat, the modes that state set are reset first (the
// alternate screen left, the title popped and pushed again), as if the
// terminal had just been lent.
func (t *borrowedTerminal) redraw(snapshot []byte) {
	defer t.restoreIfPanicking()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.restored {
		return
	}
	if t.drawn {
		_, _ = t.out.Write(append(t.modes.Reset(), termmodes.SaveTitles...))
		t.modes = termmodes.New()
	}
	t.drawn = t.drawn || len(snapshot) > 0
	t.modes.Scan(snapshot)
	_, _ = t.out.Write(snapshot)
}

// restore gives the terminal back: every mode the harness changed reset,
// then the saved termios (cooked mode). Only the first call does anything.
// Errors are ignored: a terminal that has gone (SIGHUP) cannot be restored.
func (t *borrowedTerminal) restore() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.restored {
		return
	}
	t.restored = true
	_, _ = t.out.Write(t.modes.Reset())
	_ = term.Restore(int(t.in.Fd()), t.saved)
}

// restoreIfPanicking, deferred first in a goroutine that touches the
// terminal, gives the terminal back before a panic ends the process (a
// panic in one goroutine runs only that goroutine's deferred calls), then
// lets the panic go on.
func (t *borrowedTerminal) restoreIfPanicking() {
	if r := recover(); r != nil {
		t.restore()
		panic(r)
	}
}
