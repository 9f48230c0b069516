// Package mention lists the files a prompt may mention with @ and ranks
// them for what is typed after the @: a chat's own single files, then the
// files under its folder and its additional folders. The TUI's composer
// and the server's _acpmux/files (for the web page and any client) both
// list and rank through it, so a query finds the same files in the same
// order everywhere.
//
// The walk is bounded (MaxFiles files, MaxDepth folders deep), skips
// hidden files and folders and the folders of build output and
// dependencies, and follows no symlink out of the folders. Every label is
// cleaned (Text): a file's name is outside text.
package mention

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
)

// Bounds of the walk of a chat's folders.
const (
	MaxFiles = 20000 // files listed in all
	MaxDepth = 12    // folders below a root
)

// skip are folders the walk never enters: build output and dependencies,
// heavy and never what a prompt means. Hidden folders (.git, .cache, …)
// are skipped too.
var skip = map[string]bool{
	"node_modules": true, "bower_components": true, "__pycache__": true,
	"venv": true, "target": true, "dist": true,
}

// File is a file a prompt may mention.
type File struct {
	// Path is the file's absolute path, as listed (inside its root).
	Path string
	// Label is what a list shows and a chip names: the path relative to
	// the chat's folder, or to the additional folder's parent (so it
	// starts with that folder's name), or the absolute path of a single
	// file.
	Label string
	// Match is what a query is matched against: the label, but for a
	// single file only its folder's name and its own (its whole path
	// would match most queries).
	Match string
	// Own marks one of the chat's single files.
	Own bool
	// target is Match made ready for the matcher (Prepare).
	target Target
}

// OwnFile is the File of one of a chat's single files (path absolute).
func OwnFile(path string) File {
	short := filepath.Join(filepath.Base(filepath.Dir(path)), filepath.Base(path))
	return File{Path: path, Label: Text(path), Match: Text(short), Own: true}
}

// List is a chat's files: its single files (own), then the walk of its
// folder cwd ("" for none) and its additional folders dirs, each made
// ready for Rank; full reports that the walk's bound cut the list.
func List(cwd string, dirs, own []string) (files []File, full bool) {
	for _, f := range own {
		files = append(files, OwnFile(f))
	}
	var roots []string
	if cwd != "" {
		roots = append(roots, cwd)
	}
	walked, full := Walk(append(roots, dirs...), MaxFiles, MaxDepth, cwd != "")
	files = append(files, walked...)
	Prepare(files)
	return files, full
}

// Prepare makes files ready for Rank, in place: a listing prepared once
// is ranked for each key typed without allocating per file.
func Prepare(files []File) {
	for i := range files {
		files[i].target = NewTarget(files[i].Match)
	}
}

// Walk lists the files under roots, at most maxFiles files and depth
// folders deep, each root's files sorted; full reports that the bound cut
// the list. With firstIsCwd, the first root's files are labelled relative
// to it; every other root's relative to its parent.
func Walk(roots []string, maxFiles, depth int, firstIsCwd bool) (files []File, full bool) {
	var canon []string
	for _, r := range roots {
		if c, err := filepath.EvalSymlinks(r); err == nil {
			canon = append(canon, filepath.Clean(c))
		}
	}
	// A file of a folder inside another is listed once, under the first.
	seen := map[string]bool{}
	for i, root := range roots {
		if len(files) >= maxFiles {
			return files, true
		}
		labelBase := filepath.Dir(root)
		if i == 0 && firstIsCwd {
			labelBase = root
		}
		start := len(files)
		rootDepth := strings.Count(filepath.Clean(root), string(filepath.Separator))
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if d != nil && d.IsDir() && path != root {
					return fs.SkipDir
				}
				return nil
			}
			if len(files) >= maxFiles {
				full = true
				return fs.SkipAll
			}
			name := d.Name()
			if d.IsDir() {
				if path == root {
					return nil
				}
				if strings.HasPrefix(name, ".") || skip[name] ||
					strings.Count(path, string(filepath.Separator))-rootDepth >= depth {
					return fs.SkipDir
				}
				return nil
			}
			if strings.HasPrefix(name, ".") {
				return nil
			}
			switch {
			case d.Type()&fs.ModeSymlink != 0:
				// A link is offered only when it resolves to a file inside
				// one of the chat's folders.
				target, err := filepath.EvalSymlinks(path)
				if err != nil || !insideAny(target, canon) {
					return nil
				}
				if st, err := os.Stat(target); err != nil || !st.Mode().IsRegular() {
					return nil
				}
			case !d.Type().IsRegular():
				return nil
			}
			if seen[path] {
				return nil
			}
			seen[path] = true
			rel, err := filepath.Rel(labelBase, path)
			if err != nil {
				return nil
			}
			label := Text(filepath.ToSlash(rel))
			files = append(files, File{Path: path, Label: label, Match: label})
			return nil
		})
		listed := files[start:]
		sort.SliceStable(listed, func(a, b int) bool { return listed[a].Label < listed[b].Label })
	}
	return files, full
}

// insideAny reports whether path (canonical) is one of roots (canonical)
// or inside one, compared component by component.
func insideAny(path string, roots []string) bool {
	for _, r := range roots {
		if path == r || strings.HasPrefix(path, strings.TrimSuffix(r, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// Text is a file's path or name fit to show and to put in a prompt: on
// one line, without escape sequences, controls or bidirectional controls
// (a name could make its line read in another order than it runs). A
// file's name is outside text.
func Text(s string) string {
	return strings.Map(func(r rune) rune {
		if plaintext.IsBidi(r) || unicode.IsControl(r) {
			return -1
		}
		return r
	}, plaintext.Line(s))
}
