package tui

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acpmux/acpmux-tui/sessions"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
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
	// browsed folder (or, from accept, the whole list).
	pickerValidatedMsg struct {
		owner   int
		canon   []string
		err     error
		browsed bool
		// have is the chat's own entry for a folder it has already: the
		// pick toggles taking it out.
		have string
	}
	// pickerStoredMsg reports the picker's folders added to its chat,
	// and those taken out.
	pickerStoredMsg struct {
		owner          int
		meta           *sessions.Meta
		added, removed int
		err            error
	}
	// pickerDoneMsg hands the accepted folders to the dialog that opened
	// the picker (the new-chat dialog).
	pickerDoneMsg struct {
		owner   int
		folders []string
	}
	// pickerCancelledMsg closes a picker opened by another dialog.
	pickerCancelledMsg struct{ owner int }
	// foldersAddedMsg tells the root model a chat has new folders, or
	// fewer.
	foldersAddedMsg struct {
		id             string
		added, removed int
	}
)

var (
	keyAccept   = key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "accept"))
	keyCancel   = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel"))
	keyComplete = key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete"))
	keyAddTyped = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "add typed folder"))
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
// paths, takes several folders at once, and feeds them to the shared
// validator, showing its refusals inline. A folder the chat has already is
// marked in the list, and space on it takes it out (toggle). Nothing is
// stored until accept: then the folders are added to the chat (chatID set),
// those taken out removed as rm-dir removes them, or the folders are handed
// back to the dialog that opened the picker.
type FolderPicker struct {
	c       *Common
	owner   int
	title   string
	chatID  string // add to this chat on accept; "" hands the folders back
	cwd     string // the chat's own folder, refused as a folder
	store   *sessions.Store
	path    *PathInput
	focus   int
	cur     int
	chosen  []string
	already []string // the chat's folders now, marked in the list
	drop    []string // folders of the chat to take out on accept
	errText string
	busy    bool
	w, h    int
}

// NewFolderPicker returns a picker. start is the folder it opens at;
// chosen are folders already picked (for the new-chat dialog), already the
// chat's folders now.
func NewFolderPicker(c *Common, owner int, title string, store *sessions.Store, chatID, cwd, home, start string, chosen, already []string) *FolderPicker {
	if start != "" && !strings.HasSuffix(start, "/") {
		start += "/"
	}
	p := &FolderPicker{c: c, owner: owner, title: title, chatID: chatID, cwd: cwd, store: store,
		path: NewPathInput(c, owner, home, start), chosen: append([]string(nil), chosen...), already: already}
	p.path.Focus()
	return p
}

// Init asks for the first listing.
func (p *FolderPicker) Init() tea.Cmd { return p.path.Sync() }

// Chosen returns the folders picked so far.
func (p *FolderPicker) Chosen() []string { return p.chosen }

