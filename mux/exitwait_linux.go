package mux

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// awaitExit returns once the process pid, a child not yet reaped (so its
// pid cannot be reused), has exited, or at once if it cannot be watched
// through a polled pidfd.
func awaitExit(pid int) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return
	}
	// NewFile sees the non-blocking flag and registers it with the poller.
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	raw, err := f.SyscallConn()
	if err != nil {
		return
	}
	// Read calls the function, and while it returns false waits until the
	// poller says the pidfd is readable (the process exited); an error (the
	// file is not pollable) ends the wait.
	_ = raw.Read(func(fd uintptr) bool { return pidfdExited(int(fd)) })
}

// pidfdExited reports whether the process behind pidfd fd has exited (its pidfd
// is readable), without waiting; an error other than EINTR counts as
// exited, so a caller falls back to a blocking Wait.
func pidfdExited(fd int) bool {
	for {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err != nil || n > 0
	}
}
