package sessions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// MaxChatFileBytes is the largest chat file the store reads (1 MiB). A chat
// file holds a few keys of metadata; a larger one is listed as broken and
// never parsed, so a runaway or hostile file cannot stall `ls`, `show` or the
// TUI.
const MaxChatFileBytes = 1 << 20

// fileIdentity names the file a chat was read from, so a writer can tell
// that the file it is about to replace or delete is still that one.
type fileIdentity struct{ dev, ino uint64 }

func identityOf(fi fs.FileInfo) fileIdentity {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileIdentity{dev: uint64(st.Dev), ino: st.Ino}
	}
	return fileIdentity{}
}

// errSymlink refuses a chat file that is a symbolic link: it is never
// followed, replaced or deleted.
var errSymlink = errors.New("chat file is a symbolic link (links are never followed)")

// notRegular returns why a chat file of this mode cannot be read as one, or
// nil for a regular file.
func notRegular(mode fs.FileMode) error {
	var what string
	switch {
	case mode.IsRegular():
		return nil
	case mode&fs.ModeSymlink != 0:
		return errSymlink
	case mode.IsDir():
		what = "a directory"
	case mode&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		what = "a socket"
	case mode&fs.ModeDevice != 0:
		what = "a device"
	default:
		return errors.New("chat file is not a regular file")
	}
	return fmt.Errorf("chat file is %s, not a regular file", what)
}

// sizeError refuses a chat file of size bytes, over MaxChatFileBytes.
func sizeError(size int64) error {
	if size < MaxChatFileBytes+MaxChatFileBytes/20 {
		// "1.0 MiB, over the 1 MiB limit" would read as a contradiction.
		return fmt.Errorf("chat file is %d bytes, over the 1 MiB limit (%d bytes)", size, MaxChatFileBytes)
	}
	return fmt.Errorf("chat file is %.1f MiB, over the 1 MiB limit", float64(size)/(1<<20))
}

// readChatFile reads a chat file without following a symbolic link, without
// blocking on a FIFO and without reading more than MaxChatFileBytes+1 bytes.
// Anything but a regular file is refused with what it is, before it is opened
// (opening a device can have effects of its own); a missing file is an
// fs.ErrNotExist error. It returns the bytes and the identity of the file
// they came from.
func readChatFile(path string) ([]byte, fileIdentity, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, fileIdentity{}, err
	}
	return openChatFile(pathFile(path), fi.Mode().Type(), nil)
}

// chatFile names a chat file for openChatFile: name in the folder open as
// dirfd (List opens chats/ once, so the kernel does not walk the agent
// home's path again for each chat), or a path and unix.AT_FDCWD. dir is
// the folder's path, joined to name only for an error's message.
type chatFile struct {
	dirfd     int
	dir, name string
}

// pathFile names the chat file at path, opened from the working folder.
func pathFile(path string) chatFile { return chatFile{dirfd: unix.AT_FDCWD, name: path} }

func (f chatFile) path() string {
	if f.dir == "" {
		return f.name
	}
	return f.dir + "/" + f.name
}

// openChatFile is readChatFile given the file's type, from an Lstat or from
// reading its folder (which saves List a system call per chat). The bytes
// are read into scratch when it is large enough (List's workers reuse one
// for every file they read, sparing an allocation a chat); they are then
// the caller's only until it passes scratch again.
func openChatFile(f chatFile, typ fs.FileMode, scratch []byte) ([]byte, fileIdentity, error) {
	if err := notRegular(typ); err != nil {
		return nil, fileIdentity{}, err
	}
	// O_NOFOLLOW and O_NONBLOCK keep the promise when the file was swapped
	// for a link or a FIFO since its type was read; fstat checks again what
	// was opened. The calls are made bare, without an os.File: at 1,000
	// chats its making, finalizer and closing were a third of ls's time.
	fd, err := retryEINTR(func() (int, error) {
		return unix.Openat(f.dirfd, f.name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	})
	if errors.Is(err, unix.ELOOP) {
		return nil, fileIdentity{}, errSymlink
	}
	if err != nil {
		return nil, fileIdentity{}, &fs.PathError{Op: "open", Path: f.path(), Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fileIdentity{}, &fs.PathError{Op: "stat", Path: f.path(), Err: err}
	}
	if err := notRegular(modeType(uint32(st.Mode))); err != nil {
		return nil, fileIdentity{}, err
	}
	id := fileIdentity{dev: uint64(st.Dev), ino: st.Ino}
	if st.Size > MaxChatFileBytes {
		return nil, id, sizeError(st.Size)
	}
	// One read of the size fstat gave, plus a byte to see the end of the
	// file: a regular file's read comes short only at its end. A file that
	// grew since is read on, up to the limit and a byte.
	buf := scratch[:cap(scratch)]
	if int64(len(buf)) < st.Size+1 {
		buf = make([]byte, st.Size+1)
	} else {
		buf = buf[:st.Size+1]
	}
	total := 0
	for {
		n, err := retryEINTR(func() (int, error) { return unix.Read(fd, buf[total:]) })
		if err != nil {
			return nil, id, &fs.PathError{Op: "read", Path: f.path(), Err: err}
		}
		total += n
		if total < len(buf) || len(buf) > MaxChatFileBytes {
			break
		}
		buf = append(buf, make([]byte, min(len(buf), MaxChatFileBytes+1-len(buf)))...)
	}
	data := buf[:total]
	if len(data) > MaxChatFileBytes {
		return nil, id, sizeError(max(st.Size, int64(len(data))))
	}
	return data, id, nil
}

// retryEINTR calls f again while a signal interrupts it.
func retryEINTR(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if err != unix.EINTR {
			return n, err
		}
	}
}

// modeType is the type bits of a stat's mode as fs.FileMode's (0 for a
// regular file).
func modeType(mode uint32) fs.FileMode {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFBLK:
		return fs.ModeDevice
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	}
	return fs.ModeIrregular
}

// sameFile refuses to let a write replace or delete the file at path unless
// it is still the regular file that was read (was): a symbolic link, a FIFO
// or another file put there since is left as it is.
func sameFile(path string, was fileIdentity) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("chat file changed since it was read: %w", err)
	}
	if err := notRegular(fi.Mode()); err != nil {
		return fmt.Errorf("%w; left as it is", err)
	}
	if identityOf(fi) != was {
		return errors.New("chat file was replaced by another since it was read; left as it is")
	}
	return nil
}
