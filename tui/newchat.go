package tui

import (
	"strings"

	"github.com/acpmux/acpmux-tui/third_party/bubbles/cursor"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/acpmux/acpmux-tui/sessions"
)

// HarnessInfo is one harness offered by the new-chat dialog.
type HarnessInfo struct {
	Name, Transport string
	// Installed is set when the harness's command was found on PATH.
	Installed bool
	// Sandbox is whether a new chat on it is sandboxed unless asked
	// otherwise (its `sandbox`, else the config's), as the server says.
	Sandbox bool
}

// The fields of the new-chat dialog, in order.
const (
	fieldHarness = iota
	fieldProject
	fieldFolders
	fieldName
	fieldCreate
	fieldCancel
	numFields
	// fieldHost comes before fieldHarness, offered only when hosts are
	// configured.
	fieldHost = -1
)

var (
	keyFieldNext = key.NewBinding(key.WithKeys("down", "tab"), key.WithHelp("↓/tab", "next field"))
	keyFieldPrev = key.NewBinding(key.WithKeys("up", "shift+tab"), key.WithHelp("↑", "previous"))
	keyCycle     = key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←/→", "harness"))
	keyCycleHost = key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←/→", "host"))
	keyPick      = key.NewBinding(key.WithKeys("enter", " "), key.WithHelp("enter", "pick folders and files"))
	keyDropLast  = key.NewBinding(key.WithKeys("backspace", "delete"), key.WithHelp("backspace", "drop last"))
	keyCreate    = key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "create"))
)

// NewChatDialog asks for a new chat's harness, project folder (or none),
// folders and single files (through the folder picker) and name, then
// creates and opens it. A refusal of the folders or files shows inline and
// nothing is created.
type NewChatDialog struct {
	c         *Common
	owner     int
	lists     ChatLists // the folder picker's validator
	home      string
	harnesses []HarnessInfo
	hi        int
	project   *PathInput
	folders   []string
	files     []string
	name      textinput.Model
	field     int
	picker    *FolderPicker
	errText   string
	busy      bool
	// worktree is whether the chat gets a git worktree of its own (the
	// config's `worktree` default until the key turns it); toggled is set
	// once it has been, so a config read again leaves the choice alone.
	worktree, toggled bool
	// sandbox is whether the chat is sandboxed (the chosen harness's
	// default until the key turns it, following the harness chosen);
	// sandboxToggled is set once the key has turned it.
	sandbox, sandboxToggled bool
	create                  func(sessions.NewChat) tea.Cmd
	sw, sh, w               int
	// hosts are the hosts offered ("" the local one), nil when there is
	// no other; hostI is the one chosen, listsOn the validator of each.
	hosts   []string
	hostI   int
	listsOn func(host string) ChatLists
}

// SetHosts offers hosts ("" for the local one, first and the default): a
// row above the harness chooses with ←/→ where the chat is made, and
// listsOn gives the validator of the host chosen. nil offers none.
func (d *NewChatDialog) SetHosts(hosts []string, listsOn func(host string) ChatLists) {
	d.hosts, d.hostI, d.listsOn = hosts, 0, listsOn
	if len(hosts) > 0 {
		d.setField(fieldHost)
	}
}

// Host is the host chosen ("" for the local one).
func (d *NewChatDialog) Host() string {
	if d.hostI < len(d.hosts) {
		return d.hosts[d.hostI]
	}
	return ""
}

// hostLabel is how the dialog names a host.
func hostLabel(h string) string {
	if h == "" {
		return "local"
	}
	return h
}

// NewNewChatDialog returns the dialog; owner and owner+1 tag its listings;
// worktree is the config's `worktree` default; create makes the command
// that creates the chat.
func NewNewChatDialog(c *Common, owner int, lists ChatLists, home string, harnesses []HarnessInfo, defaultHarness string, worktree bool, create func(sessions.NewChat) tea.Cmd) *NewChatDialog {
	name := textinput.New()
	name.Prompt = ""
	name.Placeholder = "from the project folder, or the harness"
	name.PlaceholderStyle = c.Styles.Dim
	name.Cursor.SetMode(cursor.CursorStatic)
	project := NewPathInput(c, owner, home, "")
	project.input.Placeholder = "none: the chat gets an empty folder of its own"
	d := &NewChatDialog{c: c, owner: owner, lists: lists, home: home, harnesses: harnesses, project: project, name: name, worktree: worktree, create: create}
	for i, h := range harnesses {
		if h.Name == defaultHarness {
			d.hi = i
		}
	}
	d.followHarness()
	return d
}

