package tui

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/acpmux/acpmux-tui/sessions"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// Where the keyboard is in the folder picker.
const (
	pickInput = iota
	pickList
	pickAccept
	pickCancel
)

// maxErrLines bounds the refusal lines shown in a dialog.
const maxErrLines = 6

// Messages of the folder picker.
type (
	// pickerValidatedMsg brings the validator's answer for a typed or
	// browsed folder or file (or, from accept, the whole list).
	pickerValidatedMsg struct {
		owner   int
		canon   []string
		err     error
		browsed bool
		// files is set when the pick was of a file (the picker picked
		// files then).
		files bool
		// have is the chat's own entry for a folder or file it has
		// already: the pick toggles taking it out.
		have string
	}
	// pickerStoredMsg reports the picker's folders and files added to its
	// chat, and those taken out.
	pickerStoredMsg struct {
		owner                    int
		meta                     *sessions.Meta
		added, removed           int
		filesAdded, filesRemoved int
		err                      error
	}
	// pickerDoneMsg hands the accepted folders and files to the dialog
	// that opened the picker (the new-chat dialog).
	pickerDoneMsg struct {
		owner   int
		folders []string
		files   []string
	}
	// pickerCancelledMsg closes a picker opened by another dialog.
	pickerCancelledMsg struct{ owner int }
	// foldersAddedMsg tells the root model a chat has new folders or
	// files, or fewer.
	foldersAddedMsg struct {
		id                       string
		added, removed           int
		filesAdded, filesRemoved int
	}
)

var (
	keyAccept   = key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "accept"))
	keyCancel   = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel"))
	keyComplete = key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete"))
	keyAddTyped = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "add typed folder"))
	keyAddFile  = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "add typed file"))
	keyToList   = key.NewBinding(key.WithKeys("down"), key.WithHelp("↓", "browse"))
	keyToggle   = key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "select / take out"))
	keyOpenDir  = key.NewBinding(key.WithKeys("right", "enter"), key.WithHelp("→/enter", "open"))
	keyParent   = key.NewBinding(key.WithKeys("left", "backspace"), key.WithHelp("←", "parent"))
	keyNext     = key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next"))
	keyPrev     = key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "back"))
	keyPress    = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "press"))
	keyUp       = key.NewBinding(key.WithKeys("up"))
	keyEscape   = key.NewBinding(key.WithKeys("esc"))
	keyEnterKey = key.NewBinding(key.WithKeys("enter"))
	keyDown     = key.NewBinding(key.WithKeys("down"))
	keyLeft     = key.NewBinding(key.WithKeys("left"))
	keyRight    = key.NewBinding(key.WithKeys("right"))
)

// FolderPicker browses the file system from the keyboard, completes typed
// paths, takes several folders and files at once, and feeds them to the
// shared validator, showing its refusals inline. It lists a folder's
// subfolders and then its files; the PickFiles key toggles whether a pick
// adds folders (the default) or single files. A folder or file the chat
// has already is marked in the list, and space on it takes it out
// (toggle). Nothing is stored until accept: then the folders are added to
// the chat (chatID set) as add-dir adds them, those taken out removed as
// rm-dir removes them, the files set through the server (setFiles), or
// both lists are handed back to the dialog that opened the picker.
type FolderPicker struct {
	c      *Common
	owner  int
	title  string
	chatID string    // add to this chat on accept; "" hands the lists back
	cwd    string    // the chat's own folder, refused as a folder
	lists  ChatLists // the server's validator, and the chat's lists stored on accept
	path   *PathInput
	focus  int
	cur    int
	// pickFiles is set while a pick adds single files; foldersOnly never
	// lets it be (the import's roots are folders).
	pickFiles, foldersOnly bool
	chosen                 []string
	already                []string // the chat's folders now, marked in the list
	drop                   []string // folders of the chat to take out on accept
	// The same three of single files.
	chosenFiles, alreadyFiles, dropFiles []string
	errText                              string
	busy                                 bool
	w, h                                 int
}

