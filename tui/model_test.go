package tui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/mux/screen"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

func (r *rig) dir(rel string) string {
	r.t.Helper()
	p := filepath.Join(r.root, rel)
	if err := os.MkdirAll(p, 0o755); err != nil {
		r.t.Fatal(err)
	}
	return p
}

var (
	keyJ     = runeKey('j')
	keyK     = runeKey('k')
	keyEnter = keyOf(tea.KeyEnter)
	keyEscK  = keyOf(tea.KeyEsc)
)

func TestNavigationFollowsTheTree(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "alpha"})
	r.create(sessions.NewChat{Name: "beta"})
	fork, err := r.store.Derive(a.ID, sessions.Derivation{Origin: sessions.OriginFork})
	if err != nil {
		t.Fatal(err)
	}
	r.open(Options{})
	// The list is in creation order (then id, within a second); the fork
	// comes right after its parent whatever its place in the list.
	var want []string
	list, _ := r.store.List()
	for _, e := range list {
		if e.ID != fork.ID {
			want = append(want, e.ID)
		}
		if e.ID == a.ID {
			want = append(want, fork.ID)
		}
	}
	if got := r.order(); !slices.Equal(got, want) {
		t.Fatalf("order %v, want the fork under its parent %v", got, want)
	}
	if r.selectedID() != want[0] {
		t.Fatalf("first selected %s", r.selectedID())
	}
	r.key(keyJ)
	if r.selectedID() != want[1] {
		t.Errorf("j selected %s, want %s", r.selectedID(), want[1])
	}
	r.key(keyOf(tea.KeyDown), keyJ) // past the end stays on the last
	if r.selectedID() != want[2] {
		t.Errorf("down, j selected %s", r.selectedID())
	}
	r.key(keyK, keyOf(tea.KeyUp))
	if r.selectedID() != want[0] {
		t.Errorf("k, up selected %s", r.selectedID())
	}
	// Keys typed faster than one read arrive as one message: each counts.
	r.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jj")})
	if r.selectedID() != want[2] {
		t.Errorf("jj in one read selected %s, want %s", r.selectedID(), want[2])
	}
	r.key(keyK, keyK)
	view := r.m.View()
	if !strings.Contains(view, "↳ alpha (fork)") || !strings.Contains(view, "summary") {
		t.Errorf("view:\n%s", view)
	}
	// Moving selects; it never starts a harness.
	if calls := r.fake.Calls(); slices.ContainsFunc(calls, func(c string) bool { return strings.HasPrefix(c, "start") }) {
		t.Errorf("selection started a harness: %v", calls)
	}
}

// TestTreeKeepsOrphansAndAncestors: a chat whose parent was deleted stays
// listed, as a root marked as an orphan, and its summary says the parent
// is gone; a filter that matches a fork keeps the fork's parent in view,
// so the tree never shows the fork under another chat.
func TestTreeKeepsOrphansAndAncestors(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "alpha"})
	b := r.create(sessions.NewChat{Name: "beta"})
	forkB, err := r.store.Derive(b.ID, sessions.Derivation{Origin: sessions.OriginFork, Name: "zebra"})
	if err != nil {
		t.Fatal(err)
	}
	side, err := r.store.Derive(a.ID, sessions.Derivation{Origin: sessions.OriginSide})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.store.Remove(a.ID, true); err != nil {
		t.Fatal(err)
	}
	r.open(Options{})
	// Chats made within a second are listed by id: only the fork's place
	// right under its parent is fixed.
	if got := r.order(); len(got) != 3 || !slices.Contains(got, side.ID) || slices.Index(got, forkB.ID) != slices.Index(got, b.ID)+1 {
		t.Fatalf("order %v: want %s, then its fork %s, and the orphan %s", got, b.ID, forkB.ID, side.ID)
	}
	view := r.m.View()
	if !strings.Contains(view, "↰ alpha (side)") || !strings.Contains(view, "↳ zebra") {
		t.Errorf("the orphan or the fork is not marked:\n%s", view)
	}
	if !r.m.sidebar.Select(side.ID) {
		t.Fatal("the orphan cannot be selected")
	}
	r.run(r.m.selectionChanged())
	if !r.m.summary.info.ParentGone {
		t.Error("the summary is not told the parent is gone")
	}
	r.run(func() tea.Msg { return tea.WindowSizeMsg{Width: 140, Height: 50} }) // room for the title line
	if view := r.m.View(); !strings.Contains(view, "side of "+a.ID+" (deleted)") {
		t.Errorf("the summary does not say the parent is gone:\n%s", view)
	}

	r.key(runeKey('/'))
	r.typeText("zebra")
	if got := r.order(); !slices.Equal(got, []string{b.ID, forkB.ID}) {
		t.Errorf("filter zebra shows %v, want the fork under its parent", got)
	}
	r.key(keyEscK)
	r.key(runeKey('/'))
	r.typeText("beta")
	if got := r.order(); !slices.Equal(got, []string{b.ID}) {
		t.Errorf("filter beta shows %v, want the parent alone", got)
	}
}

