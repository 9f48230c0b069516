package server

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/acpmux/acpmux-tui/proto"
	"golang.org/x/sys/unix"
)

// This file holds what makes a server the one server of its agent home: the
// home's mode, the lock that a second server finds taken, and the socket,
// which is only ever replaced while the lock is held.

// AlreadyRunningError is a server start refused because another server
// holds the agent home's lock.
type AlreadyRunningError struct {
	Home string
	// Pid is the running server's pid, 0 when it could not be read.
	Pid int
}

// Error says that a server runs, and which.
func (e *AlreadyRunningError) Error() string {
	if e.Pid > 0 {
		return fmt.Sprintf("a server is already running for %s (pid %d)", e.Home, e.Pid)
	}
	return fmt.Sprintf("a server is already running for %s", e.Home)
}

// Lock is the single-server lock of an agent home, held until Release (or
// the process's end, which releases it whatever the way out).
type Lock struct {
	f *os.File
}

// TakeLock takes the agent home's server lock without waiting: when another
// server holds it, the error is an *AlreadyRunningError. The lock file
// records the holder's pid.
func TakeLock(home string) (*Lock, error) {
	path := filepath.Join(home, proto.LockName)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("server lock: %w", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err != unix.EINTR {
			break
		}
	}
	if errors.Is(err, unix.EWOULDBLOCK) {
		f.Close()
		return nil, &AlreadyRunningError{Home: home, Pid: proto.LockHolder(home)}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("server lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("server lock %s: record pid: %w", path, err)
	}
	return &Lock{f: f}, nil
}

// Release lets the next server start.
func (l *Lock) Release() {
	if l != nil && l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// TightenHome makes the agent home mode 0700 (owner only), as the socket
// and the chats inside it are the owner's alone.
func TightenHome(home string) error {
	fi, err := os.Stat(home)
	if err != nil {
		return fmt.Errorf("agent home: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("agent home %s is not a folder", home)
	}
	if fi.Mode().Perm() == 0o700 {
		return nil
	}
	if err := os.Chmod(home, 0o700); err != nil {
		return fmt.Errorf("agent home: make it 0700: %w", err)
	}
	return nil
}

// listen makes the agent home's socket name, mode 0600, and returns its
// listener. The caller holds the lock, so a socket found in place is a
// stale one (a server that was killed): it is replaced. The socket is made
// under a temporary name, set to 0600 and renamed into place, so no one
// ever sees it at its own name with another mode. Anything but a socket at
// that name is left alone and refuses the start.
func listen(home, name string) (*net.UnixListener, error) {
	final := filepath.Join(home, name)
	if fi, err := os.Lstat(final); err == nil && fi.Mode().Type() != fs.ModeSocket {
		return nil, fmt.Errorf("listen: %s exists and is not a socket; remove it", final)
	}
	tmp := filepath.Join(home, fmt.Sprintf(".%s.%d", name, os.Getpid()))
	os.Remove(tmp) // a leftover of an earlier process with this pid
	addr, release, err := proto.ShortAddr(tmp)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
	release()
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", final, err)
	}
	ln.SetUnlinkOnClose(false) // the socket is renamed; Run removes it
	fail := func(err error) (*net.UnixListener, error) {
		ln.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("listen on %s: %w", final, err)
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return fail(err)
	}
	return ln, nil
}
