package frame

import (
	"os"
	"runtime"
	"strconv"

	"golang.org/x/term"
)

// Input is the terminal's input opened again as a file of its own, which
// Go reads through its poller (give it to tea.WithInput).
//
// Bubble Tea reads a terminal with an epoll set of its own: its reader
// hands a key to the event loop, then blocks in epoll_wait, a system call
// that keeps the thread's processor, so the event loop it just woke waits
// for the runtime to take that processor back or to wake another thread
// (about 60 us a key here, by `go tool trace -pprof=sched`). A reader
// parked in the poller gives the processor up at once, and the event loop
// runs next on it.
//
// The terminal is opened again, not made non-blocking in place: the
// non-blocking flag belongs to the open file, which the shell and the
// programs after us share with standard input.
type Input struct {
	f *os.File
}

// OpenInput opens the terminal in reads again for Bubble Tea. It returns
// nil when in is not a terminal or cannot be opened again (no /proc): the
// program then reads in itself, as Bubble Tea does by default.
func OpenInput(in *os.File) *Input {
	if in == nil || runtime.GOOS != "linux" || !term.IsTerminal(int(in.Fd())) {
		return nil
	}
	f, err := os.OpenFile("/proc/self/fd/"+strconv.Itoa(int(in.Fd())), os.O_RDONLY, 0)
	if err != nil {
		return nil
	}
	return &Input{f: f}
}

// Read reads what the terminal has, parked in the poller until it has some.
func (i *Input) Read(p []byte) (int, error) { return i.f.Read(p) }

// Close closes the terminal opened again; a Read under way returns.
func (i *Input) Close() error { return i.f.Close() }
