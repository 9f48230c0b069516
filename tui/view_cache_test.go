package tui

import (
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

// TestViewCacheDrawsWhatAFreshViewDraws: whatever messages came (a key's
// echo, other chats' news, a state change of the chat shown, a move in
// the list, a rename, the focus going to the pane and back, a dialog, a
// resize), the frame drawn with the last frame's boxes and rows kept is
// the frame drawn from nothing.
func TestViewCacheDrawsWhatAFreshViewDraws(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "alpha"})
	b := r.create(sessions.NewChat{Name: "beta"})
	running := proto.State{Status: proto.StatusRunning, Pid: 4242}
	r.fake.set(a.ID, running, "$ ")
	r.fake.set(b.ID, running, "beta's screen")
	r.open(Options{})
	r.run(func() tea.Msg { return tea.WindowSizeMsg{Width: 120, Height: 30} })
	check := func(step string) {
		t.Helper()
		got := r.m.View()
		r.m.vc = viewCache{}
		if want := r.m.View(); got != want {
			t.Fatalf("%s: the frame drawn with the cache differs from one drawn from nothing:\n%s\n--- want ---\n%s", step, got, want)
		}
	}
	check("first frame")
	r.fake.set(a.ID, running, "$ l")
	r.m.Update(chatsChangedMsg{ids: []string{a.ID}, echo: a.ID})
	check("a key's echo")
	r.fake.set(b.ID, proto.State{Status: proto.StatusWaiting, Pid: 4243}, "beta waits")
	r.m.Update(chatsChangedMsg{ids: []string{b.ID}})
	check("another chat's state")
	r.fake.set(a.ID, proto.State{Status: proto.StatusExited, ExitCode: 1, Reason: "exit status 1"}, "$ ls\nbye")
	r.m.Update(chatsChangedMsg{ids: []string{a.ID}, echo: a.ID})
	check("the shown chat exited")
	r.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("j")})
	check("a move in the list")
	r.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("R")})
	check("the rename dialog")
	r.m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	check("the dialog closed")
	r.m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	check("the pane focused")
	r.m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	check("a resize")
	if !strings.Contains(r.m.View(), "beta") {
		t.Fatal("the frame lost the chat list")
	}
}
