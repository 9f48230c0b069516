package tui

import (
	"slices"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	tea "github.com/charmbracelet/bubbletea"
)

// Tests of how the mux's change notices reach the model.

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

// TestUnchangedOnlyWhenNothingDrawnChanged: news of a chat that is not
// shown, whose sidebar row looks the same, changes nothing drawn, and the
// model says so (package frame then draws nothing); anything else it does
// not claim. Whenever it claims it, the view is indeed the same.
func TestUnchangedOnlyWhenNothingDrawnChanged(t *testing.T) {
	fake := newFakeMux(nil)
	entries := benchEntries(3)
	for _, e := range entries {
		fake.set(e.ID, proto.State{Status: proto.StatusRunning, Started: time.Unix(0, 0)}, "$ ")
	}
	m := New(Options{Mux: fake, Renderer: asciiRenderer(), Entries: entries, Tick: -1})
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	m.Update(chatsChangedMsg{ids: []string{"c00000", "c00001", "c00002"}})
	shown, other := "c00000", "c00002"
	if sel, _ := m.sidebar.Selected(); sel.ID != shown {
		t.Fatalf("selected %s, want %s", sel.ID, shown)
	}
	steps := []struct {
		what      string
		id        string
		st        proto.State
		screen    string
		unchanged bool
	}{
		{"another chat printed", other, proto.State{Status: proto.StatusRunning, Started: time.Unix(0, 0)}, "$ date", true},
		{"another chat waits for its user", other, proto.State{Status: proto.StatusWaiting, Unread: true, Started: time.Unix(0, 0)}, "$ date", false},
		{"another chat printed again, still waiting", other, proto.State{Status: proto.StatusWaiting, Unread: true, Started: time.Unix(0, 0)}, "$ date\n$", true},
		{"the shown chat printed", shown, proto.State{Status: proto.StatusRunning, Started: time.Unix(0, 0)}, "$ ls", false},
	}
	for _, s := range steps {
		before := m.View()
		fake.set(s.id, s.st, s.screen)
		m.Update(chatsChangedMsg{ids: []string{s.id}})
		if got := m.Unchanged(); got != s.unchanged {
			t.Errorf("%s: Unchanged() = %v, want %v", s.what, got, s.unchanged)
		}
		if m.Unchanged() && m.View() != before {
			t.Errorf("%s: claimed unchanged, but the view changed", s.what)
		}
	}
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("j")})
	if m.Unchanged() {
		t.Error("a key press claimed to change nothing")
	}
}

// TestEchoGoesAtOnceInsideAFrame: within a frame of the last delivery,
// the change of the chat a key was just typed into (its echo) is handed
// over at once (the frame here is an hour: a wait would hang the test),
// with what was gathered before it, and marked as the echo; only the
// first change after the key is: the next one waits for the frame again.
func TestEchoGoesAtOnceInsideAFrame(t *testing.T) {
	ch := make(chan string, 10)
	var gate changeGate
	ch <- "other"
	if msg := waitChanges(ch, time.Hour, &gate)().(chatsChangedMsg); msg.echo != "" {
		t.Fatalf("no key was typed, yet echo %q", msg.echo)
	}
	gate.expectEcho("typed")
	ch <- "other"
	ch <- "typed"
	msg := waitChanges(ch, time.Hour, &gate)().(chatsChangedMsg)
	if msg.echo != "typed" || !slices.Equal(msg.ids, []string{"other", "typed"}) {
		t.Fatalf("echo %q ids %v, want typed's echo with other's change gathered", msg.echo, msg.ids)
	}
	ch <- "typed"
	got := make(chan tea.Msg, 1)
	go func() { got <- waitChanges(ch, time.Hour, &gate)() }()
	select {
	case m := <-got:
		t.Fatalf("a second change after one key went at once: %v", m)
	case <-time.After(50 * time.Millisecond):
	}
	close(ch)
	if m := (<-got).(chatsChangedMsg); m.echo != "" {
		t.Fatalf("echo %q for a change that is not one", m.echo)
	}
}

// TestModelIsUrgentOnlyForTheShownChatsEcho: the model asks for an
// immediate draw for the echo of the chat it shows, and for nothing else.
func TestModelIsUrgentOnlyForTheShownChatsEcho(t *testing.T) {
	fake := newFakeMux(nil)
	entries := benchEntries(2)
	for _, e := range entries {
		fake.set(e.ID, proto.State{Status: proto.StatusRunning, Started: time.Unix(0, 0)}, "$ ")
	}
	m := New(Options{Mux: fake, Renderer: asciiRenderer(), Entries: entries, Tick: -1})
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	shown, other := entries[0].ID, entries[1].ID
	if m.selected != shown {
		t.Fatalf("selected %q, want %q", m.selected, shown)
	}
	for _, tc := range []struct {
		msg  chatsChangedMsg
		want bool
	}{
		{chatsChangedMsg{ids: []string{shown}, echo: shown}, true},
		{chatsChangedMsg{ids: []string{shown}}, false},
		{chatsChangedMsg{ids: []string{other}, echo: other}, false},
	} {
		m.Update(tc.msg)
		if m.Urgent() != tc.want {
			t.Errorf("%+v: urgent %v, want %v", tc.msg, m.Urgent(), tc.want)
		}
	}
	m.Update(tea.FocusMsg{})
	if m.Urgent() {
		t.Error("urgent after a message that is no echo")
	}
}
