package tui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// These tests cover what the user sees staying current (folders checked
// on focus, on each start and on a change of status; a refused restart)
// and the dialogs agreeing with the validator.

// selectedRow returns the sidebar line with the selection pointer.
func (r *rig) selectedRow() string {
	r.t.Helper()
	for _, l := range strings.Split(r.m.View(), "\n") {
		if strings.Contains(l, "▌") {
			return l
		}
	}
	return ""
}

func TestFocusFlagsADeletedFolderWithoutMovingTheSelection(t *testing.T) {
	r := newRig(t, nil)
	libs := map[string]string{}
	for _, name := range []string{"one", "two"} {
		libs[name] = r.dir("lib-" + name)
		r.create(sessions.NewChat{Name: name, AdditionalDirectories: []string{libs[name]}})
	}
	r.open(Options{})
	r.key(keyJ)
	second, _ := r.m.sidebar.Selected()
	if second.ID != r.order()[1] {
		t.Fatalf("selected %s, want the second row", second.ID)
	}
	b, lib := second.Meta, libs[second.Meta.Name]
	if strings.Contains(r.m.View(), "✗ does not exist") {
		t.Fatal("flagged before anything was deleted")
	}
	// The folder is deleted while the user is in another window; coming
	// back (the terminal reports focus) shows it, on the same chat.
	if err := os.Remove(lib); err != nil {
		t.Fatal(err)
	}
	r.run(func() tea.Msg { return tea.FocusMsg{} })
	if v := r.m.View(); !strings.Contains(v, "✗ does not exist") {
		t.Fatalf("the deleted folder is not flagged after focus:\n%s", v)
	}
	if r.selectedID() != b.ID || !strings.Contains(r.selectedRow(), b.Name) {
		t.Fatalf("the selection moved to %s (%q)", r.selectedID(), r.selectedRow())
	}
	// Restored: the next focus clears the flag.
	r.dir(filepath.Base(lib))
	r.run(func() tea.Msg { return tea.FocusMsg{} })
	if strings.Contains(r.m.View(), "does not exist") {
		t.Fatalf("still flagged once restored:\n%s", r.m.View())
	}
	// No polling: nothing but focus, selection, a start or a change of
	// status looks again (Init asks the terminal for focus reports).
	if cmds := r.m.Init(); cmds == nil {
		t.Fatal("Init returned nothing")
	}
}

func TestAStatusChangeChecksTheFolders(t *testing.T) {
	r := newRig(t, nil)
	lib := r.dir("lib")
	a := r.create(sessions.NewChat{Name: "a", AdditionalDirectories: []string{lib}})
	r.open(Options{})
	r.fake.set(a.ID, proto.State{Status: proto.StatusRunning, Pid: 7}, "ready>")
	r.run(func() tea.Msg { return chatsChangedMsg{ids: []string{a.ID}} })
	if err := os.Remove(lib); err != nil {
		t.Fatal(err)
	}
	// Running to waiting and back is the harness at work, not a change of
	// its life: no look at the disk.
	r.fake.set(a.ID, proto.State{Status: proto.StatusWaiting, Pid: 7}, "ready>")
	r.run(func() tea.Msg { return chatsChangedMsg{ids: []string{a.ID}} })
	if strings.Contains(r.m.View(), "✗ does not exist") {
		t.Fatal("a turn of the harness checked the folders")
	}
	// It exits: the folders are looked at again.
	r.fake.set(a.ID, proto.State{Status: proto.StatusExited, ExitCode: 1}, "ready>")
	r.run(func() tea.Msg { return chatsChangedMsg{ids: []string{a.ID}} })
	if !strings.Contains(r.m.View(), "✗ does not exist") {
		t.Fatalf("not flagged after the status changed:\n%s", r.m.View())
	}
}

func TestEachStartChecksTheFolders(t *testing.T) {
	r := newRig(t, nil)
	lib := r.dir("lib")
	a := r.create(sessions.NewChat{Name: "a", AdditionalDirectories: []string{lib}})
	r.open(Options{})
	if err := os.Remove(lib); err != nil {
		t.Fatal(err)
	}
	// (The fake mux starts it anyway; the real one would refuse.)
	r.key(keyEnter)
	if !slices.Contains(r.fake.Calls(), "start "+a.ID) || !strings.Contains(r.m.View(), "✗ does not exist") {
		t.Fatalf("the start did not check the folders: %v\n%s", r.fake.Calls(), r.m.View())
	}
}

