// Package logfile is the agent home's log: a file that several processes
// append to and that rotates at a size cap, and a slog handler that lets a
// repeated record through a few times per window and then counts it, so a
// flood of the same event (refused connections, a chatty agent) costs a
// line per window, not a line per event.
package logfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// Defaults for the agent home's log: rotated at 10 MiB, the last three
// rotations kept (acpmux-tui.log.1 is the newest), so the log never holds
// more than 40 MiB of the disk.
const (
	DefaultMaxBytes = 10 << 20
	DefaultKeep     = 3
)

// File is a log file opened for appending that rotates when it passes
// MaxBytes. Several processes (the server, the TUI, commands) may append to
// the same path: each write takes a lock shared by them all (a flock on
// PATH.lock), checks the file's real size, rotates it first when the record
// would pass the cap, and writes; a process that finds another has rotated
// reopens the new file. So no file passes the cap, whoever writes.
type File struct {
	path string
	max  int64
	keep int

	mu   sync.Mutex
	f    *os.File
	lock *os.File
}

// Open opens (creating it and its folder) the log at path, to rotate past
// maxBytes keeping keep older files.
func Open(path string, maxBytes int64, keep int) (*File, error) {
	if maxBytes <= 0 || keep < 1 {
		return nil, fmt.Errorf("open log %s: a size cap of %d bytes keeping %d files", path, maxBytes, keep)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("open log: %w", err)
	}
	f, err := openAppend(path)
	if err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open log: %w", err)
	}
	return &File{path: path, max: maxBytes, keep: keep, f: f, lock: lock}, nil
}

func openAppend(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open log: %w", err)
	}
	return f, nil
}

// Write appends p, rotating first when p would take the file past the cap.
// A record is written whole to one file, never split across a rotation.
func (l *File) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, os.ErrClosed
	}
	if err := unix.Flock(int(l.lock.Fd()), unix.LOCK_EX); err != nil {
		return 0, fmt.Errorf("write log: %w", err)
	}
	defer unix.Flock(int(l.lock.Fd()), unix.LOCK_UN) //nolint:errcheck // closing releases it too
	if err := l.reopenIfRotated(); err != nil {
		return 0, err
	}
	if fi, err := l.f.Stat(); err == nil && fi.Size() > 0 && fi.Size()+int64(len(p)) > l.max {
		if err := l.rotate(); err != nil {
			// The log is full and cannot be rotated (a read-only folder,
			// say): dropping the line is better than growing without end.
			return 0, err
		}
	}
	return l.f.Write(p)
}

// reopenIfRotated reopens the path when another process has rotated the
// file this one has open.
func (l *File) reopenIfRotated() error {
	mine, err := l.f.Stat()
	if err != nil {
		return fmt.Errorf("write log: %w", err)
	}
	if named, err := os.Stat(l.path); err == nil && os.SameFile(mine, named) {
		return nil
	}
	f, err := openAppend(l.path)
	if err != nil {
		return err
	}
	l.f.Close()
	l.f = f
	return nil
}

// rotate shifts path.N-1 to path.N ... path to path.1 and reopens path;
// the caller holds the lock every writer takes.
func (l *File) rotate() error {
	for i := l.keep - 1; i >= 1; i-- {
		older := l.path + "." + strconv.Itoa(i)
		if err := os.Rename(older, l.path+"."+strconv.Itoa(i+1)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("rotate log: %w", err)
		}
	}
	if err := os.Rename(l.path, l.path+".1"); err != nil {
		return fmt.Errorf("rotate log: %w", err)
	}
	f, err := openAppend(l.path)
	if err != nil {
		return err
	}
	l.f.Close()
	l.f = f
	return nil
}

// Close closes the file; later writes fail with os.ErrClosed.
func (l *File) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.lock.Close()
	l.f = nil
	return err
}
