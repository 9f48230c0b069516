package mux

import (
	"errors"
	"os"
	"os/exec"

	"golang.org/x/sys/unix"
)

// waitPolled is cmd.Wait, but the wait for the process to end is done in
// the Go runtime's poller, on a pidfd, rather than in a thread: os/exec's
// Wait blocks an OS thread in waitid for the child's whole life, so each
// live harness cost the server a thread (its g0 and signal stacks, about
// 50 kB of anonymous memory, and a futex the scheduler juggles). Once the
// pidfd is readable the child has exited and Wait reaps it at once. Where
// pidfds cannot be polled (an old kernel) Wait blocks as it did.
func waitPolled(cmd *exec.Cmd) error {
	awaitExit(cmd.Process.Pid)
	return cmd.Wait()
}

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
