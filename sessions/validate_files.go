package sessions

import (
	"io/fs"
	"path/filepath"

	"github.com/acpmux/acpmux-tui/proto"
)

// CanonicalFile returns the symlink-resolved, clean form of an absolute path
// to an existing regular file, or the reason it is not one: a folder, a
// device, a FIFO or a socket given as a file is refused by name.
func CanonicalFile(p string) (string, error) { return canonicalOf(p, notAFile) }

// notAFile says why a file of this mode cannot be shared as a single file,
// or "" for a regular file.
func notAFile(mode fs.FileMode) string {
	switch {
	case mode.IsRegular():
		return ""
	case mode.IsDir():
		return "is a folder, not a file (give it as a folder: --dir, add-dir)"
	case mode&fs.ModeNamedPipe != 0:
		return "is a FIFO, not a regular file"
	case mode&fs.ModeSocket != 0:
		return "is a socket, not a regular file"
	case mode&fs.ModeDevice != 0:
		return "is a device, not a regular file"
	}
	return "is not a regular file"
}

// ValidateFiles is the shared validator for a chat's single files, with the
// folders' rules: non-empty, no NUL, absolute, existing, canonical (symlinks
// resolved), listed once (first place kept), at most MaxFiles; and each must
// be a regular file, not under /proc or /sys (OffLimits). A file inside the
// chat's own folder is allowed. The
// refusal is a *FolderError with Field FieldFiles naming every bad entry.
// Where the agent home is known, use Store.ValidateFiles.
func ValidateFiles(cwd string, files []string) ([]string, error) {
	return validateList("", cwd, files, proto.FieldFiles, false)
}

// ValidateFiles is ValidateFiles with the agent home's rule: no file inside
// the agent home is shared.
func (s *Store) ValidateFiles(cwd string, files []string) ([]string, error) {
	return validateList(s.home, cwd, files, proto.FieldFiles, false)
}

// ValidateLists validates a chat's folders and files given together and
// refuses both at once: one *FolderError names every bad entry of either.
func (s *Store) ValidateLists(cwd string, dirs, files []string) ([]string, []string, error) {
	okDirs, derr := s.ValidateFolders(cwd, dirs)
	okFiles, ferr := s.ValidateFiles(cwd, files)
	if derr == nil && ferr == nil {
		return okDirs, okFiles, nil
	}
	dfe, _ := AsFolderError(derr)
	ffe, _ := AsFolderError(ferr)
	return nil, nil, JoinRefusals(dfe, ffe)
}

// CheckStoredFiles checks a chat's stored files again before a start: the
// ones that have gone, are no longer regular files, or resolve elsewhere
// now, each with the reason (Field FieldFiles). Empty means the start may
// go ahead.
func CheckStoredFiles(files []string) []proto.FolderProblem {
	var bad []proto.FolderProblem
	for i, f := range files {
		c, err := CanonicalFile(f)
		switch {
		case err != nil:
			bad = append(bad, proto.FolderProblem{Index: i, Path: f, Reason: err.Error(), Field: proto.FieldFiles})
		case c != filepath.Clean(f):
			bad = append(bad, proto.FolderProblem{Index: i, Path: f, Reason: "now resolves to " + quotePath(c), Field: proto.FieldFiles})
		}
	}
	return bad
}
