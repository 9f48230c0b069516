package sessions

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames from to to unless something is at to (EEXIST):
// darwin's renamex_np with RENAME_EXCL, its renameat2 RENAME_NOREPLACE.
func renameNoReplace(from, to string) error {
	return unix.RenamexNp(from, to, unix.RENAME_EXCL)
}

// noReplaceUnsupported reports the error of a file system that cannot
// refuse to replace in the rename itself (ENOTSUP where it lacks
// RENAME_EXCL).
func noReplaceUnsupported(err error) bool {
	return errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS)
}
