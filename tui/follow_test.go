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