// followHarness puts the chosen harness's sandbox default in effect,
// unless the key has turned the choice already.
func (d *NewChatDialog) followHarness() {
	if !d.sandboxToggled && d.hi < len(d.harnesses) {
		d.sandbox = d.harnesses[d.hi].Sandbox
	}
}

// ErrText returns the error shown inline, if any.
func (d *NewChatDialog) ErrText() string { return d.errText }

// Picker returns the folder picker while it is open.
func (d *NewChatDialog) Picker() *FolderPicker { return d.picker }

// SetSize sets the screen size.
func (d *NewChatDialog) SetSize(w, h int) {
	d.sw, d.sh, d.w = w, h, max(min(w-4, 84), minDialogW)
	d.project.SetWidth(d.w - 14)
	d.name.Width = max(d.w-15, 1)
	if d.picker != nil {
		d.picker.SetSize(w, h)
	}
}

func (d *NewChatDialog) setField(f int) {
	if len(d.hosts) > 0 {
		// The host's row is one more field, first.
		d.field = (f-fieldHost+numFields+1)%(numFields+1) + fieldHost
	} else {
		d.field = (f + numFields) % numFields
	}
	d.project.Blur()
	d.name.Blur()
	switch d.field {
	case fieldProject:
		d.project.Focus()
	case fieldName:
		d.name.Focus()
	}
}

// Update handles keys, the nested picker and the creation's result.
func (d *NewChatDialog) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case dirListedMsg:
		if mine, cmd := d.project.Listed(msg); mine {
			return cmd
		}
	case pickerDoneMsg:
		if d.picker != nil && msg.owner == d.picker.owner {
			d.folders, d.files, d.picker = msg.folders, msg.files, nil
		}
		return nil
	case pickerCancelledMsg:
		if d.picker != nil && msg.owner == d.picker.owner {
			d.picker = nil
		}
		return nil
	case chatCreatedMsg:
		d.busy = false
		if msg.meta == nil && msg.err != nil {
			d.errText = msg.err.Error()
			return nil
		}
		return closeDialog
	case tea.KeyMsg:
		if d.picker == nil {
			return d.key(msg)
		}
	}
	if d.picker != nil {
		return d.picker.Update(msg)
	}
	return nil
}

func (d *NewChatDialog) key(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, keyCancel):
		return closeDialog
	case key.Matches(msg, keyCreate):
		return d.submit()
	case key.Matches(msg, d.c.Keys.Worktree):
		d.worktree, d.toggled, d.errText = !d.worktree, true, ""
		return nil
	case key.Matches(msg, d.c.Keys.Sandbox):
		// On another host, whose config this side does not know, the
		// first turn asks for a sandbox: the safe way.
		d.sandbox = !d.sandbox || !d.sandboxKnown()
		d.sandboxToggled, d.errText = true, ""
		return nil
	case d.field == fieldProject && key.Matches(msg, keyComplete):
		return d.project.Complete()
	case key.Matches(msg, keyFieldNext):
		d.setField(d.field + 1)
		return nil
	case key.Matches(msg, keyFieldPrev):
		d.setField(d.field - 1)
		return nil
	}
	switch d.field {
	case fieldHost:
		if key.Matches(msg, keyCycle) && len(d.hosts) > 0 {
			d.hostI = cycled(d.hostI, len(d.hosts), msg)
			d.lists = d.listsOn(d.Host())
			d.project.SetReader(readerOf(d.lists))
			d.errText = ""
		} else if key.Matches(msg, keyEnterKey) {
			d.setField(d.field + 1)
		}
	case fieldHarness:
		if key.Matches(msg, keyCycle) && len(d.harnesses) > 0 {
			d.hi = cycled(d.hi, len(d.harnesses), msg)
			d.followHarness()
		} else if key.Matches(msg, keyEnterKey) {
			d.setField(d.field + 1)
		}
	case fieldProject:
		if key.Matches(msg, keyEnterKey) {
			d.setField(d.field + 1)
			return nil
		}
		d.errText = ""
		return d.project.Update(msg)
	case fieldFolders:
		switch {
		case key.Matches(msg, keyPick):
			start := d.project.Path()
			if start == "" {
				start = d.home
			}
			d.picker = NewFolderPicker(d.c, d.owner+1, "folders and files for the new chat", d.lists, "", d.project.Path(), d.home, start, d.folders, nil).WithFiles(d.files, nil)
			d.picker.SetSize(d.sw, d.sh)
			return d.picker.Init()
		case key.Matches(msg, keyDropLast) && len(d.files) > 0:
			d.files = d.files[:len(d.files)-1]
		case key.Matches(msg, keyDropLast) && len(d.folders) > 0:
			d.folders = d.folders[:len(d.folders)-1]
		}
	case fieldName:
		if key.Matches(msg, keyEnterKey) {
			d.setField(fieldCreate)
			return nil
		}
		var cmd tea.Cmd
		d.name, cmd = d.name.Update(msg)
		return cmd
	case fieldCreate:
		if key.Matches(msg, keyEnterKey) {
			return d.submit()
		}
	case fieldCancel:
		if key.Matches(msg, keyEnterKey) {
			return closeDialog
		}
	}
	if msg.Type == tea.KeyRunes && !msg.Alt && d.field != fieldName && d.field != fieldProject {
		// Text typed on a row that takes none is the chat's name: it
		// goes there, not nowhere.
		d.setField(fieldName)
		var cmd tea.Cmd
		d.name, cmd = d.name.Update(msg)
		return cmd
	}
	return nil
}

