package sessions

import (
	"errors"
	"fmt"
	"io"
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
	return openChatFile(path, fi.Mode().Type())
}

// openChatFile is readChatFile given the file's type, from an Lstat or from
// reading its folder (which saves List a system call per chat).
func openChatFile(path string, typ fs.FileMode) ([]byte, fileIdentity, error) {
	if err := notRegular(typ); err != nil {
		return nil, fileIdentity{}, err
	}
	// O_NOFOLLOW and O_NONBLOCK keep the promise when the file was swapped
	// for a link or a FIFO since its type was read; fstat checks again what
	// was opened.
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if errors.Is(err, unix.ELOOP) {
		return nil, fileIdentity{}, errSymlink
	}
	if err != nil {
		return nil, fileIdentity{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fileIdentity{}, err
	}
	if err := notRegular(fi.Mode()); err != nil {
		return nil, fileIdentity{}, err
	}
	id := identityOf(fi)
	if fi.Size() > MaxChatFileBytes {
		return nil, id, sizeError(fi.Size())
	}
	// One read of the size fstat gave, plus a byte to see the end of the
	// file; a file that grew since is read on, up to the limit and a byte.
	buf := make([]byte, fi.Size()+1)
	n, err := io.ReadFull(f, buf)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return buf[:n], id, nil
	case err != nil:
		return nil, id, err
	}
	rest, err := io.ReadAll(io.LimitReader(f, MaxChatFileBytes+1-int64(n)))
	if err != nil {
		return nil, id, err
	}
	data := append(buf[:n], rest...)
	if len(data) > MaxChatFileBytes {
		return nil, id, sizeError(max(fi.Size(), int64(len(data))))
	}
	return data, id, nil
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
