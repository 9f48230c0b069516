package tui

import (
	"fmt"
	"path/filepath"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// keyInterrupt quits from the sidebar whatever q is bound to.
var keyInterrupt = key.NewBinding(key.WithKeys("ctrl+c"))

// wheelLines is how far one step of the mouse wheel scrolls.
const wheelLines = 3

// typedText marks several runes that arrived in one read as text. Bubble
// Tea reports them as one key whose name is the runes, so "up" or "end"
// typed quickly would otherwise match the up or end binding of a text input.
func typedText(msg tea.KeyMsg) tea.KeyMsg {
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 {
		msg.Paste = true
	}
	return msg
}

// key routes a key: to the open dialog, else to the focused chat (all but
// the leave key), else to the app's bindings and the sidebar.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	if m.dialog != nil {
		return m.dialog.Update(typedText(msg))
	}
	km := m.c.Keys
	if m.pane.Focused() {
		if key.Matches(msg, km.Leave) {
			m.pane.SetFocus(false)
			return nil
		}
		if id := m.pane.ID(); id != "" && m.pane.Stopped() {
			// Its harness does not run (it failed, exited or was
			// stopped): keys would go nowhere. Enter starts it again.
			// An ACP chat's conversation is still there to read.
			if cmd, ok := m.pane.ReadingKey(msg); ok {
				return cmd
			}
			if m.linkLost != nil {
				m.setStatus("no server to start it in: "+km.Leave.Help().Key+", then "+km.StartServer.Help().Key+" starts one", true)
				return nil
			}
			if key.Matches(msg, km.Focus) {
				m.setStatus("starting "+m.pane.name+"…", false)
				return startChat(m.mux, id, m.lay.chatCols, m.lay.chatRows, false)
			}
			m.setStatus(m.pane.harnessName+" is not running: "+km.Focus.Help().Key+" starts it again, "+km.Leave.Help().Key+" leaves", true)
			return nil
		}
		return m.pane.Update(msg)
	}
	m.setStatus("", false)
	if m.sidebar.Filtering() {
		_, cmd := m.sidebar.Update(msg)
		return tea.Batch(cmd, m.selectionChanged())
	}
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
		// Keys typed faster than one read (or sent by a script) arrive as
		// one message; here each is its own command.
		cmds := make([]tea.Cmd, 0, len(msg.Runes))
		for _, r := range msg.Runes {
			cmds = append(cmds, m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
		}
		return tea.Batch(cmds...)
	}
	e, ok := m.sidebar.Selected()
	usable := ok && e.Meta != nil
	switch {
	case key.Matches(msg, km.Quit), key.Matches(msg, keyInterrupt):
		return tea.Quit
	case key.Matches(msg, km.Focus):
		return m.openSelected()
	case key.Matches(msg, km.Help):
		return m.openDialog(NewHelpDialog(m.c, m.fullHelp()))
	case key.Matches(msg, km.New):
		return tea.Batch(m.openNewChat(), m.readConfig())
	case key.Matches(msg, km.StartServer):
		return m.startServer()
	case key.Matches(msg, km.Import):
		return m.openDialog(NewImportDialog(m.c, m.mux, m.nextOwner(), m.opt.Cwd, m.opt.UserHome))
	case key.Matches(msg, km.Cost):
		m.sidebar.ToggleCost()
		return nil
	case key.Matches(msg, km.Broadcast):
		return m.openBroadcast()
	case key.Matches(msg, km.Search):
		return m.openSearch()
	case key.Matches(msg, keyPgUp):
		m.pane.ScrollBy(max(m.lay.chatRows-1, 1))
		return nil
	case key.Matches(msg, keyPgDn):
		m.pane.ScrollBy(-max(m.lay.chatRows-1, 1))
		return nil
	case !ok:
		// Below: actions on the selected chat.
	case !usable && isChatAction(km, msg):
		m.setStatus(fmt.Sprintf("chat %s: its file does not parse; fix or move %s by hand", e.ID, m.chatPath(e.ID)), true)
		return nil
	case key.Matches(msg, km.AddFolders):
		return m.openPicker(e)
	case key.Matches(msg, km.Fork):
		return askFork(e)
	case key.Matches(msg, km.Side):
		return deriveChat(m.mux, e.ID, sessions.Derivation{Origin: sessions.OriginSide})
	case key.Matches(msg, km.Handoff):
		return m.openHandoff(e)
	case key.Matches(msg, km.Restart):
		if st := m.sidebar.states[e.ID]; st.Pending() && (st.TurnActive || st.Status == proto.StatusRunning || st.Status == proto.StatusAsking) {
			return m.openDialog(m.restartDialog(e, st))
		}
		m.setStatus("restarting "+e.Name()+"…", false)
		return startChat(m.mux, e.ID, m.lay.chatCols, m.lay.chatRows, true)
	case key.Matches(msg, km.Stop):
		m.setStatus("stopping "+e.Name()+"…", false)
		return stopChat(m.mux, e.ID, e.Name())
	case key.Matches(msg, km.Delete):
		return askDeleteChat(m.mux, e)
	case key.Matches(msg, km.RemoveMissing):
		return removeMissing(m.mux, e.ID)
	case key.Matches(msg, km.Rename):
		return m.openDialog(NewRenameDialog(m.c, m.mux, e.ID, e.Meta.Name))
	case key.Matches(msg, km.Mark):
		m.sidebar.ToggleMark()
		m.sidebar.Move(1) // on to the next, as a file manager marks
		return m.selectionChanged()
	case key.Matches(msg, km.Options):
		return m.openOptions(e)
	case key.Matches(msg, km.SignIn):
		return m.openSignIn(e)
	case key.Matches(msg, km.Export) && hostOf(e.ID) != "":
		// The bundle is written on the chat's host, where its folders
		// are, and the dialog picks a path on this machine.
		m.setWarning("export writes on this machine: it is not offered for a chat of host " + hostOf(e.ID) + " (run acpmux-tui export there)")
		return nil
	case key.Matches(msg, km.Export):
		d := NewExportDialog(m.c, m.mux, m.nextOwner(), e.ID, e.Meta.Name, m.opt.Cwd, m.opt.UserHome)
		if e.Meta.Worktree != nil {
			d.ForWorktree()
		}
		return m.openDialog(d)
	case key.Matches(msg, km.Review):
		return m.openDialog(NewReviewDialog(m.c, m.nextOwner(), m.mux, e.Meta).WithClock(m.opt.Now))
	}
	if handled, cmd := m.sidebar.Update(msg); handled {
		return tea.Batch(cmd, m.selectionChanged())
	}
	return nil
}

