package server

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// peerCred returns the uid and pid of the process at the other end of a
// connection (SO_PEERCRED: as they were when it connected), read before
// anything else is.
func peerCred(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, 0, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return -1, 0, err
	}
	if credErr != nil {
		return -1, 0, credErr
	}
	return int(cred.Uid), int(cred.Pid), nil
}

// socketDomain is the address family of socket fd.
func socketDomain(fd int) (int, error) {
	return unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN)
}

// ctimeNano is a stat's change time, in nanoseconds.
func ctimeNano(st *syscall.Stat_t) int64 { return st.Ctim.Nano() }

// peerPidfds reports whether the kernel gives a socket's peer as a pidfd
// (SO_PEERPIDFD), trying it on a pair of sockets of its own.
func peerPidfds() bool {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	pidfd, err := unix.GetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_PEERPIDFD)
	if err != nil {
		return false
	}
	unix.Close(pidfd)
	return true
}

// peerPidfd is a pidfd of the process at the other end of socket fd, as
// the kernel pinned it at its connect (SO_PEERPIDFD).
func peerPidfd(fd int) (int, error) {
	return unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_PEERPIDFD)
}