// Dropped returns the chat's folders marked to be taken out.
func (p *FolderPicker) Dropped() []string { return p.drop }

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
			p.toggleDrop(msg.have)
			return nil
		}
		for _, c := range msg.canon {
			p.choose(c)
		}
		if len(msg.canon) == 1 && !msg.browsed {
			return p.path.SetValue(filepath.Dir(msg.canon[0]) + "/")
		}
		return nil
	case pickerStoredMsg:
		if msg.owner != p.owner {
			return nil
		}
		p.busy = false
		if msg.err != nil {
			p.errText = msg.err.Error()
			if msg.removed == 0 {
				return nil
			}
			// The folders taken out are stored: the chat is told, and
			// the picker stays open on the refused ones.
			for _, d := range p.drop {
				if i := slices.Index(p.already, d); i >= 0 {
					p.already = slices.Delete(slices.Clone(p.already), i, i+1)
				}
			}
			id, removed := p.chatID, msg.removed
			p.drop = nil
			return func() tea.Msg { return foldersAddedMsg{id: id, removed: removed} }
		}
		id, added, removed := p.chatID, msg.added, msg.removed
		return tea.Batch(closeDialog, func() tea.Msg { return foldersAddedMsg{id, added, removed} })
	case tea.KeyMsg:
		return p.key(msg)
	}
	return nil
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
				dir := filepath.Join(p.path.Folder(), matches[p.cur])
				if p.chatID != "" && slices.Contains(p.already, dir) {
					p.errText = ""
					p.toggleDrop(dir)
					return nil
				}
				if i := slices.Index(p.chosen, dir); i >= 0 {
					p.errText = ""
					p.chosen = slices.Delete(p.chosen, i, i+1)
					return nil
				}
				return p.check(dir, true)
			}
		case key.Matches(msg, keyOpenDir):
			if p.cur < len(matches) {
				dir := filepath.Join(p.path.Folder(), matches[p.cur])
				p.cur = 0
				return p.path.SetValue(dir + "/")
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

// toggleDrop marks one of the chat's folders to be taken out on accept, or
// keeps it again.
func (p *FolderPicker) toggleDrop(have string) {
	if i := slices.Index(p.drop, have); i >= 0 {
		p.drop = slices.Delete(p.drop, i, i+1)
	} else {
		p.drop = append(p.drop, have)
	}
}

func (p *FolderPicker) choose(dir string) {
	if !slices.Contains(p.chosen, dir) {
		p.chosen = append(p.chosen, dir)
	}
}

// addTyped checks the typed folder (in a command), as a browsed one is.
func (p *FolderPicker) addTyped() tea.Cmd {
	typed := p.path.Path()
	if typed == "" {
		p.errText = "type a folder, or browse with ↓ and select with space"
		return nil
	}
	return p.check(typed, false)
}

// check runs one picked folder, typed or browsed, through checkPicked in a
// command; the answer selects it or shows the refusal inline.
func (p *FolderPicker) check(dir string, browsed bool) tea.Cmd {
	p.busy = true
	owner, cwd, already, takeOut, store := p.owner, p.cwd, slices.Clone(p.already), p.chatID != "", p.store
	return func() tea.Msg {
		canon, have, err := checkPicked(store, cwd, already, dir)
		if have != "" && takeOut {
			return pickerValidatedMsg{owner: owner, browsed: browsed, have: have}
		}
		return pickerValidatedMsg{owner: owner, canon: canon, err: err, browsed: browsed}
	}
}

// checkPicked is the picker's one check of a folder the user picked, the
// same whether it was typed or browsed: the shared validator (which refuses
// the chat's own folder, a relative path, a file, a folder that does not
// exist), then, for a folder the chat already has (compared in canonical
// form so a symlink to it is caught too), the chat's own entry for it in
// have, and a refusal in the validator's own form for a picker that only
// adds. With the store known, the validator is the store's, which also
// refuses the agent home and anything inside it.
func checkPicked(store *sessions.Store, cwd string, already []string, dir string) (canon []string, have string, err error) {
	canon, err = validateIn(store, cwd, []string{dir})
	if err != nil {
		return nil, "", err
	}
	for _, h := range already {
		c, err := sessions.Canonical(h)
		if h == canon[0] || (err == nil && c == canon[0]) {
			return nil, h, &sessions.FolderError{Count: 1, Problems: []sessions.FolderProblem{
				{Index: 0, Path: dir, Reason: "already a folder of this chat"},
			}}
		}
	}
	return canon, "", nil
}

// validateIn is the shared folder validator: the store's when there is
// one (it knows the agent home), else the package's.
func validateIn(store *sessions.Store, cwd string, dirs []string) ([]string, error) {
	if store != nil {
		return store.ValidateFolders(cwd, dirs)
	}
	return sessions.ValidateFolders(cwd, dirs)
}

// accept stores the chosen folders in the chat, or validates them and hands
// them back; a refusal stays inline and nothing is stored.
func (p *FolderPicker) accept() tea.Cmd {
	if len(p.chosen) == 0 && len(p.drop) == 0 && p.chatID != "" {
		p.errText = "nothing selected: type a folder and press enter, or select with space"
		return nil
	}
	p.busy = true
	owner, cwd, chosen, st := p.owner, p.cwd, append([]string(nil), p.chosen...), p.store
	if p.chatID == "" {
		return func() tea.Msg {
			canon, err := validateIn(st, cwd, chosen)
			if err != nil {
				return pickerValidatedMsg{owner: owner, err: err}
			}
			return pickerDoneMsg{owner, canon}
		}
	}
	store, id, drop := p.store, p.chatID, slices.Clone(p.drop)
	return func() tea.Msg {
		return storePicked(store, id, cwd, chosen, drop, owner)
	}
}

// storePicked stores the picker's answer for chat id: the folders taken
// out go as rm-dir takes them out (Store.RemoveFolders), then those chosen
// are added as add-dir adds them. The chosen ones are checked first, so a
// refusal stores nothing.
func storePicked(store *sessions.Store, id, cwd string, chosen, drop []string, owner int) pickerStoredMsg {
	if len(chosen) > 0 {
		if _, err := validateIn(store, cwd, chosen); err != nil {
			return pickerStoredMsg{owner: owner, err: err}
		}
	}
	before, err := store.Load(id)
	if err != nil {
		return pickerStoredMsg{owner: owner, err: err}
	}
	m, removed := before, 0
	if len(drop) > 0 {
		if m, err = store.RemoveFolders(id, drop); err != nil {
			return pickerStoredMsg{owner: owner, err: err}
		}
		removed = len(before.AdditionalDirectories) - len(m.AdditionalDirectories)
	}
	if len(chosen) > 0 {
		kept := len(m.AdditionalDirectories)
		if m, err = store.AddFolders(id, chosen); err != nil {
			if removed > 0 {
				err = fmt.Errorf("%s taken out, but none added: %w", plural(removed, "folder"), err)
				return pickerStoredMsg{owner: owner, removed: removed, err: err}
			}
			return pickerStoredMsg{owner: owner, err: err}
		}
		return pickerStoredMsg{owner: owner, meta: m, added: len(m.AdditionalDirectories) - kept, removed: removed}
	}
	return pickerStoredMsg{owner: owner, meta: m, removed: removed}
}

// ShortHelp returns the bindings where the keyboard is.
func (p *FolderPicker) ShortHelp() []key.Binding {
	switch p.focus {
	case pickInput:
		return []key.Binding{keyComplete, keyAddTyped, keyToList, keyAccept, keyCancel}
	case pickList:
		return []key.Binding{keyToggle, keyOpenDir, keyParent, keyNext, keyAccept, keyCancel}
	}
	return []key.Binding{keyNext, keyPress, keyAccept, keyCancel}
}

// View draws the picker's box.
func (p *FolderPicker) View() []string {
	st := p.c.Styles
	iw := p.w - 4 // inner width with a column of padding each side
	var top, bottom []string
	top = append(top, st.Dim.Render("folder   ")+p.path.View())
	top = append(top, st.Dim.Render(strings.Repeat("─", iw)))

	chosen := st.Dim.Render("none yet")
	if len(p.chosen) > 0 {
		chosen = truncPlain(strings.Join(p.chosen, " · "), iw-9)
	}
	bottom = append(bottom, st.Dim.Render(strings.Repeat("─", iw)))
	bottom = append(bottom, st.Dim.Render("selected ")+chosen)
	if len(p.drop) > 0 {
		bottom = append(bottom, st.Dim.Render("take out ")+st.Warn.Render(truncPlain(strings.Join(p.drop, " · "), iw-9)))
	}
	if p.errText != "" {
		bottom = append(bottom, errorLines(st, p.errText, iw)...)
	} else if p.busy {
		bottom = append(bottom, st.Dim.Render("checking…"))
	}
	accept, cancel := st.Button.Render("[ accept ]"), st.Button.Render("[ cancel ]")
	if p.focus == pickAccept {
		accept = st.ButtonFocused.Render("[ accept ]")
	}
	if p.focus == pickCancel {
		cancel = st.ButtonFocused.Render("[ cancel ]")
	}
	bottom = append(bottom, accept+" "+cancel)

	listH := max(p.h-2-len(top)-len(bottom), 1)
	list := p.listLines(iw, listH)
	for len(list) < listH {
		list = append(list, "")
	}
	lines := make([]string, 0, p.h)
	for _, l := range append(append(top, list...), bottom...) {
		lines = append(lines, " "+l)
	}
	return st.Box(p.title, lines, p.w, len(lines)+2, true)
}

// listLines draws the subfolders of the typed folder, a window of n rows
// around the highlighted one.
func (p *FolderPicker) listLines(w, n int) []string {
	st := p.c.Styles
	matches := p.path.Matches()
	var out []string
	switch {
	case !p.path.Absolute():
		return []string{st.Dim.Render("type an absolute path (starting with / or ~) to browse")}
	case p.path.Pending():
		return []string{st.Dim.Render("reading…")}
	case p.path.ListErr() != nil:
		return []string{st.Warn.Render(truncPlain("cannot list: "+p.path.ListErr().Error(), w))}
	case len(matches) == 0:
		return []string{st.Dim.Render("no subfolders here")}
	}
	off := 0
	if p.cur >= n {
		off = p.cur - n + 1
	}
	for i := off; i < len(matches) && i < off+n; i++ {
		full := filepath.Join(p.path.Folder(), matches[i])
		box, note := "[ ]", ""
		switch {
		case slices.Contains(p.drop, full):
			box, note = "[−]", "  taken out on accept"
		case slices.Contains(p.already, full) && p.chatID != "":
			box, note = "[✓]", "  already a folder · space takes it out"
		case slices.Contains(p.already, full):
			box, note = "[✓]", "  already a folder"
		case p.cwd != "" && full == filepath.Clean(p.cwd):
			box, note = "[-]", "  the chat's own folder"
		case slices.Contains(p.chosen, full):
			box = "[x]"
		}
		text := box + " " + matches[i] + "/"
		if i == p.cur && p.focus == pickList {
			out = append(out, st.SelectedName.Render("› "+fitPlain(text+note, w-2)))
		} else {
			out = append(out, "  "+truncPlain(text, w-2)+st.Dim.Render(truncPlain(note, max(w-2-ansi.StringWidth(text), 0))))
		}
	}
	return out
}
