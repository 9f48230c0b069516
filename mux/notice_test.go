package mux

import (
	"slices"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
)

// noticeOf returns a chat's notice state.
func (r *rig) noticeOf(id string) uint32 {
	c, err := r.mux.existing(id)
	if err != nil {
		r.t.Fatal(err)
	}
	return c.notice().v.Load()
}

// drainChanges takes every notice waiting in Changes, without waiting.
func drainChanges(m *Mux) []string {
	var ids []string
	for {
		select {
		case id := <-m.changes:
			ids = append(ids, id)
		default:
			return ids
		}
	}
}

// waitNotice waits until Changes tells of id, and drops the others told.
func waitNotice(t *testing.T, m *Mux, id, what string) {
	t.Helper()
	deadline := time.After(hangDeadline)
	for {
		select {
		case got := <-m.changes:
			if got == id {
				return
			}
		case <-deadline:
			t.Fatalf("no notice of %s (%s) after %s", id, what, hangDeadline)
		}
	}
}

// The output of a chat no one draws is held for the next batch; a chat
// drawn is told of at once; a start or a stop of a held chat is told at
// once; and a batch, when due, tells of each chat held (SetDrawn).
func TestOutputOfChatsNoOneDrawsIsHeld(t *testing.T) {
	r := newRig(t, "", func(_ *config.Config, o *Options) { o.HoldFor = time.Hour })
	hidden, drawn := r.create("shell", nil), r.create("shell", nil)
	r.mux.SetDrawn(map[string]struct{}{drawn.ID: {}})
	for _, m := range []string{hidden.ID, drawn.ID} {
		if err := r.mux.Start(m, 80, 24); err != nil {
			t.Fatal(err)
		}
		r.waitScreen(m, "ready>")
	}
	// Every notice so far is read: from now on each chat is told anew.
	drainChanges(r.mux)
	r.mux.State(hidden.ID)
	r.mux.State(drawn.ID)

	for _, id := range []string{hidden.ID, drawn.ID} {
		if err := r.mux.Write(id, []byte("one\r")); err != nil {
			t.Fatal(err)
		}
		r.waitScreen(id, "echo: one")
	}
	waitNotice(t, r.mux, drawn.ID, "a drawn chat's output")
	waitFor(t, "the hidden chat's output noticed", func() bool { return r.noticeOf(hidden.ID) != noticeNone })
	if got := r.noticeOf(hidden.ID); got != noticeHeld {
		t.Fatalf("hidden chat's notice is %d, want held (%d)", got, noticeHeld)
	}
	if told := drainChanges(r.mux); slices.Contains(told, hidden.ID) {
		t.Fatalf("the hidden chat's output was told at once: %q", told)
	}

	// A stop is told at once, held output or not.
	r.mux.Stop(hidden.ID)
	waitNotice(t, r.mux, hidden.ID, "the hidden chat's stop")
	r.mux.State(hidden.ID)

	// The batch, when due, tells of a chat still held, once.
	if err := r.mux.Start(hidden.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	waitNotice(t, r.mux, hidden.ID, "the hidden chat's start")
	r.waitScreen(hidden.ID, "ready>")
	r.mux.State(hidden.ID)
	if err := r.mux.Write(hidden.ID, []byte("two\r")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the hidden chat's output held", func() bool { return r.noticeOf(hidden.ID) == noticeHeld })
	r.mux.sendHeld()
	if told := drainChanges(r.mux); !slices.Contains(told, hidden.ID) {
		t.Fatalf("the batch did not tell of the held chat: %q", told)
	}
	if got := r.noticeOf(hidden.ID); got != noticeSent {
		t.Fatalf("after the batch the notice is %d, want sent (%d)", got, noticeSent)
	}

	// Held, then read by another than the receiver (ls through the
	// server reads every chat's state): the batch still tells of it.
	r.mux.State(hidden.ID)
	if err := r.mux.Write(hidden.ID, []byte("read\r")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the hidden chat's output held again", func() bool { return r.noticeOf(hidden.ID) == noticeHeld })
	r.mux.State(hidden.ID)
	r.mux.sendHeld()
	if told := drainChanges(r.mux); !slices.Contains(told, hidden.ID) {
		t.Fatalf("the batch did not tell of a held chat another read: %q", told)
	}

	// Drawn by all again: output is told at once.
	r.mux.SetDrawn(nil)
	r.mux.State(hidden.ID)
	if err := r.mux.Write(hidden.ID, []byte("three\r")); err != nil {
		t.Fatal(err)
	}
	waitNotice(t, r.mux, hidden.ID, "output once every chat is drawn")
}

// With the default HoldFor, a held notice reaches Changes by itself.
func TestHeldNoticeArrives(t *testing.T) {
	r := newRig(t, "", nil)
	m := r.create("shell", nil)
	r.mux.SetDrawn(map[string]struct{}{})
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.waitScreen(m.ID, "ready>")
	drainChanges(r.mux)
	r.mux.State(m.ID)
	if err := r.mux.Write(m.ID, []byte("later\r")); err != nil {
		t.Fatal(err)
	}
	waitNotice(t, r.mux, m.ID, "the held output, HoldFor later")
	if !slices.Contains(r.mux.PlainLines(m.ID), "echo: later") {
		t.Fatal("told before the output was on the screen")
	}
}
