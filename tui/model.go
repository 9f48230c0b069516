// Package tui is the Bubble Tea app of acpmux-tui: one root model that
// routes messages to its components (the sidebar of chats, the summary pane,
// the chat pane, dialogs and the help bar). It talks to the embedded mux
// through the narrow Mux interface, which is also its one source of chats:
// it lists, reads and writes them only through the server, in tea.Cmds.
// Update and View never do I/O.
package tui

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// Options configure the app.
type Options struct {
	Table  *harness.Table
	Config *config.Config
	Mux    Mux
	Logger *slog.Logger
	// Renderer draws the styles; nil is Lip Gloss's default. NoColor
	// leaves colours out (NO_COLOR).
	Renderer *lipgloss.Renderer
	NoColor  bool
	// Entries are the chats listed before the screen opened, so the first
	// frame shows them; nil reads the list in a command at start.
	Entries []sessions.Entry
	// Open is a chat to select, start and focus once the screen has a size
	// (the launch flags' chat).
	Open string
	// DefaultHarness is the harness of a first chat and the one the
	// new-chat dialog offers first.
	DefaultHarness string
	// Harnesses are offered by the new-chat dialog and handoff, marked when
	// not installed; a chat of a harness not installed is marked too, and is
	// created without being started. nil lists the table and checks nothing
	// (each is taken as installed). Table, DefaultHarness and Harnesses
	// are what was read at start: a mux that tells its server's config
	// (harnesses.go) replaces them with it as soon as it does.
	Harnesses []HarnessInfo
	// Home is the agent home the server keeps the chats in; it is only
	// named in messages (a broken chat file to fix by hand).
	Home string
	// UserHome is where the folder picker starts for a chat with no project
	// and what "~" means.
	UserHome string
	// Now is the clock (time.Now when nil); Frame is how long change
	// notices are gathered into one redraw (16 ms when 0); Tick is how often
	// the clock moves while the selected chat's turn runs or a permission
	// card waits (1 s when 0, never when negative); otherwise it moves only
	// when the selected chat's uptime, shown to the minute, would change.
	Now   func() time.Time
	Frame time.Duration
	Tick  time.Duration
	// CheckFoldersEvery is how often the selected chat's folders are looked
	// at on disk, so one deleted meanwhile is marked without reselecting
	// the chat (0: only on selection, focus and each start).
	CheckFoldersEvery time.Duration
	// Getenv reads the terminal's environment, for the desktop
	// notifications it understands (os.Getenv when nil).
	Getenv func(string) string
	// Emit writes an escape sequence to the terminal between frames: the
	// title, a desktop notification, the bell (attention.go). nil writes
	// nothing.
	Emit func(seq string)
	// Loans, when set, is told after each update which chat pane to lend
	// the server (its terminal's rectangle), or none (loan.go).
	Loans Loans
	// Cwd is the TUI's own folder: an export goes there by default, and a
	// relative path typed in the export or import dialog is resolved
	// against it (the process's working folder when "").
	Cwd string
}