func isChatAction(km config.KeyMap, msg tea.KeyMsg) bool {
	return key.Matches(msg, km.AddFolders, km.Fork, km.Side, km.Handoff, km.Restart, km.Stop, km.Delete, km.RemoveMissing, km.Rename, km.Export, km.Review, km.Options, km.SignIn)
}

// chatPath is where a chat's file is, for a message that asks to fix it
// by hand: in the agent home the server keeps the chats in, when known.
func (m *Model) chatPath(id string) string {
	if m.opt.Home == "" {
		return id + ".toml"
	}
	return filepath.Join(m.opt.Home, "chats", id+".toml")
}

// openSelected opens the selected chat: starts its harness if it is not
// running and gives it the keyboard. On an empty home it creates a first
// chat in its own empty folder with the default harness.
func (m *Model) openSelected() tea.Cmd {
	e, ok := m.sidebar.Selected()
	switch {
	case !ok && m.sidebar.Len() == 0 && m.loaded:
		m.setStatus("starting a "+m.opt.DefaultHarness+" chat…", false)
		return createChat(m.mux, sessions.NewChat{Harness: m.opt.DefaultHarness}, m.lay.chatCols, m.lay.chatRows)
	case !ok:
		return nil
	case e.Meta == nil:
		m.setStatus(fmt.Sprintf("chat %s: its file does not parse; fix or move %s by hand", e.ID, m.chatPath(e.ID)), true)
		return nil
	}
	return m.open(e.ID)
}