func (d *NewChatDialog) submit() tea.Cmd {
	if d.busy || len(d.harnesses) == 0 {
		return nil
	}
	d.busy, d.errText = true, ""
	// Untouched, the choice is the config's default, which the server
	// applies as `new` does: a project outside a git repository then just
	// gets no worktree. Turned by the key, it is asked for outright.
	var wt *bool
	if d.toggled {
		v := d.worktree
		wt = &v
	}
	// The sandbox likewise: untouched, the server's config decides (the
	// harness's `sandbox`, else `sandbox`), which is what the line shows
	// for this machine; another host's config decides there.
	var sb *bool
	if d.sandboxToggled {
		v := d.sandbox
		sb = &v
	}
	return d.create(sessions.NewChat{
		Harness:               d.harnesses[d.hi].Name,
		Cwd:                   d.project.Path(),
		AdditionalDirectories: append([]string(nil), d.folders...),
		AdditionalFiles:       append([]string(nil), d.files...),
		Name:                  strings.TrimSpace(d.name.Value()),
		Worktree:              wt,
		Sandbox:               sb,
	})
}

// Sandbox reports whether the chat is to be sandboxed, and whether that
// is known here: untouched, another host's config decides it.
func (d *NewChatDialog) Sandbox() (on, known bool) { return d.sandbox, d.sandboxKnown() }

// sandboxKnown reports whether this side knows the sandbox choice: the
// key has turned it, or the chat is made on this machine, whose server's
// config the dialog follows.
func (d *NewChatDialog) sandboxKnown() bool { return d.sandboxToggled || d.Host() == "" }

// Worktree reports whether the chat is to get a git worktree of its own.
func (d *NewChatDialog) Worktree() bool { return d.worktree }

// SetWorktreeDefault puts the config's `worktree` default (read again)
// in effect, unless the key has turned the choice already.
func (d *NewChatDialog) SetWorktreeDefault(v bool) {
	if !d.toggled {
		d.worktree = v
	}
}

// ShortHelp returns the keys of the focused field.
func (d *NewChatDialog) ShortHelp() []key.Binding {
	if d.picker != nil {
		return d.picker.ShortHelp()
	}
	switch d.field {
	case fieldHost:
		return []key.Binding{keyCycleHost, keyFieldNext, keyCreate, keyCancel}
	case fieldHarness:
		return []key.Binding{keyCycle, keyFieldNext, d.c.Keys.Worktree, d.c.Keys.Sandbox, keyCreate, keyCancel}
	case fieldProject:
		return []key.Binding{keyComplete, keyFieldNext, d.c.Keys.Worktree, d.c.Keys.Sandbox, keyCreate, keyCancel}
	case fieldFolders:
		return []key.Binding{keyPick, keyDropLast, keyFieldNext, d.c.Keys.Worktree, d.c.Keys.Sandbox, keyCreate, keyCancel}
	}
	return []key.Binding{keyFieldNext, keyFieldPrev, d.c.Keys.Worktree, d.c.Keys.Sandbox, keyCreate, keyCancel}
}

