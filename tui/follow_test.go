package tui

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

// TestFailedChatTakesNoKeysAndEnterRestartsIt: once a focused chat's
// harness fails, typing goes nowhere and says so, the pane says it stopped
// under what the harness printed last, and enter starts it again.
func TestFailedChatTakesNoKeysAndEnterRestartsIt(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "a"})
	r.open(Options{})
	r.key(keyEnter)
	if !r.m.pane.Focused() {
		t.Fatal("enter did not open the chat")
	}
	r.key(runeKey('x'))
	if got := r.nextWrite(); string(got.b) != "x" {
		t.Fatalf("a running chat got %q", got.b)
	}

	// The harness crashes for good: its last words stay on screen.
	started := time.Date(2026, 12, 1, 11, 0, 0, 0, time.UTC)
	r.fake.set(a.ID, mux.State{Status: mux.StatusFailed, Started: started, Reason: "exited 6 times in a row (status 1)"},
		"Unable to connect to services\nENOTFOUND")
	r.m.Update(chatsChangedMsg{ids: []string{a.ID}})
	r.key(runeKey('y'), runeKey('z'))
	select {
	case w := <-r.fake.writes:
		t.Fatalf("a failed chat was sent %q", w.b)
	default:
	}
	if !r.m.isErr || !strings.Contains(r.m.status, "is not running: enter starts it again") {
		t.Errorf("typing to a failed chat says %q", r.m.status)
	}
	v := r.m.View()
	for _, want := range []string{"ENOTFOUND", "shell failed · enter restarts it · exited 6", "a · not running · enter restarts it"} {
		if !strings.Contains(v, want) {
			t.Errorf("the pane does not show %q:\n%s", want, v)
		}
	}

	calls := len(r.fake.Calls())
	r.key(keyEnter)
	if got := r.fake.Calls()[calls:]; !slices.Contains(got, "start "+a.ID) {
		t.Fatalf("enter on a failed chat: calls %v, want a start", got)
	}
	if !r.m.pane.Focused() || strings.Contains(r.m.View(), "enter restarts it") {
		t.Errorf("after the restart the pane is not live:\n%s", r.m.View())
	}
	r.key(runeKey('w'))
	if got := r.nextWrite(); string(got.b) != "w" {
		t.Fatalf("the restarted chat got %q", got.b)
	}
}

// TestVanishedFolderIsMarkedWithoutReselecting: the selected chat's
// folders are looked at again on each tick, so one deleted meanwhile is
// flagged in the summary with no key pressed, and one restored is cleared.
func TestVanishedFolderIsMarkedWithoutReselecting(t *testing.T) {
	r := newRig(t, nil)
	lib := r.dir("lib")
	r.create(sessions.NewChat{Name: "a", AdditionalDirectories: []string{lib}})
	r.open(Options{}) // no timer: the test delivers the ticks
	if strings.Contains(r.m.View(), "does not exist") {
		t.Fatalf("a present folder is flagged:\n%s", r.m.View())
	}
	if err := os.Remove(lib); err != nil {
		t.Fatal(err)
	}
	r.run(func() tea.Msg { return folderTickMsg{} })
	if v := r.m.View(); !strings.Contains(v, "✗ does not exist · M remove") {
		t.Fatalf("the deleted folder is not marked after a tick:\n%s", v)
	}
	if err := os.Mkdir(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	r.run(func() tea.Msg { return folderTickMsg{} })
	if v := r.m.View(); strings.Contains(v, "does not exist") {
		t.Fatalf("the restored folder is still marked after a tick:\n%s", v)
	}
	// A tick that finds nothing new draws nothing.
	r.m.Update(folderTickMsg{})
	if !r.m.Unchanged() {
		t.Error("a folder tick redraws the screen")
	}
}

// TestPickerTakesOutAFolderTheChatHas: space on one of the chat's folders
// in the picker's list marks it to be taken out (a toggle); accept removes
// it as rm-dir does, adds what was selected, and tells the mux, which
// applies the change at the end of the turn.
func TestPickerTakesOutAFolderTheChatHas(t *testing.T) {
	r := newRig(t, nil)
	proj := r.dir("proj")
	docs, lib, extra := r.dir("proj/docs"), r.dir("proj/lib"), r.dir("proj/new")
	a := r.create(sessions.NewChat{Name: "a", Cwd: proj, AdditionalDirectories: []string{docs, lib}})
	r.open(Options{})
	r.key(runeKey('a'))
	p, ok := r.m.dialog.(*FolderPicker)
	if !ok {
		t.Fatalf("a opened %T", r.m.dialog)
	}
	if v := r.m.View(); !strings.Contains(v, "[✓] docs/  already a folder · space takes it out") {
		t.Fatalf("the chat's folders are not offered for taking out:\n%s", v)
	}
	r.key(keyOf(tea.KeyDown)) // into the list: docs, lib, new
	r.key(runeKey(' '))
	if !slices.Equal(p.Dropped(), []string{docs}) {
		t.Fatalf("space on docs: dropped %v", p.Dropped())
	}
	v := r.m.View()
	if !strings.Contains(v, "[−] docs/  taken out on accept") || !strings.Contains(v, "take out "+docs) {
		t.Fatalf("the folder taken out is not shown:\n%s", v)
	}
	r.key(runeKey(' ')) // a toggle: kept again
	if len(p.Dropped()) != 0 || strings.Contains(r.m.View(), "taken out on accept") {
		t.Fatalf("space again did not keep docs: %v", p.Dropped())
	}
	r.key(runeKey(' '))
	r.key(keyOf(tea.KeyDown), keyOf(tea.KeyDown), runeKey(' ')) // select new
	if !slices.Equal(p.Chosen(), []string{extra}) {
		t.Fatalf("new is not selected: %v", p.Chosen())
	}
	if m, _ := r.store.Load(a.ID); !slices.Equal(m.AdditionalDirectories, []string{docs, lib}) {
		t.Fatalf("stored before accept: %v", m.AdditionalDirectories)
	}
	calls := len(r.fake.Calls())
	r.key(keyOf(tea.KeyCtrlS))
	if r.m.dialog != nil {
		t.Fatalf("accept left the picker open: %q", p.ErrText())
	}
	m, err := r.store.Load(a.ID)
	if err != nil || !slices.Equal(m.AdditionalDirectories, []string{lib, extra}) {
		t.Fatalf("after accept the chat has %v (%v), want [lib new]", m.AdditionalDirectories, err)
	}
	if got := r.fake.Calls()[calls:]; !slices.Contains(got, "folders "+a.ID) {
		t.Errorf("the mux was not told of the change: %v", got)
	}
	if !strings.Contains(r.m.status, "1 folder added, 1 taken out") {
		t.Errorf("status %q", r.m.status)
	}
	if v := r.m.View(); strings.Contains(v, docs) {
		t.Errorf("the summary still lists the folder taken out:\n%s", v)
	}

	// Only taking out: accept with nothing selected is enough.
	r.key(runeKey('a'))
	r.key(keyOf(tea.KeyDown), keyOf(tea.KeyDown), runeKey(' '), keyOf(tea.KeyCtrlS))
	if m, _ := r.store.Load(a.ID); !slices.Equal(m.AdditionalDirectories, []string{extra}) {
		t.Fatalf("after taking out lib the chat has %v", m.AdditionalDirectories)
	}
	if !strings.Contains(r.m.status, "1 folder taken out") {
		t.Errorf("status %q", r.m.status)
	}
}