func TestFilterByNameHarnessAndFolder(t *testing.T) {
	r := newRig(t, nil)
	lib := r.dir("src/lib")
	a := r.create(sessions.NewChat{Name: "parser work", AdditionalDirectories: []string{lib}})
	b := r.create(sessions.NewChat{Name: "notes", Harness: "claude"})
	c := r.create(sessions.NewChat{Name: "scratch"})
	r.open(Options{})
	r.key(runeKey('/'))
	if !r.m.sidebar.Filtering() {
		t.Fatal("/ did not start the filter")
	}
	r.typeText("lib")
	if got := r.order(); !slices.Equal(got, []string{a.ID}) {
		t.Errorf("filter lib (a folder): %v", got)
	}
	// While filtering, letters are text, not actions: j did not move, q did
	// not quit.
	r.key(keyOf(tea.KeyBackspace), keyOf(tea.KeyBackspace), keyOf(tea.KeyBackspace))
	r.typeText("CLAUDE")
	if got := r.order(); !slices.Equal(got, []string{b.ID}) || r.quit {
		t.Errorf("filter claude (a harness): %v quit=%v", got, r.quit)
	}
	r.key(keyEnter) // keep the filter, leave the field
	if r.m.sidebar.Filtering() || r.m.sidebar.FilterText() != "CLAUDE" {
		t.Errorf("enter: filtering=%v text=%q", r.m.sidebar.Filtering(), r.m.sidebar.FilterText())
	}
	if !strings.Contains(r.m.View(), "chats 1/3") {
		t.Errorf("title lacks the count:\n%s", r.m.View())
	}
	r.key(keyEscK)
	if got := r.order(); len(got) != 3 || !slices.Contains(got, c.ID) {
		t.Errorf("esc cleared to %v", got)
	}
	r.key(runeKey('/'))
	r.typeText("scr")
	r.key(keyEscK)
	if got := r.order(); len(got) != 3 || r.selectedID() != c.ID {
		t.Errorf("esc while typing: %v, selected %s", got, r.selectedID())
	}
}