// open focuses the chat pane on a chat and starts its harness unless it
// runs.
func (m *Model) open(id string) tea.Cmd {
	m.pane.SetFocus(true)
	if m.pane.State().Status.Live() {
		return nil
	}
	return startChat(m.mux, id, m.lay.chatCols, m.lay.chatRows, false)
}

// openPending opens the chat of the launch flags (or one just created)
// once it is listed and the screen has its size.
func (m *Model) openPending() tea.Cmd {
	if m.opening == "" || !m.lay.ready || !m.sidebar.Select(m.opening) {
		return nil
	}
	id := m.opening
	m.opening = ""
	return tea.Batch(m.selectionChanged(), m.open(id))
}

func (m *Model) nextOwner() int {
	m.owners += 2
	return m.owners
}

// openDialog opens d in place of the top dialog, if any.
func (m *Model) openDialog(d Dialog) tea.Cmd {
	d.SetSize(m.lay.width, m.lay.height)
	m.dialog = d
	if in, ok := d.(dialogIniter); ok {
		return in.Init()
	}
	return nil
}

func (m *Model) openNewChat() tea.Cmd {
	var d *NewChatDialog
	d = NewNewChatDialog(m.c, m.nextOwner(), m.mux, m.opt.UserHome, m.opt.Harnesses, m.opt.DefaultHarness, m.worktreeOn,
		func(n sessions.NewChat) tea.Cmd {
			if h, ok := m.hostMux(); ok && d.Host() != "" {
				// The chat is made on the host chosen, its folders
				// checked by that host's server.
				if m.missing[n.Harness] {
					return createOnlyOn(h, d.Host(), n)
				}
				return createChatOn(h, d.Host(), n, m.lay.chatCols, m.lay.chatRows)
			}
			if m.missing[n.Harness] {
				return createOnly(m.mux, n)
			}
			return createChat(m.mux, n, m.lay.chatCols, m.lay.chatRows)
		})
	d.SetHosts(m.hostNames(), m.listsOn)
	return m.openDialog(d)
}

func (m *Model) openPicker(e sessions.Entry) tea.Cmd {
	start := e.Meta.Cwd
	if e.NoProject {
		start = m.opt.UserHome
	}
	title := fmt.Sprintf("add folders to %q, or take them out", e.Meta.Name)
	p := NewFolderPicker(m.c, m.nextOwner(), title, m.listsOn(hostOf(e.ID)), e.ID, e.Meta.Cwd, m.opt.UserHome, start, nil, e.Meta.AdditionalDirectories)
	return m.openDialog(p.WithFiles(nil, e.Meta.AdditionalFiles))
}

func (m *Model) openHandoff(e sessions.Entry) tea.Cmd {
	var names, notes, refusals []string
	// Installed harnesses first, each group in the table's order: a handoff
	// to one that is not installed is refused before the capsule is made.
	for _, installed := range []bool{true, false} {
		for _, h := range m.opt.Harnesses {
			if h.Name == e.Meta.Harness || h.Installed != installed {
				continue
			}
			note, refusal := h.Transport+" · ✓ installed", ""
			if !h.Installed {
				note, refusal = h.Transport+" · not installed", m.notInstalledHelp(h.Name)
			}
			names, notes, refusals = append(names, h.Name), append(notes, note), append(refusals, refusal)
		}
	}
	// The capsule is built once a harness is chosen, then opens for review.
	mx := m.mux
	return m.openDialog(NewChooser(m.c, "hand "+e.Meta.Name+" off to", names, notes, func(name string) tea.Cmd {
		return buildCapsule(mx, e.ID, sessions.Derivation{Origin: sessions.OriginHandoff, Harness: name})
	}).Refuse(refusals))
}