// View draws the form, or the picker while it is open.
func (d *NewChatDialog) View() []string {
	if d.picker != nil {
		return d.picker.View()
	}
	st := d.c.Styles
	iw := d.w - 4
	label := func(f int, text string) string {
		if f == d.field {
			return st.Accent.Render("› " + fitPlain(text, 10))
		}
		return st.Dim.Render("  " + fitPlain(text, 10))
	}
	lines := []string{""}
	h := "(none)"
	note := ""
	if len(d.harnesses) > 0 {
		hi := d.harnesses[d.hi]
		h = "‹ " + hi.Name + " ›"
		note = hi.Transport
		if !hi.Installed {
			note += " · not found on PATH"
		}
	}
	if len(d.hosts) > 0 {
		note := "folders are checked there"
		if d.Host() == "" {
			note = "this machine"
		}
		lines = append(lines, label(fieldHost, "host")+st.Bold.Render("‹ "+hostLabel(d.Host())+" ›")+"  "+st.Dim.Render(note))
	}
	lines = append(lines, label(fieldHarness, "harness")+st.Bold.Render(h)+"  "+st.Dim.Render(note))
	lines = append(lines, label(fieldProject, "project")+d.project.View())
	folders := st.Dim.Render("none · enter picks some")
	if len(d.folders) > 0 {
		folders = truncPlain(strings.Join(d.folders, " · "), iw-12)
	}
	lines = append(lines, label(fieldFolders, "folders")+folders)
	if len(d.files) > 0 {
		lines = append(lines, st.Dim.Render("  "+fitPlain("files", 10))+truncPlain(strings.Join(d.files, " · "), iw-12))
	}
	lines = append(lines, label(fieldName, "name")+d.name.View())
	lines = append(lines, st.Dim.Render("  "+fitPlain("worktree", 10))+worktreeChoice(st, d.c.Keys.Worktree, d.worktree, iw-12))
	decider := ""
	if !d.sandboxKnown() {
		decider = d.Host()
	}
	lines = append(lines, st.Dim.Render("  "+fitPlain("sandbox", 10))+sandboxChoice(st, d.c.Keys.Sandbox, d.sandbox, decider, iw-12), "")
	if d.errText != "" {
		lines = append(lines, errorLines(st, d.errText, iw)...)
		lines = append(lines, "")
	} else if d.busy {
		lines = append(lines, st.Dim.Render("creating…"), "")
	}
	create, cancel := st.Button.Render("[ create ]"), st.Button.Render("[ cancel ]")
	if d.field == fieldCreate {
		create = st.ButtonFocused.Render("[ create ]")
	}
	if d.field == fieldCancel {
		cancel = st.ButtonFocused.Render("[ cancel ]")
	}
	lines = append(lines, create+" "+cancel)
	for i, l := range lines {
		lines[i] = " " + l
	}
	return st.Box("new chat", lines, d.w, len(lines)+2, true)
}

// SetHarnesses replaces the harnesses offered (the config was read
// again): the one chosen stays chosen while it is offered, else the
// default is.
func (d *NewChatDialog) SetHarnesses(list []HarnessInfo, defaultHarness string) {
	chosen := ""
	if d.hi < len(d.harnesses) {
		chosen = d.harnesses[d.hi].Name
	}
	d.harnesses, d.hi = list, 0
	for i, h := range list {
		if h.Name == defaultHarness {
			d.hi = i
		}
	}
	for i, h := range list {
		if h.Name == chosen {
			d.hi = i
		}
	}
	d.followHarness()
}

// worktreeChoice is the worktree line of the new-chat and fork dialogs:
// the choice and the key that turns it, fitted to w.
func worktreeChoice(st *Styles, k key.Binding, on bool, w int) string {
	hint := "  " + k.Help().Key + " turns it on"
	if !on {
		return st.Bold.Render("no") + st.Dim.Render(truncPlain(hint, max(w-2, 0)))
	}
	hint = " · a worktree of the project's repository  " + k.Help().Key + " turns it off"
	return st.Bold.Render("yes") + st.Dim.Render(truncPlain(hint, max(w-3, 0)))
}

// sandboxChoice is the sandbox line of the new-chat and fork dialogs: the
// choice and the key that turns it, fitted to w. host, when not "", is
// the other host whose config decides a choice left untouched.
func sandboxChoice(st *Styles, k key.Binding, on bool, host string, w int) string {
	value, hint := "no", "  "+k.Help().Key+" turns it on"
	switch {
	case host != "":
		value = "as " + host + "'s config"
	case on:
		value, hint = "yes", " · writes only in its folders  "+k.Help().Key+" turns it off"
	}
	value = truncPlain(value, w)
	return st.Bold.Render(value) + st.Dim.Render(truncPlain(hint, max(w-ansi.StringWidth(value), 0)))
}

// cycled is index i of n choices moved one step by a cycle key: back for
// left, on otherwise, round at either end.
func cycled(i, n int, msg tea.KeyMsg) int {
	step := 1
	if key.Matches(msg, keyLeft) {
		step = -1
	}
	return (i + step + n) % n
}
