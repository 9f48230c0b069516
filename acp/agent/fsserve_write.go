package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"syscall"
)

// openWriteFlags open an existing file to write in place: never blocking
// on a FIFO, never taking a terminal. No O_TRUNC: the file is checked to be
// regular before anything in it changes.
const openWriteFlags = os.O_WRONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY

// WriteText writes a request's file: a shared single file as writeShared
// says, any other inside the chat's folders. The folder that holds it is
// opened once through the roots, and everything after happens inside that folder:
//   - a new file, or a regular file of ours with one link, is replaced
//     atomically (a temporary file beside it, fsync, rename, fsync of the
//     folder) with the old file's mode, so a failed write (a full disk)
//     leaves the old content whole;
//   - a file with other hard links, or owned by someone else, is written in
//     place, so the links and the owner stay;
//   - a symlink is followed through the roots and its target written in
//     place, so the link stays a link;
//   - anything else (a folder, a FIFO, a device, a socket) is refused.
func (r Roots) WriteText(p, content string, max int64) error {
	if int64(len(content)) > max {
		have, limit := sizesText(int64(len(content)), max)
		return refuse(codeInvalidParams, fmt.Sprintf("content is %s, over the %s limit of fs/write_text_file (acp.max_file_bytes)", have, limit), nil)
	}
	if clean, err := cleanRequestPath(p); err == nil {
		if shared, ok := r.sharedFile(clean); ok {
			return r.writeShared(shared, content)
		}
	}
	dir, base, err := r.openParent(p)
	if err != nil {
		return err
	}
	defer dir.Close()
	fi, err := dir.Lstat(base)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return replaceFile(dir, base, content, 0o644, false)
	case err != nil:
		return inRootError(err)
	case fi.Mode()&fs.ModeSymlink != 0:
		f, err := r.openFile(p, openWriteFlags|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		return writeInPlace(f, content)
	case !fi.Mode().IsRegular():
		return refuse(codeInvalidParams, RefusalNotRegular, nil)
	case sharedOrForeign(fi):
		f, err := dir.OpenFile(base, openWriteFlags, 0)
		if err != nil {
			return inRootError(err)
		}
		return writeInPlace(f, content)
	}
	return replaceFile(dir, base, content, fi.Mode().Perm(), true)
}

// sharedOrForeign reports a file with other hard links or another owner,
// which an atomic replace would cut off or take over.
func sharedOrForeign(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && (st.Nlink > 1 || int(st.Uid) != os.Geteuid())
}

// writeInPlace truncates and writes an open file, once fstat says it is a
// regular file, and closes it.
func writeInPlace(f *os.File, content string) error {
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return inRootError(err)
	}
	if !fi.Mode().IsRegular() {
		return refuse(codeInvalidParams, RefusalNotRegular, nil)
	}
	if err := f.Truncate(0); err != nil {
		return inRootError(err)
	}
	if _, err := f.WriteString(content); err != nil {
		return inRootError(err)
	}
	if err := f.Close(); err != nil {
		return inRootError(err)
	}
	return nil
}

// maxTempBase bounds the part of a file's name its temporary file's name
// repeats, so the temporary name stays under the 255-byte limit.
const maxTempBase = 200

// replaceFile writes content to a new temporary file in dir and renames it
// over base. keepMode sets the mode exactly (the umask would trim it).
func replaceFile(dir *os.Root, base, content string, mode os.FileMode, keepMode bool) error {
	short := base
	if len(short) > maxTempBase {
		short = short[:maxTempBase]
	}
	var (
		f   *os.File
		tmp string
		err error
	)
	for range 8 {
		tmp = fmt.Sprintf(".%s.acpmux-%08x.tmp", short, rand.Uint32())
		f, err = dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NONBLOCK|syscall.O_NOCTTY, mode)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return inRootError(err)
	}
	err = func() error {
		defer f.Close()
		if keepMode {
			if err := f.Chmod(mode); err != nil {
				return err
			}
		}
		if _, err := f.WriteString(content); err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			return err
		}
		return f.Close()
	}()
	if err == nil {
		err = dir.Rename(tmp, base)
	}
	if err != nil {
		_ = dir.Remove(tmp)
		return inRootError(err)
	}
	if d, err := dir.Open("."); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
