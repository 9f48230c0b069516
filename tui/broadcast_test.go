package tui

import (
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

// TestOnePromptToSeveralChats: space marks chats (a + before each name),
// p opens one prompt for the marked ones, and enter sends it: a prompt to
// each ACP chat, the text and Enter typed to each running terminal chat; a
// terminal chat that is not running is left out, saying so; esc in the
// list takes the marks away.
func TestOnePromptToSeveralChats(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "agent-a", Harness: "claude-acp"})
	b := r.create(sessions.NewChat{Name: "agent-b", Harness: "codex-acp"})
	term := r.create(sessions.NewChat{Name: "term"})
	idle := r.create(sessions.NewChat{Name: "idle"})
	r.create(sessions.NewChat{Name: "unmarked", Harness: "claude-acp"})
	r.fake.set(term.ID, proto.State{Status: proto.StatusRunning, Pid: 7, Transport: "pty"}, "$ ")
	r.open(Options{})
	r.run(func() tea.Msg { return chatsChangedMsg{ids: []string{term.ID}} })
	for _, id := range []string{a.ID, b.ID, term.ID, idle.ID} {
		r.m.sidebar.Select(id)
		r.key(runeKey(' '))
	}
	want := []string{a.ID, b.ID, term.ID, idle.ID}
	if got := r.m.sidebar.Marked(); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Fatalf("marked %v, want %v", got, want)
	}
	side := strings.Join(r.m.sidebar.View(), "\n")
	if !strings.Contains(side, "+agent-a") || !strings.Contains(side, "+idle") || strings.Contains(side, "+unmarked") {
		t.Fatalf("the marks in the list:\n%s", side)
	}
	r.typeText("p")
	d, ok := r.m.dialog.(*BroadcastDialog)
	if !ok {
		t.Fatalf("p opened %T", r.m.dialog)
	}
	v := strings.Join(d.View(), "\n")
	for _, want := range []string{"one prompt to 4 chats", "agent-a · claude-acp · prompt", "term · shell · typed", "idle · shell · not running: left out"} {
		if !strings.Contains(v, want) {
			t.Fatalf("the dialog has no %q:\n%s", want, v)
		}
	}
	r.typeText("same question")
	r.key(keyOf(tea.KeyEnter))
	if w := r.nextWrite(); w.id != term.ID || string(w.b) != "same question\r" {
		t.Fatalf("the terminal chat got %q on %s", w.b, w.id)
	}
	calls := r.fake.Calls()
	for _, id := range []string{a.ID, b.ID} {
		if !slices.Contains(calls, "prompt "+id+" same question") {
			t.Errorf("no prompt to %s: %v", id, calls)
		}
	}
	if slices.ContainsFunc(calls, func(c string) bool { return strings.HasPrefix(c, "prompt "+idle.ID) || strings.Contains(c, "unmarked") }) {
		t.Errorf("a chat left out got it: %v", calls)
	}
	if r.m.dialog != nil || !strings.Contains(r.m.View(), "sent to 3 of 4 chats") {
		t.Errorf("after sending:\n%s", r.m.View())
	}
	r.key(keyOf(tea.KeyEsc))
	if got := r.m.sidebar.Marked(); len(got) != 0 {
		t.Errorf("esc left the marks %v", got)
	}
}
