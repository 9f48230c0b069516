package mux

import (
	"errors"
	"fmt"
	"os"
	"sync"
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
// backlog that one goroutine writes as the harness reads. So the server
// writes a key from the goroutine that read it off the socket, with no
// hand-off, and a harness that stops reading never stalls a client's other
// calls, nor the parsing of the harness's output (the emulator's answers
// to its queries go this way too).
type ptyInput struct {
	f   *os.File        // the pty's master, polled (see pollable)
	raw syscall.RawConn // f's descriptor, for writes that never wait

	mu       sync.Mutex
	backlog  []byte
	draining bool  // a goroutine writes the backlog
	err      error // the write that failed; every write after fails so
}

func newPtyInput(f *os.File) *ptyInput {
	raw, err := f.SyscallConn()
	in := &ptyInput{f: f, raw: raw}
	if err != nil {
		in.err = err
	}
	return in
}

// write sends b to the harness, now or after what waits before it.
func (in *ptyInput) write(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.err != nil {
		return in.err
	}
	if !in.draining {
		rest, err := in.writeNow(b)
		if err != nil {
			in.err = err
			return err
		}
		if len(rest) == 0 {
			return nil
		}
		b = rest
	}
	if len(in.backlog)+len(b) > maxInputBacklog {
		return errInputFull
	}
	in.backlog = append(in.backlog, b...)
	if !in.draining {
		in.draining = true
		go in.drain()
	}
	return nil
}

// writeNow writes what the pty takes of b without waiting, and returns the
// rest.
func (in *ptyInput) writeNow(b []byte) ([]byte, error) {
	rest, err := rawio.WriteNow(in.raw, b)
	var errno syscall.Errno
	switch {
	case err == nil:
	case errors.As(err, &errno):
		err = &os.PathError{Op: "write", Path: in.f.Name(), Err: errno}
	default:
		// The descriptor is closed or closing: the harness has gone.
		err = &os.PathError{Op: "write", Path: in.f.Name(), Err: os.ErrClosed}
	}
	return rest, err
}

// drain writes the backlog as the harness reads it, until it is empty or
// a write fails (the pty closed).
func (in *ptyInput) drain() {
	for {
		in.mu.Lock()
		b := in.backlog
		in.backlog = nil
		if len(b) == 0 || in.err != nil {
			in.draining = false
			in.mu.Unlock()
			return
		}
		in.mu.Unlock()
		// Writes that come meanwhile join the backlog, behind b.
		if _, err := in.f.Write(b); err != nil {
			in.mu.Lock()
			in.err, in.backlog, in.draining = err, nil, false
			in.mu.Unlock()
			return
		}
	}
}

// exited reports whether err is a write to a pty whose harness has gone.
func exited(err error) bool {
	return errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EIO)
}
