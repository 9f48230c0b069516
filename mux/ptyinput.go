package mux

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/acpmux/acpmux-tui/internal/rawio"
)

// maxInputBacklog bounds the input that waits for a harness that is not
// reading it: past it, a write is refused rather than kept.
const maxInputBacklog = 1 << 20

// errInputFull is a write refused because the harness has not read what
// was typed before.
var errInputFull = fmt.Errorf("the harness is not reading its input: %d KiB of it waits already", maxInputBacklog>>10)

// ptyInput writes what is typed to a harness's pty, in order, and never
// makes the writer wait: what the pty does not take at once (a harness that
// is not reading, a paste larger than the pty's buffer) waits in a bounded
// backlog that one goroutine writes as the harness reads (rawio.QueueOf).
// So the server writes a key from the goroutine that read it off the
// socket, with no hand-off, and a harness that stops reading never stalls
// a client's other calls, nor the parsing of the harness's output (the
// emulator's answers to its queries go this way too).
type ptyInput struct {
	f *os.File  // the pty's master, polled (see pollable)
	q io.Writer // f's queue
}

func newPtyInput(f *os.File) *ptyInput {
	return &ptyInput{f: f, q: rawio.QueueOf(f, maxInputBacklog)}
}

// write sends b to the harness, now or after what waits before it.
func (in *ptyInput) write(b []byte) error {
	_, err := in.q.Write(b)
	var errno syscall.Errno
	var pathErr *os.PathError
	switch {
	case err == nil, errors.As(err, &pathErr):
		return err
	case errors.Is(err, rawio.ErrBacklog):
		return errInputFull
	case errors.As(err, &errno):
		return &os.PathError{Op: "write", Path: in.f.Name(), Err: errno}
	default:
		// The descriptor is closed or closing: the harness has gone.
		return &os.PathError{Op: "write", Path: in.f.Name(), Err: os.ErrClosed}
	}
}

// exited reports whether err is a write to a pty whose harness has gone.
func exited(err error) bool {
	return errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EIO)
}
