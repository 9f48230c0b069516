package sessions

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames from to to unless something is at to (EEXIST).
func renameNoReplace(from, to string) error {
	return unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
}

// noReplaceUnsupported reports the error of a kernel or file system that
// cannot refuse to replace in the rename itself.
func noReplaceUnsupported(err error) bool {
	return errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS)
}
