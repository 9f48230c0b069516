package bundle

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// stage is the staging folder Unpack writes into. Every file is made
// relative to an open folder descriptor (openat), with O_NOFOLLOW and
// O_EXCL, so no symbolic link, whether planted before or during the unpack,
// is ever followed, and nothing is written outside the folder.
type stage struct {
	dir     *os.File
	conv    *os.File // dir/conversation, once made
	made    []string // base names of the files made in conv, in order
	madeDir bool
}

// openStage opens dir, which must be an empty folder and not a symbolic
// link.
func openStage(dir string) (*stage, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("unpack bundle: open staging folder: %w", err)
	}
	names, err := f.Readdirnames(1)
	if err != nil && !errors.Is(err, io.EOF) {
		_ = f.Close()
		return nil, fmt.Errorf("unpack bundle: read staging folder %s: %w", dir, err)
	}
	if len(names) > 0 {
		_ = f.Close()
		return nil, fmt.Errorf("unpack bundle: staging folder %s is not empty (it holds %q)", dir, names[0])
	}
	return &stage{dir: f}, nil
}

// create makes the file for member name ("conversation/NAME", already
// checked), mode 0600, and the conversation folder first if need be.
func (s *stage) create(name string) (*os.File, error) {
	base, ok := strings.CutPrefix(name, ConversationDir+"/")
	if !ok || strings.Contains(base, "/") {
		return nil, fmt.Errorf("unpack bundle: %q is not a conversation file", name)
	}
	if s.conv == nil {
		if err := unix.Mkdirat(int(s.dir.Fd()), ConversationDir, 0o700); err != nil {
			return nil, fmt.Errorf("unpack bundle: make %s/ in the staging folder: %w", ConversationDir, err)
		}
		s.madeDir = true
		fd, err := unix.Openat(int(s.dir.Fd()), ConversationDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("unpack bundle: open %s/ in the staging folder: %w", ConversationDir, err)
		}
		s.conv = os.NewFile(uintptr(fd), s.dir.Name()+"/"+ConversationDir)
	}
	fd, err := unix.Openat(int(s.conv.Fd()), base, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("unpack bundle: create %s in the staging folder: %w", name, err)
	}
	s.made = append(s.made, base)
	return os.NewFile(uintptr(fd), s.conv.Name()+"/"+base), nil
}

// sync makes the folders' entries durable (each file was synced as it was
// closed).
func (s *stage) sync() error {
	if s.conv != nil {
		if err := s.conv.Sync(); err != nil {
			return fmt.Errorf("unpack bundle: sync %s: %w", s.conv.Name(), err)
		}
	}
	if err := s.dir.Sync(); err != nil {
		return fmt.Errorf("unpack bundle: sync the staging folder: %w", err)
	}
	return nil
}

// close closes the folders, keeping what was made.
func (s *stage) close() {
	if s.conv != nil {
		_ = s.conv.Close()
	}
	_ = s.dir.Close()
}

// remove takes away everything this stage made, without following any
// link, and closes the folders. What it cannot remove is the caller's to
// remove with the folder itself.
func (s *stage) remove() {
	if s.conv != nil {
		for _, base := range s.made {
			_ = unix.Unlinkat(int(s.conv.Fd()), base, 0)
		}
		_ = s.conv.Close()
	}
	if s.madeDir {
		_ = unix.Unlinkat(int(s.dir.Fd()), ConversationDir, unix.AT_REMOVEDIR)
	}
	_ = s.dir.Close()
}