// Model is the root model: it owns the components and routes messages.
type Model struct {
	opt   Options
	c     *Common
	mux   Mux
	table *harness.Table
	in    *inputWriter
	gate  changeGate // when change notices last reached the model
	// urgent is set when the last message was the shown chat's echo of
	// a key (Urgent).
	urgent bool

	sidebar *Sidebar
	summary *Summary
	pane    *ChatPane
	// dialog is the top of the stack of dialogs, the one that gets the
	// keys; below are those under it, the last the nearest (a dialog that
	// needs another, as import needs the folder picker, pushes it).
	dialog Dialog
	below  []Dialog

	problems map[string][]proto.FolderProblem
	git      map[string]gitCheck // per chat, from the folder check
	missing  map[string]bool     // harnesses not installed, by name
	// bounds are sandboxed chats' bounds as their servers last gave them
	// (sandbox.go).
	bounds map[string]*proto.SandboxJSON
	// worktreeOn is the config's `worktree` default: what the new-chat
	// and fork dialogs start with.
	worktreeOn bool
	lay        layout
	vc         viewCache // the last frame's boxes and rows (view.go)
	loaded     bool
	status     string
	isErr      bool
	isWarn     bool
	now        time.Time
	// tickAt is when the pending clock tick fires (zero: none), tickSeq
	// the one that counts: a tick wanted sooner replaces it.
	tickAt  time.Time
	tickSeq int
	// folderTicking: a look at the selected chat's folders is on its way
	// (startFolderTick).
	folderTicking bool
	owners        int
	selected      string // the chat the pane and summary show
	footerKey     string // what the help line was drawn from
	footerLine    string
	opening       string // a chat to open once it is listed and the screen has a size
	// looking is the chat the server was told the user sees, title the
	// terminal's title; blurred is set while the terminal has lost focus
	// (attention.go).
	looking, title latest
	blurred        bool
	// listAsked numbers the lists asked of the server, listShown the one
	// on screen (reloadList, listLoaded).
	listAsked, listShown uint64
	// sideChanged is set when the message being handled changed how a
	// sidebar row is drawn; unchanged, when it changed nothing drawn.
	sideChanged bool
	unchanged   bool
	// quiet is set when the message being handled brought nothing new.
	quiet bool
	// linkLost is why the connection to the server ended, while it is
	// down; startingServer is set while a start the user asked for runs
	// (follow.go).
	linkLost error
	// hosts are the hosts' states when the mux has other hosts (local
	// first), nil when it has none.
	hosts          []proto.HostStatus
	startingServer bool
	// selectListed is a chat to select as soon as a list read holds it
	// (one just imported, whose file the server wrote).
	selectListed string
	// loanCursor, loanKeys and loanBytes are what loanable made last of
	// the styles and the leave key (loan.go).
	loanCursor *[2]string
	loanKeys   []string
	loanBytes  []byte
}

// New builds the app. Nothing is started until the program runs it.
func New(opt Options) *Model {
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Frame == 0 {
		opt.Frame = 16 * time.Millisecond
	}
	if opt.Tick == 0 {
		opt.Tick = time.Second
	}
	if opt.Config == nil {
		opt.Config = config.Defaults()
	}
	if opt.DefaultHarness == "" {
		opt.DefaultHarness = "shell"
	}
	if opt.Cwd == "" {
		opt.Cwd, _ = os.Getwd()
	}
	if opt.Harnesses == nil && opt.Table != nil {
		for _, s := range opt.Table.All() {
			opt.Harnesses = append(opt.Harnesses, HarnessInfo{Name: s.Name, Transport: s.Transport, Installed: true, Sandbox: s.Sandboxed(opt.Config)})
		}
	}
	c := &Common{Styles: NewStyles(opt.Renderer, !opt.NoColor), Keys: opt.Config.KeyMap(), Log: opt.Logger}
	m := &Model{opt: opt, c: c, mux: opt.Mux, table: opt.Table, problems: map[string][]proto.FolderProblem{}, git: map[string]gitCheck{}, missing: map[string]bool{},
		bounds: map[string]*proto.SandboxJSON{}}
	m.worktreeOn = opt.Config != nil && opt.Config.Worktree.Default
	for _, h := range opt.Harnesses {
		if !h.Installed {
			m.missing[h.Name] = true
		}
	}
	m.in = newInputWriter(opt.Mux, func() { m.looking.flush(m.sendLook) }, m.looking.settled)
	m.sidebar = NewSidebar(c)
	m.sidebar.SetMissing(m.missing)
	m.summary = NewSummary(c)
	m.pane = NewChatPane(c, opt.Mux, func(id string, b []byte) {
		m.gate.expectEcho(id)
		if !m.in.send(id, b) {
			m.setStatus("input dropped: the harness is not reading", true)
		}
	})
	m.now = opt.Now()
	m.opening = opt.Open
	if opt.Entries != nil {
		m.sidebar.SetEntries(opt.Entries, opt.Open)
		m.loaded = true
	}
	m.selectionChanged()
	m.prepareFooter()
	return m
}

// Close stops the input writer; call it after the program has ended.
func (m *Model) Close() { m.in.close() }

// Init starts reading change notices and the list when it was not given,
// and asks the terminal to report focus: the selected chat's folders are
// checked again each time the window gains it.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{waitChanges(m.mux.Changes(), m.opt.Frame, &m.gate), m.in.waitWriteErr(), fillPool(m.mux),
		waitNews(m.mux.News()), tea.EnableReportFocus, waitNotices(m.mux.Notices()),
		m.startFolderTick(), m.watchLink(), m.watchHosts(), m.watchConfig(), m.awaitConnection()}
	if !m.loaded {
		cmds = append(cmds, m.reloadList(m.opt.Open))
	}
	if e, ok := m.sidebar.Selected(); ok {
		cmds = append(cmds, checkFolders(e), m.askBound(e))
	}
	return tea.Batch(cmds...)
}