func TestKeyRebinding(t *testing.T) {
	cfg, err := config.Parse([]byte("[keys]\ndown = \"u\"\nup = [\"i\", \"up\"]\nquit = \"ctrl+q\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, cfg)
	r.create(sessions.NewChat{Name: "a"})
	r.create(sessions.NewChat{Name: "b"})
	r.open(Options{})
	order := r.order()
	first, second := order[0], order[1]
	r.key(keyJ)
	if r.selectedID() != first {
		t.Errorf("j still moves after rebinding down to u")
	}
	r.key(runeKey('u'))
	if r.selectedID() != second {
		t.Errorf("u did not move down")
	}
	r.key(runeKey('i'))
	if r.selectedID() != first {
		t.Errorf("i did not move up")
	}
	r.key(runeKey('q'))
	if r.quit {
		t.Errorf("q quits after quit was rebound to ctrl+q")
	}
	r.key(keyOf(tea.KeyCtrlQ))
	if !r.quit {
		t.Errorf("ctrl+q did not quit")
	}
	if !strings.Contains(r.m.View(), "ctrl+q quit") {
		t.Errorf("help bar does not show the new binding:\n%s", r.m.View())
	}
}

func TestOpenStartsTheHarnessAndSendsKeys(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "a"})
	r.open(Options{})
	r.key(keyEnter)
	if !slices.Contains(r.fake.Calls(), "start "+a.ID) || !r.m.pane.Focused() {
		t.Fatalf("enter: calls %v, focused %v", r.fake.Calls(), r.m.pane.Focused())
	}
	r.m.Update(chatsChangedMsg{ids: []string{a.ID}})
	if !strings.Contains(r.m.View(), "ready>") {
		t.Errorf("the screen is not drawn:\n%s", r.m.View())
	}
	// Keys go to the harness, q and n included, in order.
	r.typeText("qn")
	r.key(keyEnter, keyOf(tea.KeyBackspace), keyOf(tea.KeyUp), keyOf(tea.KeyCtrlC), tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("é"), Alt: true})
	want := []string{"q", "n", "\r", "\x7f", "\x1b[A", "\x03", "\x1bé"}
	for _, w := range want {
		if got := r.nextWrite(); got.id != a.ID || string(got.b) != w {
			t.Errorf("harness got %q for %s, want %q", got.b, got.id, w)
		}
	}
	if r.quit {
		t.Error("q quit while the chat had the keyboard")
	}
	// Application cursor keys and bracketed paste follow the harness's modes.
	r.fake.mu.Lock()
	r.fake.terms[a.ID] = mux.Terminal{Modes: screen.Modes{AppCursor: true, BracketedPaste: true}}
	r.fake.mu.Unlock()
	r.m.Update(chatsChangedMsg{ids: []string{a.ID}})
	r.key(keyOf(tea.KeyUp), tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("two\nlines"), Paste: true})
	for _, w := range []string{"\x1bOA", "\x1b[200~two\nlines\x1b[201~"} {
		if got := r.nextWrite(); string(got.b) != w {
			t.Errorf("harness got %q, want %q", got.b, w)
		}
	}
	r.key(keyOf(tea.KeyCtrlCloseBracket))
	if r.m.pane.Focused() {
		t.Fatal("ctrl+] did not leave the chat")
	}
	r.key(keyJ) // back on the sidebar: j is a sidebar key again
	select {
	case w := <-r.fake.writes:
		t.Errorf("a sidebar key reached the harness: %q", w.b)
	default:
	}
}

func TestLaunchOpensTheFlagsChat(t *testing.T) {
	r := newRig(t, nil)
	r.create(sessions.NewChat{Name: "old"})
	b := r.create(sessions.NewChat{Name: "launched"})
	r.open(Options{Open: b.ID})
	if r.selectedID() != b.ID || !r.m.pane.Focused() || !slices.Contains(r.fake.Calls(), "start "+b.ID) {
		t.Errorf("launch: selected %s focused %v calls %v", r.selectedID(), r.m.pane.Focused(), r.fake.Calls())
	}
	if !slices.Contains(r.fake.Calls(), "resize 70x18") {
		t.Errorf("ptys not sized to the chat pane: %v", r.fake.Calls())
	}
}

func TestStartRefusedForAGoneFolder(t *testing.T) {
	r := newRig(t, nil)
	keep, gone := r.dir("keep"), r.dir("gone")
	a := r.create(sessions.NewChat{Name: "a", AdditionalDirectories: []string{keep, gone}})
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	r.open(Options{})
	// The check runs when the chat is selected; the summary flags it.
	r.run(checkFolders(sessions.Entry{ID: a.ID, Meta: a}))
	view := r.m.View()
	if !strings.Contains(view, "✗ does not exist") || !strings.Contains(view, "M remove missing folders •") {
		t.Fatalf("summary does not flag the gone folder:\n%s", view)
	}
	r.fake.startErr[a.ID] = &mux.FoldersGoneError{ChatID: a.ID, Problems: []sessions.FolderProblem{{Index: 1, Path: gone, Reason: "does not exist"}}}
	r.key(keyEnter)
	if r.m.pane.Focused() || !r.m.isErr || !strings.Contains(r.m.status, "not started") {
		t.Errorf("refused start: focused %v status %q", r.m.pane.Focused(), r.m.status)
	}
	r.key(runeKey('M'))
	m, err := r.store.Load(a.ID)
	if err != nil || !slices.Equal(m.AdditionalDirectories, []string{keep}) {
		t.Fatalf("after M: %v %v", m.AdditionalDirectories, err)
	}
	if v := r.m.View(); strings.Contains(v, "✗ does not exist") || strings.Contains(v, "M remove missing folders •") {
		t.Errorf("still flagged after M:\n%s", r.m.View())
	}
}

