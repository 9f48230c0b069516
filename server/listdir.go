package server

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// listDirectory answers MethodListDirectory: one folder of this host, as
// the user the server runs as can read it, bounded to
// proto.MaxListEntries entries; what no chat may be given (the agent home,
// /proc, /sys: sessions.OffLimits) is left out, and listing inside it is
// refused, as the validator and fs/* refuse it.
func (s *Server) listDirectory(p proto.ListDirectoryParams) (proto.ListDirectoryResult, *Error) {
	res := proto.ListDirectoryResult{Entries: []proto.DirEntry{}}
	if reason := sessions.PathSyntaxProblem(p.Path); reason != "" {
		return res, errorf(proto.CodeInvalidParams, "Invalid params: path %q: %s", clipText(p.Path), reason)
	}
	dir, err := filepath.EvalSymlinks(filepath.Clean(p.Path))
	if err != nil {
		return res, errorf(proto.CodeInvalidParams, "Invalid params: path %q: %s", clipText(p.Path), listProblem(err))
	}
	home := sessions.CanonicalOr(s.opt.Store.Home())
	if reason := sessions.OffLimits(home, "", dir); reason != "" {
		return res, errorf(proto.CodeInvalidParams, "Invalid params: path %q: %s", clipText(p.Path), reason)
	}
	f, err := os.Open(dir)
	if err != nil {
		return res, errorf(proto.CodeInvalidParams, "Invalid params: path %q: %s", clipText(p.Path), listProblem(err))
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.IsDir() {
		return res, errorf(proto.CodeInvalidParams, "Invalid params: path %q: is not a folder", clipText(p.Path))
	}
	res.Path = dir
	// One entry more than the bound tells whether any were left out.
	for len(res.Entries) <= proto.MaxListEntries {
		batch, err := f.ReadDir(256)
		for _, e := range batch {
			full := filepath.Join(dir, e.Name())
			if sessions.OffLimits(home, "", full) != "" {
				continue // the agent home, /proc, /sys: never a chat's folder
			}
			isDir := e.IsDir()
			if e.Type()&fs.ModeSymlink != 0 {
				st, err := os.Stat(full)
				isDir = err == nil && st.IsDir()
			}
			res.Entries = append(res.Entries, proto.DirEntry{Name: e.Name(), Dir: isDir})
		}
		if errors.Is(err, io.EOF) || len(batch) == 0 {
			break
		}
		if err != nil {
			return proto.ListDirectoryResult{Entries: []proto.DirEntry{}}, errorf(proto.CodeFailed, "list %s: %s", clipText(dir), listProblem(err))
		}
	}
	if len(res.Entries) > proto.MaxListEntries {
		res.Entries, res.Truncated = res.Entries[:proto.MaxListEntries], true
	}
	sort.Slice(res.Entries, func(i, j int) bool { return res.Entries[i].Name < res.Entries[j].Name })
	return res, nil
}

// listProblem words why a folder cannot be listed.
func listProblem(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "does not exist"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