// NewFolderPicker returns a picker. start is the folder it opens at;
// chosen are folders already picked (for the new-chat dialog), already the
// chat's folders now. WithFiles gives it the files.
func NewFolderPicker(c *Common, owner int, title string, lists ChatLists, chatID, cwd, home, start string, chosen, already []string) *FolderPicker {
	if start != "" && !strings.HasSuffix(start, "/") {
		start += "/"
	}
	p := &FolderPicker{c: c, owner: owner, title: title, chatID: chatID, cwd: cwd, lists: lists,
		path: NewPathInput(c, owner, home, start), chosen: append([]string(nil), chosen...), already: already}
	p.path.WithFiles()
	// A remote chat's folders are browsed on its host.
	p.path.SetReader(readerOf(lists))
	p.path.Focus()
	return p
}

// WithFiles gives the picker the single files: chosen already picked (for
// the new-chat dialog), already the chat's files now.
func (p *FolderPicker) WithFiles(chosen, already []string) *FolderPicker {
	p.chosenFiles, p.alreadyFiles = append([]string(nil), chosen...), already
	return p
}

// FoldersOnly makes the picker offer folders alone: no files in its
// listing, no key that picks files (the import's roots).
func (p *FolderPicker) FoldersOnly() *FolderPicker {
	p.foldersOnly = true
	p.path.withFiles = false
	return p
}

// Init asks for the first listing.
func (p *FolderPicker) Init() tea.Cmd { return p.path.Sync() }

// Chosen returns the folders picked so far.
func (p *FolderPicker) Chosen() []string { return p.chosen }

// ChosenFiles returns the files picked so far.
func (p *FolderPicker) ChosenFiles() []string { return p.chosenFiles }

// PicksFiles reports whether a pick adds files now, not folders.
func (p *FolderPicker) PicksFiles() bool { return p.pickFiles }

// Dropped returns the chat's folders marked to be taken out.
func (p *FolderPicker) Dropped() []string { return p.drop }

// DroppedFiles returns the chat's files marked to be taken out.
func (p *FolderPicker) DroppedFiles() []string { return p.dropFiles }

// ErrText returns the refusal or error shown inline, if any.
func (p *FolderPicker) ErrText() string { return p.errText }

// SetSize sets the size of the screen the picker is drawn on.
func (p *FolderPicker) SetSize(w, h int) {
	p.w, p.h = max(min(w-4, 96), minDialogW), max(min(h-4, 22), 12)
	p.path.SetWidth(p.w - 2 - 9)
}

func (p *FolderPicker) setFocus(f int) {
	p.focus = f
	if f == pickInput {
		p.path.Focus()
	} else {
		p.path.Blur()
	}
}

// Update handles keys and the picker's own messages.
func (p *FolderPicker) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case dirListedMsg:
		mine, cmd := p.path.Listed(msg)
		if mine {
			p.cur = min(p.cur, max(len(p.path.Matches())-1, 0))
		}
		return cmd
	case pickerValidatedMsg:
		if msg.owner != p.owner {
			return nil
		}
		p.busy = false
		if msg.err != nil {
			p.errText = msg.err.Error()
			return nil
		}
		p.errText = ""
		if msg.have != "" {
			p.toggleDrop(msg.have, msg.files)
			return nil
		}
		for _, c := range msg.canon {
			p.choose(c, msg.files)
		}
		if len(msg.canon) == 1 && !msg.browsed {
			return p.path.SetValue(filepath.Dir(msg.canon[0]) + "/")
		}
		return nil
	case pickerStoredMsg:
		if msg.owner != p.owner {
			return nil
		}
		return p.stored(msg)
	case tea.KeyMsg:
		return p.key(msg)
	}
	return nil
}