// Update routes a message, then prepares the help line for the frame and
// tells the server and the terminal what changed for the user's attention.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	msg = focusReport(msg)
	m.sideChanged, m.quiet, m.urgent = false, false, false
	footer := m.footerKey
	cmd := m.update(msg)
	// Whatever changed the selection or its chat, the folder tick follows.
	if tick := m.startFolderTick(); tick != nil {
		cmd = tea.Batch(cmd, tick)
	}
	m.prepareFooter()
	m.unchanged = m.footerKey == footer && m.drawsNothing(msg)
	if attend := m.attend(); attend != nil {
		cmd = tea.Batch(cmd, attend)
	}
	if m.opt.Loans != nil {
		m.opt.Loans.Want(m.loanable())
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		return m.resize(msg.Width, msg.Height)
	case tea.KeyMsg:
		return m.key(msg)
	case tea.MouseMsg:
		return m.mouse(msg)
	case LoanBarrier:
		m.in.whenIdle(msg.Done)
		m.quiet = true
		return nil
	case tea.FocusMsg:
		// The user is back from elsewhere, where folders may have been
		// deleted or restored.
		m.blurred = false
		return m.checkSelected()
	case tea.BlurMsg:
		m.blurred = true
		return nil
	case noticeMsg:
		return m.noticed(msg)
	case hostsMsg:
		return m.hostsUpdated(msg)
	case chatsChangedMsg:
		m.urgent = msg.echo != "" && msg.echo == m.selected
		cmds := []tea.Cmd{waitChanges(m.mux.Changes(), m.opt.Frame, &m.gate)}
		for _, id := range msg.ids {
			cmds = append(cmds, m.chatChanged(id))
			if id != m.selected {
				continue
			}
			if !m.pane.RefreshScreen(id) || !m.pane.State().Equal(m.summary.info.State) {
				// Its state changed too: the summary says it.
				m.refreshSelected()
			}
		}
		// After the refresh: the tick follows the state just read.
		return tea.Batch(append(cmds, m.startTick())...)
	case resizedMsg:
		m.pane.Refresh()
		return nil
	case tickMsg:
		if msg.seq != m.tickSeq {
			return nil // replaced by a tick wanted sooner
		}
		m.tickAt = time.Time{}
		m.now = msg.at
		m.summary.Tick(m.now)
		m.pane.Tick(m.now)
		return m.startTick()
	case listLoadedMsg:
		return m.listLoaded(msg)
	case configMsg:
		return m.configChanged(msg)
	case forkAskMsg:
		if m.dialog != nil {
			return nil // another dialog opened meanwhile
		}
		return m.forkAsked(msg)
	case newsMsg:
		// Chat files changed on disk (a hand edit, acpmux-tui add-dir,
		// new, rm, a second TUI): read the list again.
		next := waitNews(m.mux.News())
		if msg.ConfigRefused != "" {
			m.setWarning(configRefusal(msg.ConfigRefused))
		}
		if len(msg.Chats) > 0 {
			return tea.Batch(next, m.reloadList(""))
		}
		return next
	case linkMsg:
		return m.linked(msg)
	case connectedMsg:
		return m.reloadList("")
	case serverStartedMsg:
		return m.serverStarted(msg)
	case folderTickMsg:
		m.folderTicking = false // Update starts the next one, if wanted
		return m.checkSelected()
	case foldersCheckedMsg:
		if slices.Equal(msg.problems, m.problems[msg.id]) && msg.git.equal(m.git[msg.id]) {
			m.quiet = true // the same as last time: nothing to draw
			return nil
		}
		m.git[msg.id] = msg.git
		if len(msg.problems) == 0 {
			delete(m.problems, msg.id)
		} else {
			m.problems[msg.id] = msg.problems
		}
		if msg.id == m.selected {
			m.refreshSelected()
		}
		return nil
	case deleteAskMsg:
		return m.askDelete(msg)
	case startedMsg:
		return m.started(msg)
	case chatLoadedMsg:
		m.sidebar.UpdateEntry(msg.entry)
		m.keepBound(msg.entry)
		if msg.entry.ID == m.selected {
			m.refreshSelected()
		}
		return nil
	case chatCreatedMsg:
		return m.created(msg)
	case capsuleBuiltMsg:
		return m.capsuleBuilt(msg)
	case actionDoneMsg:
		return m.actionDone(msg)
	case foldersAddedMsg:
		note := pickedNote(msg)
		if m.sidebar.states[msg.id].Status.Live() {
			note += "; the harness takes them " + proto.PendingAtTurnEnd
		}
		m.setStatus(note, false)
		// The server has told the harness (addFolders, removeFolders,
		// setFiles): a running chat takes them at the end of its turn.
		return m.reloadList("")
	case mentionFilesMsg:
		return m.pane.FilesListed(msg)
	case clipboardMsg:
		// A copy from an ACP chat (ctrl+y, alt+y): the terminal's clipboard.
		if msg.text == "" || m.opt.Emit == nil {
			m.setStatus("nothing copied: "+msg.what, msg.text != "")
			return nil
		}
		m.opt.Emit(osc52(msg.text))
		m.setStatus("copied "+msg.what+" to the clipboard", false)
		return nil
	case promptDoneMsg:
		if msg.err != nil {
			m.fail("prompt", msg.err)
		}
		return nil
	case broadcastDoneMsg:
		return m.broadcastDone(msg)
	case broadcastSentMsg:
		m.setStatus(string(msg), false)
		return nil
	case writeErrMsg:
		m.fail("send keys", msg.err)
		return m.in.waitWriteErr()
	case errMsg:
		m.fail(msg.what, msg.err)
		return nil
	case infoMsg:
		m.setStatus(string(msg), false)
		return nil
	case closeDialogMsg:
		m.popDialog()
		return nil
	case pushDialogMsg:
		return m.pushDialog(msg.d)
	case pickerDoneMsg:
		return m.fromPushed(msg.owner, msg)
	case pickerCancelledMsg:
		return m.fromPushed(msg.owner, msg)
	case chatRenamedMsg:
		return m.renamed(msg)
	case searchJumpMsg:
		return m.searchJump(msg)
	case chatExportedMsg:
		return m.exported(msg)
	case bundleImportedMsg:
		return m.imported(msg)
	}
	if m.dialog != nil {
		return m.dialog.Update(msg)
	}
	return nil
}

