package tui

import (
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

// A pending change of folders shows in the summary with what it adds and
// removes; r on the chat while it works asks first, naming what the
// restart interrupts, and restarts only on yes.
func TestPendingFoldersShownAndRestartAsks(t *testing.T) {
	r := newRig(t, nil)
	lib, notes := r.dir("src/lib"), r.dir("notes")
	e := r.create(sessions.NewChat{Name: "work", AdditionalDirectories: []string{notes}})
	r.open(Options{})
	r.fake.set(e.ID, proto.State{Status: proto.StatusRunning, Pid: 42,
		PendingDirectories: []string{lib}, RunningDirectories: []string{notes}}, "")
	r.m.Update(chatsChangedMsg{ids: []string{e.ID}})
	if v := r.m.View(); !strings.Contains(v, "pending  adds /") {
		t.Fatalf("the pending change is not shown:\n%s", v)
	}
	if got, want := pendingLine(r.fake.State(e.ID)), "adds "+lib+" · removes "+notes+" at the end of its turn"; got != want {
		t.Fatalf("pending line %q, want %q", got, want)
	}

	r.key(runeKey('r'))
	v := r.m.View()
	if r.m.dialog == nil || !strings.Contains(v, "restart now") || !strings.Contains(v, "interrupts the harness while it is working") {
		t.Fatalf("r did not ask first:\n%s", v)
	}
	if slices.Contains(r.fake.Calls(), "restart "+e.ID) {
		t.Fatal("restarted before the answer")
	}
	r.key(keyEscK)
	if slices.Contains(r.fake.Calls(), "restart "+e.ID) || r.m.dialog != nil {
		t.Fatal("esc restarted, or left the dialog open")
	}
	r.key(runeKey('r'), runeKey('y'))
	if !slices.Contains(r.fake.Calls(), "restart "+e.ID) {
		t.Fatalf("yes did not restart: %v", r.fake.Calls())
	}
}

// Folders added with the picker are stored through the server, which
// tells the harness (addFolders answers once it has); the TUI then reads
// the list again, and tells it no second time.
func TestFoldersAddedTellTheMux(t *testing.T) {
	r := newRig(t, nil)
	e := r.create(sessions.NewChat{Name: "work"})
	extra := r.dir("extra")
	r.open(Options{})
	r.key(runeKey('a'), keyOf(tea.KeyCtrlU))
	r.typeText(extra)
	r.key(keyEnter, keyOf(tea.KeyCtrlS))
	if r.m.dialog != nil {
		t.Fatalf("the picker stayed open: %v", r.m.dialog)
	}
	calls := r.fake.Calls()
	at := slices.Index(calls, "addFolders "+e.ID)
	if at < 0 || !slices.Equal(calls[at:at+2], []string{"addFolders " + e.ID, "folders " + e.ID}) || !slices.Contains(calls[at:], "list") {
		t.Fatalf("not stored and told through the server: %v", calls)
	}
	if n := len(slices.DeleteFunc(slices.Clone(calls), func(c string) bool { return c != "folders "+e.ID })); n != 1 {
		t.Fatalf("the harness was told %d times: %v", n, calls)
	}
	if m, err := r.store.Load(e.ID); err != nil || !slices.Equal(m.AdditionalDirectories, []string{extra}) {
		t.Fatalf("stored: %v %v", m, err)
	}
}