func TestPickerRefusesInlineAndStoresOnAccept(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "a"})
	extra := r.dir("extra")
	r.open(Options{})
	before, _ := os.ReadFile(r.store.ChatPath(a.ID))
	r.key(runeKey('a'))
	p, ok := r.m.dialog.(*FolderPicker)
	if !ok {
		t.Fatalf("a opened %T", r.m.dialog)
	}
	r.key(keyOf(tea.KeyCtrlU))
	// Runes typed faster than one read arrive as one key; "end" must stay
	// text, not the end binding.
	r.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("end")})
	if !strings.Contains(p.path.Value(), "end") {
		t.Fatalf("quickly typed %q became %q", "end", p.path.Value())
	}
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText("rel/dir")
	r.key(keyEnter)
	if !strings.Contains(p.ErrText(), "-32602") || !strings.Contains(p.ErrText(), `[0] "rel/dir": not an absolute path`) {
		t.Fatalf("refusal not shown inline: %q", p.ErrText())
	}
	if !strings.Contains(r.m.View(), "invalid params (-32602)") {
		t.Errorf("refusal not on screen:\n%s", r.m.View())
	}
	if after, _ := os.ReadFile(r.store.ChatPath(a.ID)); string(after) != string(before) {
		t.Fatalf("a refusal changed the chat file:\n%s", after)
	}
	// Accept with nothing chosen stores nothing either.
	r.key(keyOf(tea.KeyCtrlS))
	if r.m.dialog == nil || !strings.Contains(p.ErrText(), "nothing selected") {
		t.Fatalf("empty accept: dialog %v err %q", r.m.dialog, p.ErrText())
	}
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText(extra)
	r.key(keyEnter)
	if p.ErrText() != "" || !slices.Equal(p.Chosen(), []string{extra}) {
		t.Fatalf("typed folder: err %q chosen %v", p.ErrText(), p.Chosen())
	}
	if after, _ := os.ReadFile(r.store.ChatPath(a.ID)); string(after) != string(before) {
		t.Fatal("choosing stored before accept")
	}
	// To the accept button with tab from the list, and enter.
	r.key(keyOf(tea.KeyDown), keyOf(tea.KeyTab))
	if p.focus != pickAccept {
		t.Fatalf("focus %d, want the accept button", p.focus)
	}
	r.key(keyEnter)
	m, err := r.store.Load(a.ID)
	if err != nil || !slices.Equal(m.AdditionalDirectories, []string{extra}) {
		t.Fatalf("after accept: %v %v", m.AdditionalDirectories, err)
	}
	if r.m.dialog != nil || !strings.Contains(r.m.status, "1 folder added") {
		t.Errorf("after accept: dialog %v status %q", r.m.dialog, r.m.status)
	}
}

func TestPickerBrowsesAndCompletes(t *testing.T) {
	r := newRig(t, nil)
	r.dir("tree/alpha/inner")
	r.dir("tree/beta")
	r.dir("tree/.hidden")
	a := r.create(sessions.NewChat{Name: "a"})
	r.open(Options{})
	r.key(runeKey('a'))
	p := r.m.dialog.(*FolderPicker)
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText(filepath.Join(r.root, "tree") + "/")
	if got := p.path.Matches(); !slices.Equal(got, []string{"alpha", "beta"}) {
		t.Fatalf("listing %v", got)
	}
	r.typeText("al")
	r.key(keyOf(tea.KeyTab))
	if got := p.path.Value(); got != filepath.Join(r.root, "tree/alpha")+"/" {
		t.Fatalf("tab completed to %q", got)
	}
	// Browse: down into the list, space selects, left goes up, the other.
	r.key(keyOf(tea.KeyDown), keyOf(tea.KeySpace), keyOf(tea.KeyLeft))
	r.key(keyOf(tea.KeyDown), keyOf(tea.KeySpace))
	want := []string{filepath.Join(r.root, "tree/alpha/inner"), filepath.Join(r.root, "tree/beta")}
	if !slices.Equal(p.Chosen(), want) {
		t.Fatalf("chosen %v, want %v", p.Chosen(), want)
	}
	r.key(keyOf(tea.KeyCtrlS))
	m, _ := r.store.Load(a.ID)
	if !slices.Equal(m.AdditionalDirectories, want) {
		t.Fatalf("stored %v", m.AdditionalDirectories)
	}
	// Esc closes without storing.
	r.key(runeKey('a'), keyEscK)
	if r.m.dialog != nil {
		t.Error("esc did not close the picker")
	}
}