// stored takes the answer of accept: the picker closes when all of it was
// stored; on a refusal it stays open on what was refused, and the chat is
// told of what was stored before it.
func (p *FolderPicker) stored(msg pickerStoredMsg) tea.Cmd {
	p.busy = false
	id := p.chatID
	done := foldersAddedMsg{id: id, added: msg.added, removed: msg.removed, filesAdded: msg.filesAdded, filesRemoved: msg.filesRemoved}
	if msg.err == nil {
		return tea.Batch(closeDialog, func() tea.Msg { return done })
	}
	p.errText = msg.err.Error()
	if msg.added == 0 && msg.removed == 0 {
		return nil
	}
	// The folders are stored: the chat is told, and the picker stays
	// open on the refused ones.
	for _, d := range p.drop {
		if i := slices.Index(p.already, d); i >= 0 {
			p.already = slices.Delete(slices.Clone(p.already), i, i+1)
		}
	}
	p.drop = nil
	if msg.added > 0 {
		p.already = append(slices.Clone(p.already), p.chosen...)
		p.chosen = nil
	}
	return func() tea.Msg { return done }
}

func (p *FolderPicker) key(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, keyCancel):
		if p.chatID != "" {
			return closeDialog
		}
		owner := p.owner
		return func() tea.Msg { return pickerCancelledMsg{owner} }
	case key.Matches(msg, keyAccept):
		return p.accept()
	case key.Matches(msg, p.c.Keys.PickFiles) && !p.foldersOnly:
		p.pickFiles, p.errText = !p.pickFiles, ""
		return nil
	}
	matches := p.path.Matches()
	switch p.focus {
	case pickInput:
		switch {
		case key.Matches(msg, keyComplete):
			return p.path.Complete()
		case key.Matches(msg, keyAddTyped):
			return p.addTyped()
		case key.Matches(msg, keyToList):
			if len(matches) > 0 {
				p.setFocus(pickList)
			}
			return nil
		case key.Matches(msg, keyPrev):
			p.setFocus(pickCancel)
			return nil
		}
		p.errText = ""
		return p.path.Update(msg)
	case pickList:
		switch {
		case key.Matches(msg, keyUp):
			if p.cur == 0 {
				p.setFocus(pickInput)
			} else {
				p.cur--
			}
		case key.Matches(msg, keyDown):
			p.cur = min(p.cur+1, max(len(matches)-1, 0))
		case key.Matches(msg, keyToggle):
			if p.cur < len(matches) {
				return p.toggleEntry(matches[p.cur])
			}
		case key.Matches(msg, keyOpenDir):
			if p.cur < len(matches) {
				name := matches[p.cur]
				if p.path.IsFile(name) {
					// A file opens nothing: enter picks it, as space does.
					if key.Matches(msg, keyEnterKey) {
						return p.toggleEntry(name)
					}
					return nil
				}
				p.cur = 0
				return p.path.SetValue(filepath.Join(p.path.Folder(), name) + "/")
			}
		case key.Matches(msg, keyParent):
			if dir := p.path.Folder(); dir != "" && dir != "/" {
				p.cur = 0
				return p.path.SetValue(filepath.Dir(filepath.Clean(dir)) + "/")
			}
		case key.Matches(msg, keyNext):
			p.setFocus(pickAccept)
		case key.Matches(msg, keyPrev):
			p.setFocus(pickInput)
		}
	default: // the buttons
		switch {
		case key.Matches(msg, keyPress):
			if p.focus == pickAccept {
				return p.accept()
			}
			return p.key(tea.KeyMsg{Type: tea.KeyEsc})
		case key.Matches(msg, keyLeft), key.Matches(msg, keyRight):
			p.focus = pickAccept + pickCancel - p.focus
		case key.Matches(msg, keyNext):
			if p.focus == pickAccept {
				p.focus = pickCancel
			} else {
				p.setFocus(pickInput)
			}
		case key.Matches(msg, keyPrev):
			if p.focus == pickCancel {
				p.focus = pickAccept
			} else {
				p.setFocus(pickList)
			}
		}
	}
	return nil
}