// shower is a mux that can be told which chat the pane draws (the
// server's, through client.Remote): it then tells of the other chats only
// when their states change, which is all the sidebar shows of them.
type shower interface {
	Show(id string)
}

// showing tells the mux which chat the pane draws, if it wants to know.
// It does not block.
func (m *Model) showing(id string) {
	if s, ok := m.mux.(shower); ok {
		s.Show(id)
	}
}

// selectionChanged shows the newly selected chat and checks its folders.
func (m *Model) selectionChanged() tea.Cmd {
	e, ok := m.sidebar.Selected()
	id := ""
	if ok {
		id = e.ID
	}
	changed := id != m.selected
	m.selected = id
	m.refreshSelected()
	if !changed || !ok {
		return m.startTick()
	}
	return tea.Batch(checkFolders(e), m.askBound(e), m.startTick())
}

// startTick keeps the clock moving while the selected chat runs, waking
// the TUI only when what it shows would change: each second while a turn
// runs or a permission card waits (their waits are counted in seconds),
// else when the uptime, shown to the minute, turns. An idle TUI so sleeps
// for minutes, not a second, between frames (scripts/bench memory-10).
func (m *Model) startTick() tea.Cmd {
	st := m.pane.State()
	if m.opt.Tick < 0 || !st.Status.Live() {
		return nil
	}
	wait := m.opt.Tick
	if wait == 0 {
		wait = time.Second
	}
	if !st.TurnActive && st.Permission == nil {
		if st.Started.IsZero() {
			return nil
		}
		now := m.opt.Now()
		wait = max(untilUptimeTurns(now.Sub(st.Started)), wait)
	}
	at := m.opt.Now().Add(wait)
	if !m.tickAt.IsZero() && !at.Before(m.tickAt) {
		return nil // the pending tick comes soon enough
	}
	m.tickSeq++
	m.tickAt = at
	return tick(wait, m.tickSeq)
}