// notInstalledHelp says that a harness is not installed and how to make it
// so: install its command, or name another under [harness.NAME].
func (m *Model) notInstalledHelp(name string) string {
	command := name
	if m.table != nil {
		if spec, ok := m.table.Get(name); ok && spec.Command != "" {
			command = spec.Command
		}
	}
	return fmt.Sprintf("%s is not installed: its command %q is not found on PATH. Install it, or set command = \"/path/to/it\" under [harness.%s] in the config file (acpmux-tui harnesses lists what is found).", name, command, name)
}

// askDelete opens the delete dialog once the chat's own folder has been
// looked into.
func (m *Model) askDelete(msg deleteAskMsg) tea.Cmd {
	if msg.err != nil {
		m.fail("delete chat", msg.err)
		return nil
	}
	if m.dialog != nil || msg.entry.Meta == nil {
		return nil // D pressed twice, or the chat broke meanwhile
	}
	return m.openDialog(m.deleteDialog(msg))
}

// restartDialog asks before a restart that applies a pending change of
// folders now, in the middle of the chat's work, and names what it cuts
// short; without it the change waits for the end of the turn.
func (m *Model) restartDialog(e sessions.Entry, st proto.State) Dialog {
	lines := []string{
		fmt.Sprintf("Restart %q now to apply its folders?", e.Name()),
		"",
		pendingLine(st) + ".",
		"",
	}
	if st.TurnActive {
		lines = append(lines, "It interrupts the agent's turn under way; the conversation is loaded again.")
	} else {
		lines = append(lines, "It interrupts the harness while it is working (it is not waiting for input).")
	}
	lines = append(lines, "Without it, the change is applied when the turn ends.")
	yes := startChat(m.mux, e.ID, m.lay.chatCols, m.lay.chatRows, true)
	return NewConfirm(m.c, "restart now", lines, "restart now", yes)
}

// deleteDialog asks before deleting a chat. When its own folder has files
// in it, it says so and offers to delete them too (rm --force): the folder
// is the chat's, made for it, and a delete that refused after the question
// would only make the user go to the command line.
func (m *Model) deleteDialog(msg deleteAskMsg) Dialog {
	e, home, files := msg.entry, msg.home, msg.files
	lines := []string{
		fmt.Sprintf("Delete %q (%s)?", e.Meta.Name, e.ID),
		"",
	}
	yes := "delete"
	if files > 0 {
		entries := "1 entry"
		if files > 1 {
			entries = fmt.Sprintf("%d entries", files)
		}
		lines = append(lines,
			fmt.Sprintf("Its own folder has files in it (%s):", entries),
			"  "+home,
			"they are deleted with the chat.",
		)
		yes = "delete the files too"
	} else if msg.worktree == "" {
		lines = append(lines, "Its chat file goes, and its own folder when it has no project.")
	}
	force := files > 0
	if msg.worktree != "" {
		lines, yes, force = worktreeDeleteLines(lines, msg, yes, force)
	}
	lines = append(lines, "Its project folder and additional folders are never touched.")
	if m.sidebar.states[e.ID].Status.Live() {
		lines = append(lines, "Its harness is stopped first.")
	}
	return NewConfirm(m.c, "delete chat", lines, yes, deleteChat(m.mux, e.ID, e.Meta.Name, force))
}

