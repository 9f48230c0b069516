package tui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
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
	r.fake.terms[a.ID] = proto.Terminal{Modes: proto.TerminalModes{AppCursor: true, BracketedPaste: true}}
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
	r.fake.startErr[a.ID] = &proto.FoldersGoneError{ChatID: a.ID, Problems: []proto.FolderProblem{{Index: 1, Path: gone, Reason: "does not exist"}}}
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

func TestEncodeKey(t *testing.T) {
	for _, tc := range []struct {
		k     tea.KeyMsg
		modes proto.TerminalModes
		want  string
	}{
		{runeKey('x'), proto.TerminalModes{}, "x"},
		{keyOf(tea.KeySpace), proto.TerminalModes{}, " "},
		{keyOf(tea.KeyEnter), proto.TerminalModes{}, "\r"},
		{keyOf(tea.KeyTab), proto.TerminalModes{}, "\t"},
		{keyOf(tea.KeyShiftTab), proto.TerminalModes{}, "\x1b[Z"},
		{keyOf(tea.KeyEsc), proto.TerminalModes{}, "\x1b"},
		{keyOf(tea.KeyBackspace), proto.TerminalModes{}, "\x7f"},
		{keyOf(tea.KeyCtrlA), proto.TerminalModes{}, "\x01"},
		{keyOf(tea.KeyCtrlZ), proto.TerminalModes{}, "\x1a"},
		{keyOf(tea.KeyLeft), proto.TerminalModes{}, "\x1b[D"},
		{keyOf(tea.KeyLeft), proto.TerminalModes{AppCursor: true}, "\x1bOD"},
		{keyOf(tea.KeyHome), proto.TerminalModes{}, "\x1b[H"},
		{keyOf(tea.KeyEnd), proto.TerminalModes{AppCursor: true}, "\x1bOF"},
		{keyOf(tea.KeyCtrlRight), proto.TerminalModes{}, "\x1b[1;5C"},
		{keyOf(tea.KeyShiftUp), proto.TerminalModes{}, "\x1b[1;2A"},
		{keyOf(tea.KeyPgUp), proto.TerminalModes{}, "\x1b[5~"},
		{keyOf(tea.KeyPgDown), proto.TerminalModes{}, "\x1b[6~"},
		{keyOf(tea.KeyDelete), proto.TerminalModes{}, "\x1b[3~"},
		{keyOf(tea.KeyF1), proto.TerminalModes{}, "\x1bOP"},
		{keyOf(tea.KeyF12), proto.TerminalModes{}, "\x1b[24~"},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("b"), Alt: true}, proto.TerminalModes{}, "\x1bb"},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("pasted"), Paste: true}, proto.TerminalModes{}, "pasted"},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("pasted"), Paste: true}, proto.TerminalModes{BracketedPaste: true}, "\x1b[200~pasted\x1b[201~"},
	} {
		if got := string(encodeKey(tc.k, tc.modes)); got != tc.want {
			t.Errorf("%v %+v: %q, want %q", tc.k, tc.modes, got, tc.want)
		}
	}
	if got := string(encodeWheel(true, 4, 2, proto.TerminalModes{MouseTracking: 1000, MouseSGR: true})); got != "\x1b[<64;5;3M" {
		t.Errorf("wheel: %q", got)
	}
	if encodeWheel(true, 0, 0, proto.TerminalModes{}) != nil {
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
	r.fake.transcripts[a.ID] = []proto.Entry{{Kind: proto.EntryUser, Text: "earlier question"}, {Kind: proto.EntryAgent, Text: "the agent's answer"}}
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
	r.fake.set(a.ID, proto.State{Status: proto.StatusRunning, TurnActive: true, Permission: &proto.Permission{
		Title: "edit main.go", Options: []proto.PermissionOption{{ID: "allow", Name: "Allow once"}, {ID: "reject", Name: "Reject"}}}}, "")
	r.m.Update(chatsChangedMsg{ids: []string{a.ID}})
	if v := r.m.View(); !strings.Contains(v, "⚠ permission: edit main.go") || !strings.Contains(v, "1 Allow once · 2 Reject") {
		t.Fatalf("permission card not drawn:\n%s", v)
	}
	r.key(runeKey('2'))
	if !slices.Contains(r.fake.Calls(), "answer reject") {
		t.Fatalf("2 did not answer: %v", r.fake.Calls())
	}
	// Esc cancels a running turn.
	r.fake.set(a.ID, proto.State{Status: proto.StatusRunning, TurnActive: true}, "")
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
	r.fake.set(a.ID, proto.State{Status: proto.StatusRunning}, "live screen")
	r.fake.terms[a.ID] = proto.Terminal{Scrollback: 100, Cols: 70, Rows: 18}
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
	r.fake.terms[a.ID] = proto.Terminal{Scrollback: 2, Cols: 70, Rows: 18}
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
	if got := plain.Mark(proto.State{Status: proto.StatusRunning}, false); got != "●" {
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
	// Another process adds a chat and a folder to the first one; the
	// server tells of the files that changed.
	b := r.create(sessions.NewChat{Name: "from elsewhere"})
	if _, err := r.store.AddFolders(a.ID, []string{r.dir("lib")}); err != nil {
		t.Fatal(err)
	}
	if got := len(r.order()); got != 1 {
		t.Fatalf("%d chats listed before the server told of the change, want 1", got)
	}
	r.run(func() tea.Msg { return newsMsg{Chats: []string{a.ID, b.ID}} })
	if got := len(r.order()); got != 2 {
		t.Fatalf("%d chats listed after another process wrote one, want 2", got)
	}
	if r.selectedID() != a.ID || !strings.Contains(r.m.View(), filepath.Join(r.root, "lib")) {
		t.Fatalf("selection %s; the folder added elsewhere is not shown:\n%s", r.selectedID(), r.m.View())
	}
}

// TestConfigRefusedShows: a config the server refused is a warning in the
// status line, naming the file and the line, and changes no chat.
func TestConfigRefusedShows(t *testing.T) {
	r := newRig(t, nil)
	r.create(sessions.NewChat{Name: "first"})
	r.open(Options{})
	msg := "config /home/me/.config/acpmux/config.toml: line 4: harness.mine.kind: \"robot\" is not one of claude, codex; the last good config stays in effect"
	r.run(func() tea.Msg { return newsMsg{ConfigRefused: msg} })
	if view := r.m.View(); !strings.Contains(view, "config refused") || !strings.Contains(view, "line 4") {
		t.Fatalf("the refusal is not in the status line:\n%s", view)
	}
	if got := len(r.order()); got != 1 {
		t.Fatalf("%d chats after a config refusal, want 1", got)
	}
}