func TestNewChatDialog(t *testing.T) {
	r := newRig(t, nil)
	proj := r.dir("proj")
	r.open(Options{DefaultHarness: "shell"})
	r.key(runeKey('n'))
	d, ok := r.m.dialog.(*NewChatDialog)
	if !ok {
		t.Fatalf("n opened %T", r.m.dialog)
	}
	// Folders through the picker: a relative one is refused inline there.
	r.key(keyOf(tea.KeyDown), keyOf(tea.KeyDown), keyEnter)
	if d.Picker() == nil {
		t.Fatal("enter on folders did not open the picker")
	}
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText("not/absolute")
	r.key(keyEnter)
	if !strings.Contains(d.Picker().ErrText(), "-32602") {
		t.Fatalf("picker refusal: %q", d.Picker().ErrText())
	}
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText(r.dir("lib"))
	r.key(keyEnter, keyOf(tea.KeyCtrlS))
	if d.Picker() != nil || !slices.Equal(d.folders, []string{r.dir("lib")}) {
		t.Fatalf("picker did not hand the folders back: %v", d.folders)
	}
	// A project folder that does not exist refuses the creation inline.
	r.key(keyOf(tea.KeyUp))
	r.typeText(filepath.Join(r.root, "nope"))
	r.key(keyOf(tea.KeyCtrlS))
	if !strings.Contains(d.ErrText(), "does not exist") || r.m.dialog == nil {
		t.Fatalf("bad project: %q", d.ErrText())
	}
	if list, _ := r.store.List(); len(list) != 0 {
		t.Fatalf("a refusal created %v", list)
	}
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText(proj)
	r.key(keyOf(tea.KeyDown), keyOf(tea.KeyDown))
	r.typeText("my chat")
	r.key(keyOf(tea.KeyCtrlS))
	if r.m.dialog != nil {
		t.Fatalf("dialog still open: %q", d.ErrText())
	}
	list, _ := r.store.List()
	if len(list) != 1 || list[0].Meta.Name != "my chat" || list[0].Meta.Cwd != proj || !slices.Equal(list[0].Meta.AdditionalDirectories, []string{r.dir("lib")}) {
		t.Fatalf("created %+v", list)
	}
	if r.selectedID() != list[0].ID || !r.m.pane.Focused() {
		t.Errorf("the new chat is not opened: selected %s", r.selectedID())
	}
}

func TestEmptyHomeOffersAFirstChat(t *testing.T) {
	r := newRig(t, nil)
	r.open(Options{DefaultHarness: "shell"})
	if v := r.m.View(); !strings.Contains(v, "No chats yet") || !strings.Contains(v, "a shell chat in an empty folder") {
		t.Fatalf("empty home:\n%s", v)
	}
	r.key(keyEnter)
	list, _ := r.store.List()
	if len(list) != 1 || list[0].Meta.Harness != "shell" || !r.store.NoProject(list[0].Meta) {
		t.Fatalf("first chat: %+v", list)
	}
	if !slices.Contains(r.fake.Calls(), "start "+list[0].ID) || !r.m.pane.Focused() {
		t.Errorf("first chat not started and opened: %v", r.fake.Calls())
	}
}

func TestDeleteAsksFirst(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "doomed"})
	r.open(Options{})
	r.key(runeKey('D'))
	if _, ok := r.m.dialog.(*Confirm); !ok || !strings.Contains(r.m.View(), `Delete "doomed"`) {
		t.Fatalf("D: %T\n%s", r.m.dialog, r.m.View())
	}
	r.key(runeKey('n'))
	if r.m.dialog != nil {
		t.Fatal("n did not close")
	}
	if _, err := r.store.Load(a.ID); err != nil {
		t.Fatal("n deleted the chat")
	}
	r.key(runeKey('D'), runeKey('y'))
	if _, err := r.store.Load(a.ID); err == nil {
		t.Fatal("y did not delete")
	}
	if !slices.Contains(r.fake.Calls(), "forget "+a.ID) || r.m.sidebar.Len() != 0 {
		t.Errorf("after delete: calls %v, %d listed", r.fake.Calls(), r.m.sidebar.Len())
	}
}

