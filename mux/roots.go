package mux

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// roots are the folders an ACP chat's file requests may touch: its own
// folder and its additional folders, canonical.
type roots []string

func newRoots(cwd string, dirs []string) roots {
	var r roots
	for _, d := range append([]string{cwd}, dirs...) {
		if c, err := filepath.EvalSymlinks(d); err == nil {
			r = append(r, filepath.Clean(c))
		}
	}
	return r
}

// inside reports whether a canonical path is a root or below one, compared
// component by component: /a/bc is not inside /a/b.
func (r roots) inside(p string) bool {
	for _, root := range r {
		if p == root {
			return true
		}
		prefix := root
		if !strings.HasSuffix(prefix, string(filepath.Separator)) {
			prefix += string(filepath.Separator)
		}
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// resolve returns the real path a file request means, or refuses it: the
// path must be absolute, and after every symlink is resolved (the file's own
// too) it must be inside a root. For a write to a new file, its folder must
// exist inside a root.
func (r roots) resolve(p string, forWrite bool) (string, error) {
	if p == "" || strings.IndexByte(p, 0) >= 0 || !filepath.IsAbs(p) {
		return "", fmt.Errorf("path %q is not an absolute path", p)
	}
	real, err := filepath.EvalSymlinks(p)
	switch {
	case err == nil:
	case forWrite && errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(p); lerr == nil {
			// A dangling symlink: writing would follow it somewhere
			// unchecked.
			return "", fmt.Errorf("%s is a symlink to a missing file", p)
		}
		dir, derr := filepath.EvalSymlinks(filepath.Dir(p))
		if derr != nil {
			return "", fmt.Errorf("folder of %s: %w", p, derr)
		}
		real = filepath.Join(dir, filepath.Base(p))
	default:
		return "", err
	}
	real = filepath.Clean(real)
	if !r.inside(real) {
		return "", fmt.Errorf("%s is outside the chat's folders", p)
	}
	return real, nil
}
