package tui

import (
	"slices"
	"testing"
	"time"

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
