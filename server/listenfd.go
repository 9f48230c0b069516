package server

import (
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/acpmux/acpmux-tui/proto"
)

// This file is the socket systemd hands over (socket activation: the
// acpmux-tui.socket unit that `acpmux-tui service install` writes). systemd
// binds the agent home's socket itself, starts the server on the first
// connection, and passes the listening socket as descriptor 3 with
// LISTEN_FDS=1 and LISTEN_PID=<the server's pid>. The socket file is
// systemd's: the server serves it as it is, never replaces or removes it,
// so a connection made while no server runs waits in its backlog for the
// next one.

// Names of sd_listen_fds(3)'s environment.
const (
	envListenPID     = "LISTEN_PID"
	envListenFDs     = "LISTEN_FDS"
	envListenFDNames = "LISTEN_FDNAMES"
)

// listenFDStart is the first descriptor systemd passes (SD_LISTEN_FDS_START).
const listenFDStart = 3

// inheritedListener returns the listening socket systemd handed over for
// the agent home, or nil when none was (no LISTEN_PID, or one that names
// another process: the variables were inherited, not meant for this one).
// The variables are taken out of the environment either way, so no
// harness inherits them. A socket handed over that is not one unix stream
// socket listening at the agent home's socket path, mode 0600, is refused:
// serving another would leave clients waiting at the path for nothing.
func inheritedListener(home string) (*net.UnixListener, error) {
	pidText, fdsText := os.Getenv(envListenPID), os.Getenv(envListenFDs)
	os.Unsetenv(envListenPID)
	os.Unsetenv(envListenFDs)
	os.Unsetenv(envListenFDNames)
	if pidText == "" {
		return nil, nil
	}
	if pid, err := strconv.Atoi(pidText); err != nil || pid != os.Getpid() {
		return nil, nil
	}
	want := proto.SocketPath(home)
	refuse := func(format string, args ...any) (*net.UnixListener, error) {
		return nil, fmt.Errorf("the socket systemd handed over (%s=%s): %s; the socket unit must have one ListenStream=%s with SocketMode=0600 (acpmux-tui service install writes it)",
			envListenFDs, fdsText, fmt.Sprintf(format, args...), want)
	}
	if n, err := strconv.Atoi(fdsText); err != nil || n != 1 {
		return refuse("want exactly one socket")
	}
	fd := listenFDStart
	// The descriptor came without close-on-exec: no harness may inherit it.
	unix.CloseOnExec(fd)
	if err := checkListenFD(fd, home); err != nil {
		return refuse("%v", err)
	}
	fi, err := os.Lstat(want)
	switch {
	case err != nil:
		return refuse("%v", err)
	case fi.Mode().Type() != fs.ModeSocket:
		return refuse("%s is not a socket", want)
	case fi.Mode().Perm() != 0o600:
		return refuse("%s has mode %04o, not 0600", want, fi.Mode().Perm())
	}
	f := os.NewFile(uintptr(fd), "systemd socket")
	ln, err := net.FileListener(f) // a duplicate, close-on-exec
	f.Close()
	if err != nil {
		return refuse("%v", err)
	}
	ul, ok := ln.(*net.UnixListener)
	if !ok {
		ln.Close()
		return refuse("not a unix socket")
	}
	ul.SetUnlinkOnClose(false) // the file is systemd's
	return ul, nil
}

// checkListenFD checks that fd is a unix stream socket, listening, bound
// to the agent home's socket path.
func checkListenFD(fd int, home string) error {
	domain, err := socketDomain(fd)
	if err != nil {
		return fmt.Errorf("descriptor %d is not a socket: %w", fd, err)
	}
	typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE)
	if err != nil {
		return fmt.Errorf("descriptor %d: %w", fd, err)
	}
	if domain != unix.AF_UNIX || typ != unix.SOCK_STREAM {
		return fmt.Errorf("descriptor %d is not a unix stream socket", fd)
	}
	if on, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ACCEPTCONN); err != nil || on != 1 {
		return fmt.Errorf("descriptor %d is not listening", fd)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		return fmt.Errorf("descriptor %d: %w", fd, err)
	}
	ua, ok := sa.(*unix.SockaddrUnix)
	if !ok || ua.Name == "" || ua.Name[0] == '@' || ua.Name[0] == 0 {
		return fmt.Errorf("descriptor %d is bound to no path", fd)
	}
	if !samePath(ua.Name, proto.SocketPath(home)) {
		return fmt.Errorf("it is bound to %s", ua.Name)
	}
	return nil
}

// samePath reports whether two socket paths name the same file: the same
// name in the same folder, once the folders' links are resolved.
func samePath(a, b string) bool {
	if filepath.Base(a) != filepath.Base(b) {
		return false
	}
	da, err := filepath.EvalSymlinks(filepath.Dir(a))
	if err != nil {
		return false
	}
	db, err := filepath.EvalSymlinks(filepath.Dir(b))
	return err == nil && da == db
}

// listenSocket is the agent home's socket: the one systemd handed over,
// else one made here (listen). The caller holds the lock either way.
func (s *Server) listenSocket() (*net.UnixListener, error) {
	ln, err := inheritedListener(s.home)
	if err != nil || ln != nil {
		if ln != nil {
			s.systemdSocket = true
			s.opt.Logger.Info("serving the socket systemd handed over", "socket", proto.SocketPath(s.home))
		}
		return ln, err
	}
	return listen(s.home, proto.SocketName)
}

// removeSocket takes the socket's file away as the server ends, unless it
// is systemd's: that one stays, with its inode, for the next server.
func (s *Server) removeSocket() {
	if !s.systemdSocket {
		os.Remove(proto.SocketPath(s.home))
	}
}