func TestRestartRefusedLeavesItRunningWithTheRefusalShown(t *testing.T) {
	r := newRig(t, nil)
	lib := r.dir("lib")
	a := r.create(sessions.NewChat{Name: "a", AdditionalDirectories: []string{lib}})
	r.open(Options{})
	r.key(keyEnter, keyOf(tea.KeyCtrlCloseBracket))
	r.m.Update(chatsChangedMsg{ids: []string{a.ID}})
	r.fake.restartErr[a.ID] = &proto.FoldersGoneError{ChatID: a.ID, Running: true,
		Problems: []proto.FolderProblem{{Index: 0, Path: lib, Reason: "does not exist"}}}
	r.key(runeKey('r'))
	if !slices.Contains(r.fake.Calls(), "restart "+a.ID) {
		t.Fatalf("r did not ask for a restart: %v", r.fake.Calls())
	}
	v := r.m.View()
	if !r.m.isErr || !strings.Contains(r.m.status, "not restarted, its harness keeps running") {
		t.Errorf("status %q", r.m.status)
	}
	if !strings.Contains(v, "✗ does not exist") || !strings.Contains(v, "running · pid 4242") {
		t.Errorf("the summary must flag the folder and show the harness running:\n%s", v)
	}
}

func TestPickerRefusesOwnAndExistingFoldersAlikeTypedOrBrowsed(t *testing.T) {
	r := newRig(t, nil)
	proj, lib := r.dir("tree/proj"), r.dir("tree/lib")
	r.dir("tree/other")
	r.create(sessions.NewChat{Name: "a", Cwd: proj, AdditionalDirectories: []string{lib}})
	r.open(Options{})
	for _, target := range []string{proj, lib} {
		r.key(runeKey('a'))
		p := r.m.dialog.(*FolderPicker)
		// Typed.
		r.key(keyOf(tea.KeyCtrlU))
		r.typeText(target)
		r.key(keyEnter)
		typed := p.ErrText()
		// Browsed: the same folder from its parent's listing.
		r.key(keyOf(tea.KeyCtrlU))
		r.typeText(filepath.Dir(target) + "/")
		r.key(keyOf(tea.KeyDown))
		for p.path.Matches()[p.cur] != filepath.Base(target) {
			r.key(keyOf(tea.KeyDown))
		}
		if target == lib {
			// A folder the chat has is not refused: typed or browsed, the
			// pick toggles taking it out.
			if typed != "" || !slices.Equal(p.Dropped(), []string{lib}) {
				t.Errorf("typed %s: refusal %q, taken out %v", target, typed, p.Dropped())
			}
			r.key(keyOf(tea.KeySpace))
			if p.ErrText() != "" || len(p.Dropped()) != 0 {
				t.Errorf("browsed %s: refusal %q, taken out %v", target, p.ErrText(), p.Dropped())
			}
			r.key(keyEscK)
			continue
		}
		r.key(keyOf(tea.KeySpace))
		browsed := p.ErrText()
		if typed == "" || typed != browsed {
			t.Errorf("%s: typed refusal %q, browsed %q: they must be the same", target, typed, browsed)
		}
		if !strings.Contains(typed, "-32602") || len(p.Chosen()) != 0 {
			t.Errorf("%s: refusal %q, chosen %v", target, typed, p.Chosen())
		}
		r.key(keyEscK)
	}
	// And a good folder is taken either way.
	r.key(runeKey('a'))
	p := r.m.dialog.(*FolderPicker)
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText(r.root + "/tree/")
	r.key(keyOf(tea.KeyDown))
	for p.path.Matches()[p.cur] != "other" {
		r.key(keyOf(tea.KeyDown))
	}
	r.key(keyOf(tea.KeySpace))
	if p.ErrText() != "" || !slices.Equal(p.Chosen(), []string{filepath.Join(r.root, "tree/other")}) {
		t.Fatalf("browsed good folder: err %q chosen %v", p.ErrText(), p.Chosen())
	}
	r.key(keyOf(tea.KeySpace)) // space again unselects
	if len(p.Chosen()) != 0 {
		t.Fatalf("space did not unselect: %v", p.Chosen())
	}
}

