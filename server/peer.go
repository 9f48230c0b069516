package server

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// The process at the other end of a connection is known by its pid
// (SO_PEERCRED, read as the connection is let in), and a pid is handed to
// another process once its own has exited and been reaped. A connection
// outlives the process that made it when that process hands its socket to
// a child and exits; whatever the server decides from the pid (whether a
// status report speaks for a chat's harness, hookpeer.go) must then not be
// decided for whichever process holds the pid now. So the server asks
// first whether the process that connected still runs:
//   - where the kernel has SO_PEERPIDFD (Linux 6.5 and later), it gives a
//     pidfd of the very process that called connect, which the kernel
//     pinned then: the pidfd says whether that process has exited,
//     whoever holds its pid now;
//   - elsewhere, the process's start time (/proc/PID/stat, field 22; on
//     darwin sysctl's), read as the connection is let in, stands for it: a process that took the
//     pid since has another start time. (A process that exits between its
//     connect and the server's accept, its pid taken in that instant,
//     escapes this fallback.)

// procStart is a process's start time, in clock ticks since boot (on
// darwin, microseconds since the epoch); zero is unknown.
type procStart uint64

// errPeerGone says that the process that made a connection has exited.
var errPeerGone = errors.New("the process that connected has exited")

// peerProcess is the process that made a connection, held for as long as a
// decision about it takes: see still.
type peerProcess struct {
	pid   int
	pidfd int       // -1: none, start stands for the process
	start procStart // the start time read as the connection was let in
}

// peerOf takes hold of the process that made c: its pidfd where the kernel
// gives it (pidfds), else its start time as c was let in. It fails with
// errPeerGone once that process has exited. A peerProcess taken must be
// closed.
func peerOf(c *conn, pidfds bool) (peerProcess, error) {
	p := peerProcess{pid: c.peerPid, pidfd: -1, start: c.peerStart}
	if !pidfds {
		return p, p.still()
	}
	var gerr error
	if err := c.raw.Control(func(fd uintptr) {
		p.pidfd, gerr = peerPidfd(int(fd))
	}); err != nil {
		return p, fmt.Errorf("the connection's peer: %w", err)
	}
	if errors.Is(gerr, unix.ESRCH) {
		p.pidfd = -1
		return p, errPeerGone // the kernel no longer has the process
	}
	if gerr != nil {
		p.pidfd = -1
		return p, fmt.Errorf("the connection's peer: SO_PEERPIDFD: %w", gerr)
	}
	return p, p.still()
}

// still reports (nil) that the process is still running, or why it cannot
// be said to be: errPeerGone once it has exited, even as a zombie whose
// pid is not free yet.
func (p peerProcess) still() error {
	if p.pidfd >= 0 {
		// A pidfd reads ready once its process has exited.
		fds := []unix.PollFd{{Fd: int32(p.pidfd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(fds, 0)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				return fmt.Errorf("the connection's peer: poll its pidfd: %w", err)
			}
			if n > 0 && fds[0].Revents != 0 {
				return errPeerGone
			}
			// A process whose leader has exited while its other threads
			// still end reads not ready yet, but is a zombie already. Its
			// pid is not free until all of it is gone, so /proc/PID is
			// still this process's: its state settles it.
			if exited(p.pid) {
				return errPeerGone
			}
			return nil
		}
	}
	if p.start == 0 {
		return fmt.Errorf("process %d: its start time was not read as it connected", p.pid)
	}
	now, err := procStartOf(p.pid)
	if err != nil || now != p.start {
		return errPeerGone // gone, or its pid is another process's now
	}
	return nil
}

func (p peerProcess) close() {
	if p.pidfd >= 0 {
		unix.Close(p.pidfd)
	}
}

// peerStartOf is the start time of a new connection's process, read as it
// is let in, where the kernel gives no pidfd of it: zero otherwise, or when
// it cannot be read (the process has exited already, and nothing it sends
// speaks for a chat).
func (s *Server) peerStartOf(pid int) procStart {
	if s.pidfds {
		return 0
	}
	start, _ := procStartOf(pid)
	return start
}