func TestForkSideAndHandoff(t *testing.T) {
	r := newRig(t, nil)
	lib := r.dir("lib")
	a := r.create(sessions.NewChat{Name: "base", AdditionalDirectories: []string{lib}})
	r.open(Options{})
	r.key(runeKey('f'))
	fork := r.chatOf("fork")
	if fork == nil || fork.Parent != a.ID || !slices.Equal(fork.AdditionalDirectories, []string{lib}) {
		t.Fatalf("fork: %+v", fork)
	}
	if r.selectedID() != fork.ID || !slices.Contains(r.fake.Calls(), "start "+fork.ID) {
		t.Errorf("the fork is not opened")
	}
	r.key(keyOf(tea.KeyCtrlCloseBracket), keyK, runeKey('h'))
	ch, ok := r.m.dialog.(*Chooser)
	if !ok {
		t.Fatalf("h opened %T", r.m.dialog)
	}
	if slices.Contains(ch.items, "shell") {
		t.Errorf("handoff offers the chat's own harness: %v", ch.items)
	}
	r.key(keyEnter, keyCtrlS) // choose, then send the capsule as reviewed
	if h := r.chatOf("handoff"); h == nil || h.Harness != ch.items[0] || h.Parent != a.ID {
		t.Fatalf("handoff: %+v", h)
	}
}

// chatOf returns the stored chat of an origin.
func (r *rig) chatOf(origin string) *sessions.Meta {
	list, _ := r.store.List()
	for _, e := range list {
		if e.Meta != nil && e.Meta.Origin == origin {
			return e.Meta
		}
	}
	return nil
}

func TestChangesAreCoalescedPerFrame(t *testing.T) {
	// A flood of notices for two chats within one frame is one message
	// naming each chat once. (The channel is closed so the frame ends when
	// the notices do, with no clock involved.)
	ch := make(chan string, 100)
	for range 50 {
		ch <- "a"
		ch <- "b"
	}
	close(ch)
	var gate changeGate
	msg := waitChanges(ch, time.Hour, &gate)().(chatsChangedMsg)
	if !slices.Equal(msg.ids, []string{"a", "b"}) {
		t.Fatalf("ids %v", msg.ids)
	}
}

// TestChangeAfterQuietGoesAtOnce: the first notice after a frame of quiet
// is handed over with what is already queued, without waiting for the
// frame (the frame here is an hour: a wait would hang the test); one within
// a frame of the last delivery waits for that frame.
func TestChangeAfterQuietGoesAtOnce(t *testing.T) {
	ch := make(chan string, 10)
	ch <- "a"
	ch <- "b"
	var gate changeGate
	msg := waitChanges(ch, time.Hour, &gate)().(chatsChangedMsg)
	if !slices.Equal(msg.ids, []string{"a", "b"}) {
		t.Fatalf("ids %v", msg.ids)
	}
	ch <- "c"
	got := make(chan tea.Msg, 1)
	go func() { got <- waitChanges(ch, time.Hour, &gate)() }()
	select {
	case m := <-got:
		t.Fatalf("a notice within the frame went at once: %v", m)
	case <-time.After(50 * time.Millisecond):
	}
	close(ch) // ends the frame's gathering
	if m := (<-got).(chatsChangedMsg); !slices.Equal(m.ids, []string{"c"}) {
		t.Fatalf("ids %v", m.ids)
	}
}