func TestDeleteOffersToDeleteTheFilesToo(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "busy home"})
	b := r.create(sessions.NewChat{Name: "empty home"})
	if err := os.WriteFile(filepath.Join(a.Cwd, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.open(Options{})
	r.m.sidebar.Select(b.ID)
	r.key(runeKey('D'))
	if v := r.m.View(); !strings.Contains(v, "y delete   n cancel") || strings.Contains(v, "files too") {
		t.Fatalf("an empty home needs no offer:\n%s", v)
	}
	r.key(runeKey('n'))
	r.m.sidebar.Select(a.ID)
	r.key(runeKey('D'))
	v := r.m.View()
	if !strings.Contains(v, "has files in it (1 entry)") || !strings.Contains(v, "y delete the files too") {
		t.Fatalf("the dialog does not offer to delete the files:\n%s", v)
	}
	r.key(runeKey('y'))
	if _, err := r.store.Load(a.ID); err == nil {
		t.Fatal("y did not delete the chat")
	}
	if _, err := os.Stat(a.Cwd); !os.IsNotExist(err) {
		t.Fatalf("its home is still there: %v", err)
	}
	if r.m.isErr || !strings.Contains(r.m.status, "deleted busy home") {
		t.Fatalf("status %q", r.m.status)
	}
}

func TestRepeatedForksGetDistinctNames(t *testing.T) {
	r := newRig(t, nil)
	base := r.create(sessions.NewChat{Name: "base"})
	r.open(Options{})
	for range 3 {
		r.m.pane.SetFocus(false)
		r.m.sidebar.Select(base.ID)
		r.key(runeKey('f'))
	}
	r.m.pane.SetFocus(false)
	r.m.sidebar.Select(base.ID)
	r.key(runeKey('s'))
	var names []string
	list, _ := r.store.List()
	for _, e := range list {
		names = append(names, e.Meta.Name)
	}
	slices.Sort(names)
	want := []string{"base", "base · fork", "base · fork 2", "base · fork 3", "base · side"}
	if !slices.Equal(names, want) {
		t.Fatalf("names %q, want %q", names, want)
	}
	if v := r.m.View(); !strings.Contains(v, "↳ base · fork 2") || !strings.Contains(v, "↳ base · fork 3") {
		t.Errorf("the sidebar does not tell the forks apart:\n%s", v)
	}
}

// installed lists every harness of the table, all installed but those
// named.
func (r *rig) installed(missing ...string) []HarnessInfo {
	var out []HarnessInfo
	for _, s := range r.table.All() {
		out = append(out, HarnessInfo{Name: s.Name, Transport: s.Transport, Installed: !slices.Contains(missing, s.Name)})
	}
	return out
}

func TestHandoffAndNewToAHarnessNotInstalledWarn(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "base"})
	r.open(Options{Harnesses: r.installed("claude", "codex"), DefaultHarness: "shell"})
	r.key(runeKey('h'))
	ch := r.m.dialog.(*Chooser)
	// Installed first, in the table's order, then the rest, marked.
	want := []string{"gemini", "claude-acp", "codex-acp", "gemini-acp", "opencode", "pi", "claude", "codex"}
	if !slices.Equal(ch.items, want) {
		t.Fatalf("the chooser lists %v, want %v", ch.items, want)
	}
	v := r.m.View()
	// The notes start in one column, after the longest name (claude-acp).
	if !strings.Contains(v, "gemini      pty · ✓ installed") || !strings.Contains(v, "claude      pty · not installed") {
		t.Fatalf("the chooser does not mark what is installed:\n%s", v)
	}
	// Choosing claude is refused before any capsule is made, saying how
	// to install or configure it; the dialog stays open.
	for ch.items[ch.cur] != "claude" {
		r.key(keyJ)
	}
	r.key(keyEnter)
	if r.m.dialog != ch {
		t.Fatalf("choosing a harness not installed went on to %T", r.m.dialog)
	}
	for _, s := range []string{"claude is not installed", `command "claude"`, "[harness.claude]"} {
		if !strings.Contains(ch.ErrText(), s) {
			t.Errorf("the refusal %q does not say %q", ch.ErrText(), s)
		}
	}
	if v := r.m.View(); !strings.Contains(v, "✗ claude is not installed") || !strings.Contains(v, "[harness.claude]") {
		t.Errorf("the refusal is not shown whole in the dialog:\n%s", v)
	}
	if h := r.chatOf(sessions.OriginHandoff); h != nil {
		t.Fatalf("a handoff to a harness not installed was made: %+v", h)
	}
	// Moving clears the refusal; an installed one goes on to the capsule.
	r.key(keyK)
	if ch.ErrText() != "" {
		t.Errorf("the refusal stays after moving: %q", ch.ErrText())
	}
	for ch.items[ch.cur] != "gemini" {
		r.key(keyK)
	}
	r.key(keyEnter, keyCtrlS) // choose, then send the capsule as reviewed
	h := r.chatOf(sessions.OriginHandoff)
	if h == nil || h.Harness != "gemini" || h.Parent != a.ID || h.Name != "base → gemini" {
		t.Fatalf("handoff: %+v", h)
	}
	r.key(keyOf(tea.KeyCtrlCloseBracket))
	before := len(r.fake.Calls())

	// The new-chat dialog: marked, and created with the same warning.
	r.key(runeKey('n'))
	d := r.m.dialog.(*NewChatDialog)
	for d.harnesses[d.hi].Name != "claude" {
		r.key(keyOf(tea.KeyRight))
	}
	if !strings.Contains(r.m.View(), "not found on PATH") {
		t.Fatalf("the dialog does not mark claude:\n%s", r.m.View())
	}
	r.key(keyOf(tea.KeyCtrlS))
	if r.m.dialog != nil {
		t.Fatalf("dialog still open: %q", d.ErrText())
	}
	if !r.m.isWarn || !strings.Contains(r.m.status, "claude is not installed") {
		t.Errorf("no warning after new: %q", r.m.status)
	}
	for _, c := range r.fake.Calls()[before:] {
		if strings.HasPrefix(c, "create ") || strings.HasPrefix(c, "start ") {
			t.Errorf("a chat of a harness not installed was started: %v", r.fake.Calls())
		}
	}
	if n := len(r.order()); n != 3 {
		t.Errorf("%d chats listed, want 3", n)
	}
}

