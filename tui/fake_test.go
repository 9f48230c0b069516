package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// fakeMux is the mux as the TUI sees it, with no processes: starting a chat
// marks it running, its screen is what the test sets, and writes are
// recorded.
type fakeMux struct {
	store   *sessions.Store
	changes chan string
	writes  chan writeReq

	mu       sync.Mutex
	states   map[string]proto.State
	screens  map[string]string
	terms    map[string]proto.Terminal
	startErr map[string]error
	// restartErr refuses a restart and leaves the chat as it is, as the mux
	// does when a folder has gone.
	restartErr map[string]error
	// transcripts are the ACP chats' entries.
	transcripts map[string][]proto.Entry
	// table is the harness table the fake server writes capsules with;
	// capsuleErr refuses to write one.
	table      *harness.Table
	capsuleErr error
	calls      []string // "start ID", "restart ID", "stop ID", "forget ID", "create NAME", "resize CxR"
	notices    chan proto.Notice
	news       chan proto.News
	looks      []string
	bundles    bundleFake
	// worktreeAsks are the worktree params of Create, CreateAndStart and
	// Derive, in order: "yes", "no" or "default" (left out); sandboxAsks
	// their sandbox params, the same way.
	worktreeAsks, sandboxAsks []string
	// options are the ACP chats' modes and options (options_test.go).
	options optionsFake
}

// askWorktree records a worktree param as the server would receive it.
func (f *fakeMux) askWorktree(wt *bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.worktreeAsks = append(f.worktreeAsks, askWord(wt))
}

// askSandbox records a sandbox param as the server would receive it.
func (f *fakeMux) askSandbox(sb *bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sandboxAsks = append(f.sandboxAsks, askWord(sb))
}

// askWord is an optional param as recorded: "default" (left out), "yes"
// or "no".
func askWord(v *bool) string {
	switch {
	case v == nil:
		return "default"
	case *v:
		return "yes"
	}
	return "no"
}

// WorktreeAsks returns the worktree params received so far.
func (f *fakeMux) WorktreeAsks() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.worktreeAsks...)
}

// SandboxAsks returns the sandbox params received so far.
func (f *fakeMux) SandboxAsks() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.sandboxAsks...)
}

func newFakeMux(store *sessions.Store) *fakeMux {
	return &fakeMux{
		store: store, changes: make(chan string, 64), writes: make(chan writeReq, 256), notices: make(chan proto.Notice, 16),
		states: map[string]proto.State{}, screens: map[string]string{}, terms: map[string]proto.Terminal{},
		startErr: map[string]error{}, restartErr: map[string]error{}, transcripts: map[string][]proto.Entry{},
	}
}

func (f *fakeMux) call(s string) {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	f.mu.Unlock()
}

// Calls returns the blocking calls made so far.
func (f *fakeMux) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeMux) Changes() <-chan string { return f.changes }

// Notices delivers what the test sends on notices.
func (f *fakeMux) Notices() <-chan proto.Notice { return f.notices }

// News delivers what the test sends on news (nil: nothing).
func (f *fakeMux) News() <-chan proto.News { return f.news }

// Look records the chat the TUI says it shows.
func (f *fakeMux) Look(id string) error {
	f.mu.Lock()
	f.looks = append(f.looks, id)
	f.mu.Unlock()
	return nil
}

// Looks returns the chats the TUI said it shows, in order.
func (f *fakeMux) Looks() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.looks...)
}

func (f *fakeMux) State(id string) proto.State {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.states[id]
}

func (f *fakeMux) Render(id string, scroll int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.screens[id]
}

func (f *fakeMux) Terminal(id string) proto.Terminal {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.terms[id]
}

func (f *fakeMux) Transcript(id string) []proto.Entry {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]proto.Entry(nil), f.transcripts[id]...)
}

func (f *fakeMux) set(id string, st proto.State, screen string) {
	f.mu.Lock()
	f.states[id], f.screens[id] = st, screen
	f.mu.Unlock()
}

func (f *fakeMux) Start(id string, cols, rows int) error {
	f.call("start " + id)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.startErr[id]; err != nil {
		f.states[id] = proto.State{Status: proto.StatusFailed, Reason: err.Error(), LastError: err.Error()}
		return err
	}
	f.states[id] = proto.State{Status: proto.StatusRunning, Pid: 4242, Transport: "pty"}
	f.screens[id] = "ready>"
	return nil
}