func TestEncodeKey(t *testing.T) {
	for _, tc := range []struct {
		k     tea.KeyMsg
		modes screen.Modes
		want  string
	}{
		{runeKey('x'), screen.Modes{}, "x"},
		{keyOf(tea.KeySpace), screen.Modes{}, " "},
		{keyOf(tea.KeyEnter), screen.Modes{}, "\r"},
		{keyOf(tea.KeyTab), screen.Modes{}, "\t"},
		{keyOf(tea.KeyShiftTab), screen.Modes{}, "\x1b[Z"},
		{keyOf(tea.KeyEsc), screen.Modes{}, "\x1b"},
		{keyOf(tea.KeyBackspace), screen.Modes{}, "\x7f"},
		{keyOf(tea.KeyCtrlA), screen.Modes{}, "\x01"},
		{keyOf(tea.KeyCtrlZ), screen.Modes{}, "\x1a"},
		{keyOf(tea.KeyLeft), screen.Modes{}, "\x1b[D"},
		{keyOf(tea.KeyLeft), screen.Modes{AppCursor: true}, "\x1bOD"},
		{keyOf(tea.KeyHome), screen.Modes{}, "\x1b[H"},
		{keyOf(tea.KeyEnd), screen.Modes{AppCursor: true}, "\x1bOF"},
		{keyOf(tea.KeyCtrlRight), screen.Modes{}, "\x1b[1;5C"},
		{keyOf(tea.KeyShiftUp), screen.Modes{}, "\x1b[1;2A"},
		{keyOf(tea.KeyPgUp), screen.Modes{}, "\x1b[5~"},
		{keyOf(tea.KeyPgDown), screen.Modes{}, "\x1b[6~"},
		{keyOf(tea.KeyDelete), screen.Modes{}, "\x1b[3~"},
		{keyOf(tea.KeyF1), screen.Modes{}, "\x1bOP"},
		{keyOf(tea.KeyF12), screen.Modes{}, "\x1b[24~"},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("b"), Alt: true}, screen.Modes{}, "\x1bb"},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("pasted"), Paste: true}, screen.Modes{}, "pasted"},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("pasted"), Paste: true}, screen.Modes{BracketedPaste: true}, "\x1b[200~pasted\x1b[201~"},
	} {
		if got := string(encodeKey(tc.k, tc.modes)); got != tc.want {
			t.Errorf("%v %+v: %q, want %q", tc.k, tc.modes, got, tc.want)
		}
	}
	if got := string(encodeWheel(true, 4, 2, screen.Modes{MouseTracking: 1000, MouseSGR: true})); got != "\x1b[<64;5;3M" {
		t.Errorf("wheel: %q", got)
	}
	if encodeWheel(true, 0, 0, screen.Modes{}) != nil {
		t.Error("wheel sent to a harness that does not track the mouse")
	}
}

func TestACPChatPromptPermissionAndCancel(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "agent", Harness: "opencode"})
	r.open(Options{})
	r.key(keyEnter)
	if !slices.Contains(r.fake.Calls(), "start "+a.ID) || !r.m.pane.IsACP() {
		t.Fatalf("enter on an ACP chat: %v", r.fake.Calls())
	}
	r.fake.mu.Lock()
	r.fake.transcripts[a.ID] = []mux.Entry{{Kind: mux.EntryUser, Text: "earlier question"}, {Kind: mux.EntryAgent, Text: "the agent's answer"}}
	r.fake.mu.Unlock()
	r.m.Update(chatsChangedMsg{ids: []string{a.ID}})
	v := r.m.View()
	if !strings.Contains(v, "> earlier question") || !strings.Contains(v, "the agent's answer") || !strings.Contains(v, "enter sends") {
		t.Fatalf("transcript and input not drawn:\n%s", v)
	}
	// Letters go to the prompt input (q does not quit); enter sends.
	r.typeText("quick question")
	r.key(keyEnter)
	if !slices.Contains(r.fake.Calls(), "prompt "+a.ID+" quick question") || r.quit {
		t.Fatalf("prompt not sent: %v", r.fake.Calls())
	}
	// A permission card is answered with a digit.
	r.fake.set(a.ID, mux.State{Status: mux.StatusRunning, TurnActive: true, Permission: &mux.Permission{
		Title: "edit main.go", Options: []mux.PermissionOption{{ID: "allow", Name: "Allow once"}, {ID: "reject", Name: "Reject"}}}}, "")
	r.m.Update(chatsChangedMsg{ids: []string{a.ID}})
	if v := r.m.View(); !strings.Contains(v, "⚠ permission: edit main.go") || !strings.Contains(v, "1 Allow once · 2 Reject") {
		t.Fatalf("permission card not drawn:\n%s", v)
	}
	r.key(runeKey('2'))
	if !slices.Contains(r.fake.Calls(), "answer reject") {
		t.Fatalf("2 did not answer: %v", r.fake.Calls())
	}
	// Esc cancels a running turn.
	r.fake.set(a.ID, mux.State{Status: mux.StatusRunning, TurnActive: true}, "")
	r.m.Update(chatsChangedMsg{ids: []string{a.ID}})
	r.key(keyEscK)
	if !slices.Contains(r.fake.Calls(), "cancel "+a.ID) || !r.m.pane.Focused() {
		t.Fatalf("esc: %v focused %v", r.fake.Calls(), r.m.pane.Focused())
	}
}

