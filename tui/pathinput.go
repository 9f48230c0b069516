package tui

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/acpmux/acpmux-tui/third_party/bubbles/cursor"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

// maxListed bounds the subfolders listed for one folder, and the files.
const maxListed = 5000

// dirListedMsg brings the subfolders of a folder, and its regular files,
// read in a tea.Cmd, to the path input that asked (owner).
type dirListedMsg struct {
	owner int
	dir   string
	names []string
	files []string
	err   error
}

// listDir reads the subfolders of dir and its regular files (symlinks to
// either included, as what they point to).
func listDir(owner int, dir string) tea.Cmd {
	return listDirWith(owner, dir, nil)
}

// dirReader lists a folder of another host: its subfolders and its other
// entries, sorted.
type dirReader func(dir string) (names, files []string, err error)

// listDirWith lists dir with read, or from this machine's disk when read
// is nil.
func listDirWith(owner int, dir string, read dirReader) tea.Cmd {
	if read != nil {
		return func() tea.Msg {
			names, files, err := read(dir)
			return dirListedMsg{owner: owner, dir: dir, names: names, files: files, err: err}
		}
	}
	return func() tea.Msg {
		des, err := os.ReadDir(dir)
		if err != nil {
			return dirListedMsg{owner: owner, dir: dir, err: err}
		}
		var names, files []string
		for _, de := range des {
			mode := de.Type()
			if mode&os.ModeSymlink != 0 {
				fi, err := os.Stat(filepath.Join(dir, de.Name()))
				if err != nil {
					continue
				}
				mode = fi.Mode().Type()
			}
			switch {
			case mode.IsDir() && len(names) < maxListed:
				names = append(names, de.Name())
			case mode.IsRegular() && len(files) < maxListed:
				files = append(files, de.Name())
			}
		}
		sort.Strings(names)
		sort.Strings(files)
		return dirListedMsg{owner: owner, dir: dir, names: names, files: files}
	}
}

// PathInput is a one-line path field that lists the folder being typed in
// (off the UI goroutine) and completes the last part with tab.
type PathInput struct {
	owner int
	home  string
	input textinput.Model
	dir   string   // the folder whose listing is held
	names []string // its subfolders
	files map[string]bool
	// withFiles lists the folder's files after its subfolders (the
	// folder picker); without it only subfolders are listed.
	withFiles bool
	fileNames []string // its regular files, in order
	listErr   error
	asked     string // a listing asked for and not yet here
	// completeOnList completes once the listing arrives (tab pressed
	// before it did).
	completeOnList bool
	// read lists the folders of another host (nil: this machine's).
	read dirReader
}

// SetReader makes the field list folders with read (another host's), or
// this machine's disk when nil; what it listed before is forgotten.
func (p *PathInput) SetReader(read dirReader) {
	p.read = read
	p.dir, p.asked, p.names, p.fileNames, p.files, p.listErr = "", "", nil, nil, nil, nil
}

// NewPathInput returns a path field; owner tags its listings, home expands
// a leading "~".
func NewPathInput(c *Common, owner int, home, value string) *PathInput {
	in := textinput.New()
	in.Prompt = ""
	in.Cursor.SetMode(cursor.CursorStatic)
	in.PlaceholderStyle = c.Styles.Dim
	in.SetValue(value)
	in.CursorEnd()
	return &PathInput{owner: owner, home: home, input: in}
}

// Value returns the text as typed.
func (p *PathInput) Value() string { return p.input.Value() }

// Path returns the text with a leading "~" expanded; it is not checked.
func (p *PathInput) Path() string { return expandHome(strings.TrimSpace(p.input.Value()), p.home) }

// SetValue replaces the text and asks for the listing it needs.
func (p *PathInput) SetValue(v string) tea.Cmd {
	p.input.SetValue(v)
	p.input.CursorEnd()
	return p.Sync()
}

func expandHome(p, home string) string {
	if home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		return home + p[1:]
	}
	return p
}

// split returns the folder part of the text (up to its last "/") and the
// part being typed after it. The folder is "" for a relative path.
func (p *PathInput) split() (dir, base string) {
	v := p.Path()
	i := strings.LastIndexByte(v, '/')
	if i < 0 || !filepath.IsAbs(v) {
		return "", v
	}
	return v[:i+1], v[i+1:]
}

