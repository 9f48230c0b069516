package agent

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// This file serves a chat's single files (additional_files) through fs/*,
// besides its folders: exactly those files, by their canonical paths, and
// nothing else in the folders that hold them. A shared file is opened by its
// path with O_NOFOLLOW (a symlink swapped in for it is refused), and the
// file really opened must be the one shared: the kernel's name for the open
// file (/proc/self/fd) is compared with the canonical path, so a folder on
// the way swapped for a symlink leads nowhere. A write replaces the file
// inside its own folder, opened the same way and checked the same way; the
// only other name it touches there is its own temporary file.

// SetFiles makes files (canonical paths, as stored) the single files
// served from now on; one taken off the list is refused at once.
func (r Roots) SetFiles(files []string) {
	clean := make([]string, 0, len(files))
	for _, f := range files {
		if filepath.IsAbs(f) {
			clean = append(clean, filepath.Clean(f))
		}
	}
	s := r.state
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files = clean
}

// sharedFile reports the shared file a clean absolute request path names:
// as spelled, or once its symlinks are resolved (an agent may spell the
// folder that holds it another way). A missing file is looked for where
// its folder really is.
func (r Roots) sharedFile(clean string) (string, bool) {
	s := r.state
	s.mu.Lock()
	files := s.files
	s.mu.Unlock()
	if len(files) == 0 {
		return "", false
	}
	if slices.Contains(files, clean) {
		return clean, true
	}
	real, err := filepath.EvalSymlinks(clean)
	if err != nil {
		dir, derr := filepath.EvalSymlinks(filepath.Dir(clean))
		if derr != nil {
			return "", false
		}
		real = filepath.Join(dir, filepath.Base(clean))
	}
	real = filepath.Clean(real)
	if slices.Contains(files, real) {
		return real, true
	}
	return "", false
}

// fdPath is where the kernel says an open file or folder is now.
func fdPath(f *os.File) (string, error) {
	return os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
}

// openShared opens a shared file by its canonical path: never through a
// symlink at its last step, and only if what was opened is that file.
func (r Roots) openShared(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW, perm)
	if err != nil {
		return nil, sharedError(err)
	}
	if real, err := fdPath(f); err != nil || real != path {
		f.Close()
		return nil, outside(errors.New("the shared file resolves elsewhere now"))
	}
	if err := r.refuseOffLimits(f); err != nil {
		return nil, err
	}
	return f, nil
}

// sharedError turns an error of opening a shared file into a refusal: a
// symlink in its place is outside, as any escape is.
func sharedError(err error) *fsRefusal {
	if errors.Is(err, syscall.ELOOP) {
		return outside(err)
	}
	return inRootError(err)
}

// openSharedParent opens the folder that holds a shared file, checked to be
// the folder the file's canonical path names, for a write inside it.
func (r Roots) openSharedParent(path string) (*os.Root, error) {
	dir := filepath.Dir(path)
	h, err := os.OpenRoot(dir)
	if err != nil {
		return nil, sharedError(err)
	}
	d, err := h.Open(".")
	if err != nil {
		h.Close()
		return nil, inRootError(err)
	}
	real, err := fdPath(d)
	if err == nil && real != dir {
		err = errors.New("the shared file's folder resolves elsewhere now")
	}
	if err != nil {
		d.Close()
		h.Close()
		return nil, outside(err)
	}
	if err := r.refuseOffLimits(d); err != nil {
		h.Close()
		return nil, err
	}
	d.Close()
	return h, nil
}

// writeShared writes a shared file as writeText writes one in a folder: a
// regular file of ours with one link is replaced atomically with its mode,
// one with other links or another owner is written in place, a file gone
// is made again; a symlink in its place, or anything not a regular file,
// is refused.
func (r Roots) writeShared(path, content string) error {
	dir, err := r.openSharedParent(path)
	if err != nil {
		return err
	}
	defer dir.Close()
	base := filepath.Base(path)
	fi, err := dir.Lstat(base)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return replaceFile(dir, base, content, 0o644, false)
	case err != nil:
		return inRootError(err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return outside(errors.New("a symlink stands where the shared file was"))
	case !fi.Mode().IsRegular():
		return refuse(codeInvalidParams, RefusalNotRegular, nil)
	case sharedOrForeign(fi):
		f, err := dir.OpenFile(base, openWriteFlags|syscall.O_NOFOLLOW, 0)
		if err != nil {
			return sharedError(err)
		}
		return writeInPlace(f, content)
	}
	return replaceFile(dir, base, content, fi.Mode().Perm(), true)
}