// mouse scrolls and selects: the wheel over the sidebar moves the
// selection; over the chat it scrolls the scrollback (or goes to a focused
// harness that tracks the mouse); a click selects a row or focuses the chat.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	if m.dialog != nil || !m.lay.ready {
		return nil
	}
	inSidebar := msg.X < m.lay.sideW
	chatTop := m.lay.sumH
	inChat := !inSidebar && msg.Y >= chatTop && msg.Y < m.lay.bodyH
	wheelUp, wheelDown := msg.Button == tea.MouseButtonWheelUp, msg.Button == tea.MouseButtonWheelDown
	switch {
	case inSidebar && (wheelUp || wheelDown):
		if wheelUp {
			m.sidebar.Move(-1)
		} else {
			m.sidebar.Move(1)
		}
		return m.selectionChanged()
	case inChat && (wheelUp || wheelDown):
		if m.pane.Focused() && !m.pane.IsACP() {
			col, row := msg.X-m.lay.sideW-1, msg.Y-chatTop-1
			if b := encodeWheel(wheelUp, col, row, m.pane.term.Modes); b != nil {
				m.pane.send(m.pane.ID(), b)
				return nil
			}
		}
		if wheelUp {
			m.pane.ScrollBy(wheelLines)
		} else {
			m.pane.ScrollBy(-wheelLines)
		}
	case msg.Action == tea.MouseActionPress && msg.Button == tea.MouseButtonLeft && inSidebar:
		if i, ok := m.sidebar.RowAt(msg.Y - 1); ok {
			m.sidebar.SelectRow(i)
			return m.selectionChanged()
		}
	case msg.Action == tea.MouseActionPress && msg.Button == tea.MouseButtonLeft && inChat:
		if !m.pane.Focused() && m.pane.ID() != "" && m.pane.State().Status.Live() {
			m.pane.SetFocus(true)
		}
	}
	return nil
}

// fullHelp groups every binding for the `?` dialog.
func (m *Model) fullHelp() [][]key.Binding {
	km := m.c.Keys
	return [][]key.Binding{
		{km.Up, km.Down, km.Focus, km.Leave, km.Filter, keyPgUp, km.Fold, km.Find, km.Copy, km.CopyCode, km.Mark, km.Broadcast},
		{km.New, km.AddFolders, km.PickFiles, km.Fork, km.Side, km.Handoff},
		{km.Restart, km.Stop, km.Delete, km.RemoveMissing, km.Rename, km.Options, km.SignIn},
		{km.Review, km.Export, km.Import, km.Cost, km.Search, km.StartServer, km.Help, km.Quit},
	}
}

// shortHelp returns the bindings of whatever has the keyboard.
func (m *Model) shortHelp() []key.Binding {
	switch {
	case m.dialog != nil:
		return m.dialog.ShortHelp()
	case m.pane.Focused():
		return m.pane.ShortHelp()
	case m.sidebar.Len() == 0:
		km := m.c.Keys
		return []key.Binding{
			key.NewBinding(key.WithKeys("enter"), key.WithHelp(km.Focus.Help().Key, "start a "+m.opt.DefaultHarness+" chat")),
			km.New, km.Help, km.Quit,
		}
	}
	bindings := m.sidebar.ShortHelp()
	if m.linkLost != nil && !m.sidebar.Filtering() {
		bindings = append([]key.Binding{m.c.Keys.StartServer}, bindings...)
	}
	if problems := m.problems[m.selected]; len(problems) > 0 && !m.sidebar.Filtering() {
		bindings = append([]key.Binding{removeMissingHelp(m.c.Keys.RemoveMissing, problems)}, bindings...)
	}
	return bindings
}

// removeMissingHelp is the remove-missing binding as the help line shows it
// for the problems at hand: it names the files when a file has gone.
func removeMissingHelp(b key.Binding, problems []proto.FolderProblem) key.Binding {
	var dirs, files bool
	for _, p := range problems {
		if p.Field == proto.FieldFiles {
			files = true
		} else {
			dirs = true
		}
	}
	what := "remove missing folders"
	switch {
	case files && dirs:
		what = "remove missing folders and files"
	case files:
		what = "remove missing files"
	}
	if what == b.Help().Desc {
		return b
	}
	return key.NewBinding(key.WithKeys(b.Keys()...), key.WithHelp(b.Help().Key, what))
}
