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
// when the user detaches or the harness ends for good (a clean exit, or a
// failure after respawns).
func (m *Mux) Attach(id string, in, out *os.File) (string, error) {
	cols, rows, err := term.GetSize(int(out.Fd()))
	if err != nil {
		cols, rows = defaultCols, defaultRows
	}
	state, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		return "", fmt.Errorf("attach: the terminal cannot go raw: %w", err)
	}
	defer term.Restore(int(in.Fd()), state)

	m.SetOutputTap(id, out)
	defer m.SetOutputTap(id, nil)
	if err := m.Start(id, cols, rows); err != nil {
		return "", err
	}

	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)

	detached := make(chan struct{})
	go forwardInput(in, detached, func(p []byte) { _ = m.Write(id, p) })

	for {
		select {
		case <-detached:
			m.Stop(id)
			return "detached", nil
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
