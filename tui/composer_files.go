package tui

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
)

// This file lists the files an ACP chat's prompt may mention with @: the
// chat's own single files, then the files under its folder and its
// additional folders. The walk runs in a tea.Cmd, is bounded, follows no
// symlink out of the folders, and its result is kept a short while per
// chat so each @ does not walk again.

// Bounds of the walk of a chat's folders.
const (
	mentionMaxFiles = 20000 // files listed in all
	mentionMaxDepth = 12    // folders below a root
	// mentionFresh is how long a chat's listing is reused.
	mentionFresh = 30 * time.Second
	// mentionCached is how many chats' listings are kept.
	mentionCached = 8
)

// mentionSkip are folders the walk never enters: build output and
// dependencies, heavy and never what a prompt means. Hidden folders
// (.git, .cache, …) are skipped too.
var mentionSkip = map[string]bool{
	"node_modules": true, "bower_components": true, "__pycache__": true,
	"venv": true, "target": true, "dist": true,
}

// mentionFile is a file the @ popup offers.
type mentionFile struct {
	// Path is the file's absolute path, as listed (inside its root).
	Path string
	// Label is what the popup shows and matches: the path relative to the
	// chat's folder, or to the additional folder's parent (so it starts
	// with that folder's name), or the absolute path of a single file.
	Label string
	// Match is what a query is matched against: the label, but for a
	// single file only its folder's name and its own (its whole path
	// would match most queries).
	Match string
	// Own marks one of the chat's single files.
	Own bool
	// match is Match made ready for the matcher (newFuzzyTarget).
	match fuzzyTarget
}

// mentionFilesMsg carries the files listed for chat id.
type mentionFilesMsg struct {
	id    string
	files []mentionFile
	// note says what the list leaves out (the bound was reached, the
	// chat's host is not this machine), "" when nothing.
	note string
	at   time.Time
}

// mentionListing is one chat's listing as the composer keeps it.
type mentionListing struct {
	files []mentionFile
	note  string
	at    time.Time
}

// listMentionFiles lists chat id's files off the event loop: the chat as
// the server stores it, then a walk of its folders. A chat of another host
// has its files there: only its single files are offered, and the note
// says so.
func listMentionFiles(lists ChatLists, id string, now func() time.Time) tea.Cmd {
	return func() tea.Msg {
		msg := mentionFilesMsg{id: id, at: now()}
		e, err := lists.Chat(id)
		if err != nil || e.Meta == nil {
			msg.note = "the chat's folders could not be read"
			return msg
		}
		m := e.Meta
		for _, f := range m.AdditionalFiles {
			short := filepath.Join(filepath.Base(filepath.Dir(f)), filepath.Base(f))
			msg.files = append(msg.files, mentionFile{Path: f, Label: mentionText(f), Match: mentionText(short), Own: true})
		}
		if h := hostOf(id); h != "" {
			for i := range msg.files {
				msg.files[i].match = newFuzzyTarget(msg.files[i].Match)
			}
			msg.note = "only the chat's own files: the files of host " + mentionText(h) + " are not listed here"
			return msg
		}
		roots := append([]string{m.Cwd}, m.AdditionalDirectories...)
		files, full := walkMentionRoots(roots, mentionMaxFiles, mentionMaxDepth)
		msg.files = append(msg.files, files...)
		for i := range msg.files {
			msg.files[i].match = newFuzzyTarget(msg.files[i].Match)
		}
		if full {
			msg.note = fmt.Sprintf("the first %d files only", mentionMaxFiles)
		}
		return msg
	}
}

// walkMentionRoots lists the files under roots (the chat's folder first),
// at most max files and depth folders deep, each root's files sorted; full
// reports that the bound cut the list. The first root's files are labelled
// relative to it, the others' relative to their parent.
func walkMentionRoots(roots []string, maxFiles, depth int) (files []mentionFile, full bool) {
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
		if i == 0 {
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
				if strings.HasPrefix(name, ".") || mentionSkip[name] ||
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
			label := mentionText(filepath.ToSlash(rel))
			files = append(files, mentionFile{Path: path, Label: label, Match: label})
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

// mentionText is a file's path or name fit to show and to put in a prompt:
// on one line, without escape sequences, controls or bidirectional
// controls (a name could make its line read in another order than it
// runs). A file's name is outside text.
func mentionText(s string) string {
	return strings.Map(func(r rune) rune {
		if plaintext.IsBidi(r) || unicode.IsControl(r) {
			return -1
		}
		return r
	}, plaintext.Line(s))
}
