package mux

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"unsafe"

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

// rawRead reads a polled file (pollable) as its Read does, waiting on the
// runtime's poller for data and honouring its read deadline, but with a
// bare read(2): the file is non-blocking, so the read never blocks, and it
// need not tell the scheduler it enters a system call. That telling wakes
// the runtime's monitor thread (sysmon) from its sleep whenever every
// processor is idle, that is at each line a quiet chat prints: a thread's
// wake-up and its 20 µs sleeps after it, for each line (perf of the server
// in scripts/bench scale-100: sysmon was a third of its CPU).
func rawRead(rc syscall.RawConn, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var n int
	var errno unix.Errno
	err := rc.Read(func(fd uintptr) bool {
		for {
			r, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
			switch e {
			case unix.EINTR:
				continue
			case unix.EAGAIN:
				return false // wait on the poller
			}
			n, errno = int(r), e
			return true
		}
	})
	switch {
	case err != nil:
		return 0, err // the deadline passed, or the file closed
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: "/dev/ptmx", Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}