// boxAt finds the dialog box whose top edge holds title: its first line,
// left column, width and height.
func boxAt(t *testing.T, view, title string) (top, left, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	for i, l := range lines {
		plain := ansi.Strip(l)
		j := strings.Index(plain, "╭─ "+title)
		if j < 0 {
			continue
		}
		left = ansi.StringWidth(plain[:j])
		rest := []rune(plain[j:])
		for k, c := range rest {
			if c == '╮' {
				w = k + 1
				break
			}
		}
		for k := i; k < len(lines); k++ {
			if c := []rune(ansi.Strip(lines[k])); left+w-1 < len(c) && strings.HasPrefix(string(c[left:]), "╰") {
				return i, left, w, k - i + 1
			}
		}
	}
	t.Fatalf("no box %q in:\n%s", title, view)
	return
}

func TestDeleteAndHandoffDialogsAreCentred(t *testing.T) {
	r := newRig(t, nil)
	r.create(sessions.NewChat{Name: "centred"})
	r.open(Options{Harnesses: r.installed("claude")})
	for _, size := range [][2]int{{100, 30}, {80, 24}, {161, 51}, {60, 20}} {
		r.run(func() tea.Msg { return tea.WindowSizeMsg{Width: size[0], Height: size[1]} })
		for _, tc := range []struct {
			key   tea.KeyMsg
			title string
		}{{runeKey('D'), "delete chat"}, {runeKey('h'), "hand centred off to"}} {
			r.key(tc.key)
			top, left, w, h := boxAt(t, r.m.View(), tc.title)
			right := size[0] - left - w
			bodyH := size[1] - 1
			bottom := bodyH - top - h
			if d := left - right; d < -1 || d > 1 {
				t.Errorf("%dx%d %s: %d columns left of the box, %d right", size[0], size[1], tc.title, left, right)
			}
			if d := top - bottom; d < -1 || d > 1 {
				t.Errorf("%dx%d %s: %d lines above the box, %d below", size[0], size[1], tc.title, top, bottom)
			}
			// The box fits what it says: no wide empty right side.
			if w > size[0]-4 && size[0] > 60 {
				t.Errorf("%dx%d %s: the box is %d wide", size[0], size[1], tc.title, w)
			}
			r.key(keyEscK)
		}
	}
}

// TestStatusLineShowsAgentWordsPlain: an error carrying an agent's words
// (escapes, a bell, a newline) reaches the status line as one plain line.
func TestStatusLineShowsAgentWordsPlain(t *testing.T) {
	r := newRig(t, nil)
	r.open(Options{})
	r.m.setStatus("agent said \x1b]52;c;cHduZWQ=\x07\x1b[31mred\x1b[0m\nnext\x07", true)
	if r.m.status != "agent said red next" {
		t.Errorf("error status %q, want %q", r.m.status, "agent said red next")
	}
	r.m.setWarning("\x1b]0;title\x07warned\tthere")
	if r.m.status != "warned there" {
		t.Errorf("warning status %q, want %q", r.m.status, "warned there")
	}
}