func (f *fakeMux) Restart(id string, cols, rows int) error {
	f.call("restart " + id)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.restartErr[id]
}

func (f *fakeMux) FoldersChanged(id string) error {
	f.call("folders " + id)
	return nil
}

// SetFiles stores the chat's files as the server's setFiles does: through
// the real store's shared validator.
func (f *fakeMux) SetFiles(id string, files []string) (*sessions.Meta, error) {
	f.call("setFiles " + id)
	return f.store.SetFiles(id, files)
}

func (f *fakeMux) Stop(id string) {
	f.call("stop " + id)
	f.mu.Lock()
	f.states[id] = proto.State{Status: proto.StatusStopped}
	f.mu.Unlock()
}

func (f *fakeMux) Forget(id string) { f.call("forget " + id) }

func (f *fakeMux) Write(id string, p []byte) error {
	f.writes <- writeReq{id, append([]byte(nil), p...)}
	return nil
}

func (f *fakeMux) ResizeAll(cols, rows int) { f.call(fmt.Sprintf("resize %dx%d", cols, rows)) }

func (f *fakeMux) CreateAndStart(n sessions.NewChat, cols, rows int) (*sessions.Meta, error) {
	f.call("create " + n.Harness)
	f.askWorktree(n.Worktree)
	f.askSandbox(n.Sandbox)
	m, err := f.store.Create(n)
	if err != nil {
		return nil, err
	}
	return m, f.Start(m.ID, cols, rows)
}

func (f *fakeMux) Fill() error { return nil }

func (f *fakeMux) Prompt(ctx context.Context, id, text string, _ ...proto.Link) (string, error) {
	f.call("prompt " + id + " " + text)
	return "end_turn", nil
}

func (f *fakeMux) Cancel(id string) error { f.call("cancel " + id); return nil }
func (f *fakeMux) AnswerPermission(id, optionID string) error {
	f.call("answer " + optionID)
	return nil
}

// rig is a model on a real store in a temp folder with the fake mux.
type rig struct {
	t     testing.TB
	root  string
	store *sessions.Store
	fake  *fakeMux
	m     *Model
	cfg   *config.Config
	table *harness.Table
	quit  bool // the model asked to quit
}

// plainCommon is the app's styles without colour and its default keys,
// for a test that draws one view.
func plainCommon() *Common {
	return &Common{Styles: NewStyles(asciiRenderer(), false), Keys: config.Defaults().KeyMap()}
}

// asciiRenderer draws with no colour or attributes, for stable text.
func asciiRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.Ascii)
	return r
}