// Sync asks for the listing of the folder typed, if it is not held.
func (p *PathInput) Sync() tea.Cmd {
	dir, _ := p.split()
	if dir == "" {
		p.dir, p.names, p.fileNames, p.files, p.listErr = "", nil, nil, nil, nil
		return nil
	}
	if dir == p.dir || dir == p.asked {
		return nil
	}
	p.asked = dir
	return listDirWith(p.owner, filepath.Clean(dir), p.read)
}

// Listed takes a listing; it reports whether the listing was this field's,
// and completes the text if tab was pressed before the listing came.
func (p *PathInput) Listed(msg dirListedMsg) (bool, tea.Cmd) {
	if msg.owner != p.owner {
		return false, nil
	}
	dir, _ := p.split()
	if filepath.Clean(dir) != msg.dir || dir == "" {
		return true, nil // stale: the text moved on
	}
	p.dir, p.names, p.listErr, p.asked = dir, msg.names, msg.err, ""
	p.fileNames, p.files = msg.files, make(map[string]bool, len(msg.files))
	for _, f := range msg.files {
		p.files[f] = true
	}
	if p.completeOnList {
		p.completeOnList = false
		return true, p.Complete()
	}
	return true, nil
}

// Matches returns the subfolders of the typed folder that start with the
// typed part, then (WithFiles) its files that do; hidden ones only when
// that part starts with ".".
func (p *PathInput) Matches() []string {
	dir, base := p.split()
	if dir == "" || dir != p.dir {
		return nil
	}
	var out []string
	add := func(names []string) {
		for _, n := range names {
			if strings.HasPrefix(n, base) && (strings.HasPrefix(base, ".") || !strings.HasPrefix(n, ".")) {
				out = append(out, n)
			}
		}
	}
	add(p.names)
	if p.withFiles {
		add(p.fileNames)
	}
	return out
}

// WithFiles has the field list the typed folder's files too, after its
// subfolders, and complete their names.
func (p *PathInput) WithFiles() { p.withFiles = true }

// IsFile reports whether a name Matches returned is a file, not a folder.
func (p *PathInput) IsFile(name string) bool {
	return p.withFiles && p.files[name]
}

// Absolute reports whether the text is an absolute path, so it can be
// browsed.
func (p *PathInput) Absolute() bool {
	dir, _ := p.split()
	return dir != ""
}

// Pending reports whether the typed folder's listing has not arrived yet.
func (p *PathInput) Pending() bool {
	dir, _ := p.split()
	return dir != p.dir
}

// Folder returns the folder listed, "" when none is.
func (p *PathInput) Folder() string { return p.dir }

// ListErr returns why the typed folder could not be listed.
func (p *PathInput) ListErr() error { return p.listErr }

// Complete extends the typed part to the longest prefix shared by its
// matches, and to the folder itself (with a "/") when only one matches.
func (p *PathInput) Complete() tea.Cmd {
	if p.Absolute() && p.Pending() {
		p.completeOnList = true
		return nil
	}
	matches := p.Matches()
	if len(matches) == 0 {
		return nil
	}
	dir, base := p.split()
	ext := matches[0]
	if len(matches) == 1 && !p.IsFile(ext) {
		ext += "/"
	} else {
		for _, m := range matches[1:] {
			ext = commonPrefix(ext, m)
		}
	}
	if len(ext) <= len(base) && len(matches) > 1 {
		return nil
	}
	return p.SetValue(dir + ext)
}

func commonPrefix(a, b string) string {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return a[:i]
		}
	}
	return a[:n]
}

// Update edits the text and asks for a new listing when the folder changes.
func (p *PathInput) Update(msg tea.Msg) tea.Cmd {
	p.completeOnList = false
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	return tea.Batch(cmd, p.Sync())
}

// Focus gives the field the keyboard.
func (p *PathInput) Focus() { p.input.Focus() }

// Blur takes the keyboard from the field.
func (p *PathInput) Blur() { p.input.Blur() }

// SetWidth sets the field's width.
func (p *PathInput) SetWidth(w int) { p.input.Width = max(w-1, 1) }

// View draws the field.
func (p *PathInput) View() string { return p.input.View() }
