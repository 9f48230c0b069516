// Package ttyreopen opens a terminal again for reading, as a file of its
// own that Go reads through its poller: a read parks its goroutine rather
// than a thread, and can be ended with a deadline. The terminal's own open
// file is left blocking, as the shell and the programs after us, which
// share it, read it; the non-blocking flag belongs to the open file, and
// this one is new.
package ttyreopen

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"time"
)

// ErrUnsupported is Read's answer where a terminal cannot be opened again
// through /proc (not Linux).
var ErrUnsupported = errors.New("the terminal cannot be opened again here")

// Read opens the terminal in again for reading; its reads take deadlines.
func Read(in *os.File) (*os.File, error) {
	if runtime.GOOS != "linux" {
		return nil, ErrUnsupported
	}
	f, err := os.OpenFile(Path(in), os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	if err := f.SetReadDeadline(time.Time{}); err != nil {
		f.Close() // not in the poller: a read could not be ended
		return nil, err
	}
	return f, nil
}

// Path is the name that opens what f is open on again (Linux's /proc).
func Path(f *os.File) string { return "/proc/self/fd/" + strconv.Itoa(int(f.Fd())) }