func TestScrollbackScrollsWhenNotFocused(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "a"})
	r.open(Options{})
	r.fake.set(a.ID, mux.State{Status: mux.StatusRunning}, "live screen")
	r.fake.terms[a.ID] = mux.Terminal{Scrollback: 100, Cols: 70, Rows: 18}
	r.m.Update(chatsChangedMsg{ids: []string{a.ID}})
	r.key(keyOf(tea.KeyPgUp))
	if got := r.m.pane.Scrolled(); got != 17 {
		t.Errorf("pgup scrolled %d lines, want a page (17)", got)
	}
	if !strings.Contains(r.m.View(), "scrolled back 17 lines") {
		t.Errorf("title does not say so:\n%s", r.m.View())
	}
	r.run(func() tea.Msg {
		return tea.MouseMsg{X: 60, Y: 20, Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress}
	})
	if got := r.m.pane.Scrolled(); got != 20 {
		t.Errorf("wheel up: %d", got)
	}
	r.key(keyOf(tea.KeyPgDown), keyOf(tea.KeyPgDown))
	if got := r.m.pane.Scrolled(); got != 0 {
		t.Errorf("pgdn back: %d", got)
	}
	r.run(func() tea.Msg {
		return tea.MouseMsg{X: 60, Y: 20, Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress}
	})
	r.fake.terms[a.ID] = mux.Terminal{Scrollback: 2, Cols: 70, Rows: 18}
	r.key(keyOf(tea.KeyPgUp))
	if got := r.m.pane.Scrolled(); got != 2 {
		t.Errorf("scrolled past the scrollback: %d", got)
	}
}

func TestNoColorKeepsAttributesOnly(t *testing.T) {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.TrueColor)
	colour, plain := NewStyles(r, true), NewStyles(r, false)
	if got := colour.Error.Render("x"); !strings.Contains(got, "\x1b[31m") && !strings.Contains(got, "31") {
		t.Errorf("colour styles have no colour: %q", got)
	}
	for _, st := range []lipgloss.Style{plain.Error, plain.Dim, plain.Title, plain.Selected, plain.OK} {
		got := st.Render("x")
		for _, sgr := range []string{"[3", ";3", "[4", ";4", "[9", "38;", "48;"} {
			if strings.Contains(got, sgr) {
				t.Errorf("NO_COLOR style draws colour: %q", got)
			}
		}
	}
	if got := plain.Mark(mux.State{Status: mux.StatusRunning}, false); got != "●" {
		t.Errorf("NO_COLOR mark %q", got)
	}
}

func TestAnySizeDraws(t *testing.T) {
	r := newRig(t, nil)
	lib := r.dir("lib")
	r.create(sessions.NewChat{Name: "a chat with a rather long name", AdditionalDirectories: []string{lib}})
	r.open(Options{})
	for _, size := range [][2]int{{1, 1}, {10, 3}, {20, 5}, {40, 10}, {59, 12}, {80, 24}, {300, 100}} {
		r.run(func() tea.Msg { return tea.WindowSizeMsg{Width: size[0], Height: size[1]} })
		for _, k := range []tea.KeyMsg{runeKey('a'), keyEscK, runeKey('n'), keyEscK, runeKey('?')} {
			r.key(k)
			lines := strings.Split(r.m.View(), "\n")
			if len(lines) != size[1] {
				t.Errorf("%dx%d after %v: %d lines", size[0], size[1], k, len(lines))
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > size[0] {
					t.Errorf("%dx%d after %v: line %d is %d wide: %q", size[0], size[1], k, i, w, l)
					break
				}
			}
		}
		r.key(keyEscK)
	}
}

func TestListFollowsOtherProcessesWrites(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "first"})
	r.open(Options{})
	r.run(func() tea.Msg { return storeWatchMsg{time.Unix(100, 0)} })
	// Another process adds a chat and a folder to the first one.
	r.create(sessions.NewChat{Name: "from elsewhere"})
	if _, err := r.store.AddFolders(a.ID, []string{r.dir("lib")}); err != nil {
		t.Fatal(err)
	}
	r.run(func() tea.Msg { return storeWatchMsg{time.Unix(200, 0)} })
	if got := len(r.order()); got != 2 {
		t.Fatalf("%d chats listed after another process wrote one, want 2", got)
	}
	if r.selectedID() != a.ID || !strings.Contains(r.m.View(), filepath.Join(r.root, "lib")) {
		t.Fatalf("selection %s; the folder added elsewhere is not shown:\n%s", r.selectedID(), r.m.View())
	}
}
