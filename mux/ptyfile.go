package mux

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// pollable turns the pty master creack/pty hands back (a blocking file) into
// one the Go runtime polls. A blocking read holds an OS thread per chat, and
// the scheduler's monitor then wakes every 20 µs to take processors back
// from those reads: with ten chats printing lines, most of acpmux-tui's CPU
// went to that. A polled file also makes read deadlines work, which pump
// relies on when a grandchild keeps the pty open.
func pollable(f *os.File) (*os.File, error) {
	// Fd would put f back in blocking mode; the raw connection does not.
	raw, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	dup := -1
	var dupErr error
	if err := raw.Control(func(fd uintptr) {
		dup, dupErr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return nil, err
	}
	if dupErr != nil {
		return nil, fmt.Errorf("dup pty: %w", dupErr)
	}
	f.Close()
	if err := unix.SetNonblock(dup, true); err != nil {
		unix.Close(dup)
		return nil, fmt.Errorf("pty non-blocking: %w", err)
	}
	// NewFile sees the non-blocking flag and registers it with the poller.
	return os.NewFile(uintptr(dup), "/dev/ptmx"), nil
}

// setWinsize resizes a pty without Fd, which would make it blocking again.
func setWinsize(f *os.File, cols, rows int) error {
	raw, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ioErr error
	err = raw.Control(func(fd uintptr) {
		ioErr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: uint16(rows)})
	})
	if err != nil {
		return err
	}
	return ioErr
}
