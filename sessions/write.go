package sessions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// write stores m atomically: a temp file in the same folder, fsync, rename,
// fsync of the folder. Called with the lock held. With was nil the chat is
// new, and nothing already at its path is replaced; otherwise only the
// regular file that was read (was) is replaced, never a symbolic link, a FIFO
// or another file put there since.
func (s *Store) write(m *Meta, was *fileIdentity) error {
	data, err := m.Marshal()
	if err != nil {
		return err
	}
	return writeAtomic(s.ChatPath(m.ID), data, 0o644, was)
}

// writeAtomic puts data at path with mode: a temp file in the same folder,
// fsync, rename (see commitRename for was), fsync of the folder.
func writeAtomic(path string, data []byte, mode os.FileMode, was *fileIdentity) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Chmod(mode); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := commitRename(tmp, path, was); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return syncDir(dir)
}

// commitRename puts the written temp file at path: in place of the file that
// was read (was), or, with was nil, only where nothing is.
func commitRename(tmp, path string, was *fileIdentity) error {
	if was != nil {
		if err := sameFile(path, *was); err != nil {
			return err
		}
		return os.Rename(tmp, path)
	}
	err := renameNoReplace(tmp, path)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EEXIST):
		return errors.New("a file is already at the new chat's path; left as it is")
	case !noReplaceUnsupported(err):
		return err
	}
	// This file system cannot refuse to replace in the rename itself: look
	// first (under the store lock, so only a process outside acpmux-tui
	// could race it).
	if _, err := os.Lstat(path); err == nil {
		return errors.New("a file is already at the new chat's path; left as it is")
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.Rename(tmp, path)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
