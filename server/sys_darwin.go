package server

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// peerCred returns the uid and pid of the process at the other end of a
// connection (LOCAL_PEERCRED and LOCAL_PEERPID, darwin's SO_PEERCRED: as
// they were when it connected), read before anything else is. The uid
// keeps the socket refusing other users, as on Linux.
func peerCred(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, 0, err
	}
	var cred *unix.Xucred
	var credErr, pidErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		pid, pidErr = unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	}); err != nil {
		return -1, 0, err
	}
	if credErr != nil {
		return -1, 0, credErr
	}
	if pidErr != nil {
		return -1, 0, pidErr
	}
	return int(cred.Uid), pid, nil
}

// socketDomain is the address family of socket fd, from its own address:
// darwin has no SO_DOMAIN.
func socketDomain(fd int) (int, error) {
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return 0, err
	}
	switch sa.(type) {
	case *unix.SockaddrUnix:
		return unix.AF_UNIX, nil
	case *unix.SockaddrInet4:
		return unix.AF_INET, nil
	case *unix.SockaddrInet6:
		return unix.AF_INET6, nil
	}
	return -1, nil
}

// ctimeNano is a stat's change time, in nanoseconds.
func ctimeNano(st *syscall.Stat_t) int64 { return st.Ctimespec.Nano() }

// peerPidfds is false: darwin has no pidfd, so a connection's process is
// known by its start time, which sysctl tells (proc_darwin.go, peer.go).
func peerPidfds() bool { return false }

// peerPidfd is never called off Linux (peerPidfds is false).
func peerPidfd(int) (int, error) { return -1, unix.ENOPROTOOPT }