func newRig(t testing.TB, cfg *config.Config) *rig {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	store, err := sessions.OpenStore(filepath.Join(root, "agent"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg == nil {
		cfg = config.Defaults()
	}
	table, err := harness.NewTable(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Rig tests send chatsChangedMsg themselves: with no channel of
	// notices, no command waits on one, and run settles.
	fake := newFakeMux(store)
	fake.changes, fake.notices, fake.table = nil, nil, table
	return &rig{t: t, root: root, store: store, fake: fake, cfg: cfg, table: table}
}

// open builds the model over the chats stored now and gives it a size.
func (r *rig) open(opt Options) *Model {
	r.t.Helper()
	entries, err := r.store.List()
	if err != nil {
		r.t.Fatal(err)
	}
	opt.Table, opt.Config, opt.Home = r.table, r.cfg, r.store.Home()
	if opt.Mux == nil {
		opt.Mux = r.fake
	}
	opt.Renderer, opt.Entries = asciiRenderer(), entries
	opt.Tick = -1
	if opt.UserHome == "" {
		opt.UserHome = r.root
	}
	opt.Now = func() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) }
	r.m = New(opt)
	r.t.Cleanup(r.m.Close)
	r.run(func() tea.Msg { return tea.WindowSizeMsg{Width: 100, Height: 30} })
	return r.m
}

// create stores a chat.
func (r *rig) create(n sessions.NewChat) *sessions.Meta {
	r.t.Helper()
	if n.Harness == "" {
		n.Harness = "shell"
	}
	m, err := r.store.Create(n)
	if err != nil {
		r.t.Fatal(err)
	}
	return m
}

// run delivers what cmd produces to the model, and what the model's
// answers produce, until nothing is left: the commands of a key press run
// to the end, as the program would run them. Commands that wait on the
// mux's notices are not used here (tests send chatsChangedMsg themselves),
// and ticks are off.
func (r *rig) run(cmd tea.Cmd) {
	r.t.Helper()
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 1000 {
			r.t.Fatal("commands do not settle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tea.QuitMsg:
			r.quit = true
		default:
			_, next := r.m.Update(msg)
			queue = append(queue, next)
		}
	}
}

// key presses keys, each a key name as Bubble Tea reports it or text.
func (r *rig) key(keys ...tea.KeyMsg) {
	r.t.Helper()
	for _, k := range keys {
		r.run(func() tea.Msg { return k })
	}
}

// typeText types text rune by rune.
func (r *rig) typeText(s string) {
	r.t.Helper()
	for _, c := range s {
		r.key(runeKey(c))
	}
}

func runeKey(c rune) tea.KeyMsg {
	if c == ' ' {
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{c}}
}

func keyOf(t tea.KeyType) tea.KeyMsg { return tea.KeyMsg{Type: t} }

// selectedID returns the id of the selected chat.
func (r *rig) selectedID() string {
	e, _ := r.m.sidebar.Selected()
	return e.ID
}

// order returns the ids in the sidebar's order, as filtered.
func (r *rig) order() []string {
	var ids []string
	for _, i := range r.m.sidebar.rows {
		ids = append(ids, r.m.sidebar.all[i].entry.ID)
	}
	return ids
}

// nextWrite waits (with a deadline) for the next input the fake harness
// received.
func (r *rig) nextWrite() writeReq {
	r.t.Helper()
	select {
	case w := <-r.fake.writes:
		return w
	case <-time.After(10 * time.Second):
		r.t.Fatal("no input reached the harness")
	}
	return writeReq{}
}

// History is a pty chat's terminal text: its screen's lines.
func (f *fakeMux) History(id string, maxBytes int) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.screens[id] == "" {
		return nil
	}
	return strings.Split(f.screens[id], "\n")
}

// bundleFake is what the fake server does with bundles: an export answers
// with exportErr or a report of the path given; a dry run answers with
// dryRep (or dryErr) and writes nothing; an import stores a chat named and
// made as dryRep says, with origin import, as the server would, unless
// importErr refuses it.
type bundleFake struct {
	exportErr, dryErr, importErr error
	exportRep                    proto.ExportReport
	dryRep                       proto.ImportReport
}

// Export records "export ID PATH" and answers as the test set.
func (f *fakeMux) Export(id, path string) (proto.ExportReport, error) {
	f.call("export " + id + " " + path)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.bundles.exportErr != nil {
		return proto.ExportReport{}, f.bundles.exportErr
	}
	rep := f.bundles.exportRep
	rep.ID, rep.Path = id, path
	return rep, nil
}

// Import records "import PATH ROOT,ROOT dry" (or without " dry") and
// answers as the test set; only a real import stores a chat.
func (f *fakeMux) Import(path string, roots []string, dryRun bool) (proto.ImportReport, error) {
	call := "import " + path + " " + strings.Join(roots, ",")
	if dryRun {
		call += " dry"
	}
	f.call(call)
	f.mu.Lock()
	b := f.bundles
	f.mu.Unlock()
	switch {
	case dryRun && b.dryErr != nil:
		return proto.ImportReport{}, b.dryErr
	case dryRun:
		rep := b.dryRep
		rep.DryRun = true
		return rep, nil
	case b.importErr != nil:
		return proto.ImportReport{}, b.importErr
	}
	m, err := f.store.Create(sessions.NewChat{Name: b.dryRep.Name, Harness: b.dryRep.Harness, Cwd: b.dryRep.Cwd,
		AdditionalDirectories: b.dryRep.Kept, Parent: b.dryRep.Parent, Origin: sessions.OriginImport})
	if err != nil {
		return proto.ImportReport{}, err
	}
	rep := b.dryRep
	rep.ID, rep.Name = m.ID, m.Name
	return rep, nil
}