// reloadList asks the server for the list again; selectID is a chat to
// select once it is listed ("" keeps the selection as it is then).
func (m *Model) reloadList(selectID string) tea.Cmd {
	m.listAsked++
	return loadList(m.mux, selectID, m.listAsked)
}

func (m *Model) listLoaded(msg listLoadedMsg) tea.Cmd {
	if msg.seq < m.listShown {
		// A later list is on screen already: this one may lack a chat
		// made since, or bring back a selection the user has left.
		if msg.selectID == "" {
			return nil
		}
		if m.sidebar.Select(msg.selectID) {
			return tea.Batch(m.selectionChanged(), m.openPending())
		}
		m.selectListed = msg.selectID
		return nil
	}
	m.listShown = msg.seq
	if msg.err != nil {
		m.fail("list chats", msg.err)
		return nil
	}
	m.loaded = true
	m.sidebar.SetEntries(msg.entries, msg.selectID)
	if m.selectListed != "" && m.sidebar.Select(m.selectListed) {
		m.selectListed = ""
	}
	was := m.selected
	cmds := []tea.Cmd{m.selectionChanged(), m.openPending()}
	if e, ok := m.sidebar.Selected(); ok && m.selected == was {
		// The same chat, read again: its folders may have changed its
		// bound (a new selection asks by itself).
		cmds = append(cmds, m.askBound(e))
	}
	return tea.Batch(cmds...)
}

func (m *Model) started(msg startedMsg) tea.Cmd {
	gone, isGone := asFoldersGone(msg.err)
	if isGone {
		m.problems[msg.id] = gone.Problems
	}
	if msg.err != nil {
		m.fail("", msg.err)
		if msg.id == m.selected && !(isGone && gone.Running) {
			m.pane.SetFocus(false)
		}
	}
	cmds := []tea.Cmd{m.chatChanged(msg.id), m.startTick()}
	if msg.id == m.selected {
		m.refreshSelected()
	}
	if !isGone {
		// Each start is a moment to look at the folders again: one may
		// have come back, or gone since the last look.
		if e, ok := m.sidebar.Entry(msg.id); ok {
			cmds = append(cmds, checkFolders(e))
		}
	}
	if msg.err == nil {
		// A first start may have stored the harness's session id.
		cmds = append(cmds, reloadChat(m.mux, msg.id))
	}
	return tea.Batch(cmds...)
}

func (m *Model) created(msg chatCreatedMsg) tea.Cmd {
	var cmds []tea.Cmd
	if m.dialog != nil {
		cmds = append(cmds, m.dialog.Update(msg))
	}
	if msg.meta == nil {
		if m.dialog == nil && msg.err != nil {
			m.fail("", msg.err)
		}
		return tea.Batch(cmds...)
	}
	switch {
	case msg.err != nil:
		m.fail("", msg.err)
	case m.missing[msg.meta.Harness]:
		// Starting it would only fail: the chat is made and selected, and
		// starts once its harness is installed.
		m.setWarning(fmt.Sprintf("%s is not installed: %q is created, not started", msg.meta.Harness, msg.meta.Name))
	case msg.note != "":
		m.setStatus("created "+msg.meta.Name+": "+msg.note, false)
	case msg.meta.Origin == sessions.OriginFork:
		m.setStatus(m.forkNote(msg.meta), false)
	default:
		m.setStatus("created "+msg.meta.Name, false)
	}
	if msg.open && !m.missing[msg.meta.Harness] {
		m.opening = msg.meta.ID // started and focused once listed
	}
	return tea.Batch(append(cmds, m.reloadList(msg.meta.ID))...)
}

func (m *Model) actionDone(msg actionDoneMsg) tea.Cmd {
	if msg.err != nil {
		m.fail("", msg.err)
	} else if msg.info != "" {
		m.setStatus(msg.info, false)
	}
	changed := m.chatChanged(msg.id)
	if msg.reload {
		delete(m.problems, msg.id)
		return tea.Batch(changed, m.reloadList(""))
	}
	m.refreshSelected()
	return changed
}

func asFoldersGone(err error) (*proto.FoldersGoneError, bool) {
	var gone *proto.FoldersGoneError
	ok := errors.As(err, &gone)
	return gone, ok
}