// toggleEntry is space on an entry of the list: one the chat has is
// marked to be taken out (or kept again), one picked is unpicked, and any
// other goes to the validator as what a pick adds now (a folder or a file).
func (p *FolderPicker) toggleEntry(name string) tea.Cmd {
	full := filepath.Join(p.path.Folder(), name)
	isFile := p.path.IsFile(name)
	already, chosen := p.already, &p.chosen
	if isFile {
		already, chosen = p.alreadyFiles, &p.chosenFiles
	}
	if p.chatID != "" && slices.Contains(already, full) {
		p.errText = ""
		p.toggleDrop(full, isFile)
		return nil
	}
	if i := slices.Index(*chosen, full); i >= 0 {
		p.errText = ""
		*chosen = slices.Delete(*chosen, i, i+1)
		return nil
	}
	return p.check(full, true)
}

// toggleDrop marks one of the chat's folders or files to be taken out on
// accept, or keeps it again.
func (p *FolderPicker) toggleDrop(have string, file bool) {
	drop := &p.drop
	if file {
		drop = &p.dropFiles
	}
	if i := slices.Index(*drop, have); i >= 0 {
		*drop = slices.Delete(*drop, i, i+1)
	} else {
		*drop = append(*drop, have)
	}
}

func (p *FolderPicker) choose(path string, file bool) {
	chosen := &p.chosen
	if file {
		chosen = &p.chosenFiles
	}
	if !slices.Contains(*chosen, path) {
		*chosen = append(*chosen, path)
	}
}

// addTyped checks the typed folder or file (in a command), as a browsed
// one is.
func (p *FolderPicker) addTyped() tea.Cmd {
	typed := p.path.Path()
	if typed == "" {
		what := "folder"
		if p.pickFiles {
			what = "file"
		}
		p.errText = "type a " + what + ", or browse with ↓ and select with space"
		return nil
	}
	return p.check(typed, false)
}

// ShortHelp returns the bindings where the keyboard is.
func (p *FolderPicker) ShortHelp() []key.Binding {
	mode := "pick files"
	addTyped := keyAddTyped
	if p.pickFiles {
		mode, addTyped = "pick folders", keyAddFile
	}
	toggle := key.NewBinding(key.WithKeys(p.c.Keys.PickFiles.Keys()...), key.WithHelp(p.c.Keys.PickFiles.Help().Key, mode))
	toggle.SetEnabled(!p.foldersOnly)
	switch p.focus {
	case pickInput:
		return []key.Binding{keyComplete, addTyped, keyToList, toggle, keyAccept, keyCancel}
	case pickList:
		return []key.Binding{keyToggle, keyOpenDir, keyParent, toggle, keyNext, keyAccept, keyCancel}
	}
	return []key.Binding{keyNext, keyPress, toggle, keyAccept, keyCancel}
}

// pickedNote says in the status line what the picker stored: "1 folder
// added, 2 taken out", "1 file added".
func pickedNote(msg foldersAddedMsg) string {
	var parts []string
	files := msg.filesAdded > 0 || msg.filesRemoved > 0
	if msg.added > 0 || msg.removed > 0 || !files {
		note := plural(msg.added, "folder") + " added"
		switch {
		case msg.removed > 0 && msg.added == 0:
			note = plural(msg.removed, "folder") + " taken out"
		case msg.removed > 0:
			note += ", " + strconv.Itoa(msg.removed) + " taken out"
		}
		parts = append(parts, note)
	}
	switch {
	case msg.filesAdded > 0 && msg.filesRemoved > 0:
		parts = append(parts, plural(msg.filesAdded, "file")+" added, "+strconv.Itoa(msg.filesRemoved)+" taken out")
	case msg.filesAdded > 0:
		parts = append(parts, plural(msg.filesAdded, "file")+" added")
	case msg.filesRemoved > 0:
		parts = append(parts, plural(msg.filesRemoved, "file")+" taken out")
	}
	return strings.Join(parts, "; ")
}
