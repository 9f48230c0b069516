package mux

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"
)

// DetachKey is ctrl+], the byte that leaves an attached chat.
const DetachKey = 0x1d

// Attach runs one chat's harness in the current terminal through the mux:
// the terminal in raw mode, the pty sized to it and resized with it, input
// forwarded until ctrl+] detaches. Detaching stops the harness. It returns
// when the user detaches, the harness ends for good (a clean exit, or a
// failure after respawns), or a fatal signal arrives (a *SignalError).
//
// Whichever way it returns, even by a panic, it gives the terminal back as
// it found it: every mode the harness set (mouse tracking, keypad, cursor
// keys, bracketed paste, a hidden cursor, the alternate screen...) reset,
// then cooked mode. When it returns the harness is not running.
func (m *Mux) Attach(id string, in, out *os.File) (how string, err error) {
	cols, rows, err := term.GetSize(int(out.Fd()))
	if err != nil {
		cols, rows = defaultCols, defaultRows
	}
	// Caught before the terminal goes raw, so no fatal signal can end the
	// process with the terminal left raw; released only once it is restored.
	fatal := make(chan os.Signal, 1)
	signal.Notify(fatal, fatalSignals...)
	defer signal.Stop(fatal)

	t, err := borrowTerminal(in, out)
	if err != nil {
		return "", err
	}
	defer func() {
		if r := recover(); r != nil {
			t.restore()
			panic(r)
		}
		t.restore()
	}()

	m.SetOutputTap(id, t)
	defer m.SetOutputTap(id, nil)
	if err := m.Start(id, cols, rows); err != nil {
		return "", err
	}

	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)

	detached := make(chan struct{})
	go func() {
		defer t.restoreIfPanicking()
		forwardInput(in, detached, func(p []byte) { _ = m.Write(id, p) })
	}()

	for {
		select {
		case <-detached:
			// The terminal first: stopping may take the grace period.
			t.restore()
			m.Stop(id)
			select {
			case sig := <-fatal:
				return "", &SignalError{Signal: sig.(syscall.Signal)}
			default:
			}
			return "detached", nil
		case sig := <-fatal:
			t.restore()
			m.Stop(id)
			return "", &SignalError{Signal: sig.(syscall.Signal)}
		case <-winch:
			if c, r, err := term.GetSize(int(out.Fd())); err == nil {
				m.Resize(id, c, r)
			}
		case changed := <-m.Changes():
			if changed != id {
				continue
			}
			st := m.State(id)
			switch st.Status {
			case StatusExited:
				if st.ExitCode == 0 {
					return st.Reason, nil
				}
			case StatusFailed:
				return "", fmt.Errorf("%s", st.Reason)
			}
		}
	}
}

// forwardInput copies input to send until it reads ctrl+], then closes
// detached. Bytes before ctrl+] in the same read are still sent.
func forwardInput(in io.Reader, detached chan<- struct{}, send func([]byte)) {
	buf := make([]byte, 4096)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if i := bytes.IndexByte(chunk, DetachKey); i >= 0 {
				if i > 0 {
					send(chunk[:i])
				}
				close(detached)
				return
			}
			send(chunk)
		}
		if err != nil {
			close(detached)
			return
		}
	}
}
