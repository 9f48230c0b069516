package mux

import (
	"slices"
	"strings"
	"sync/atomic"
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

// The echo receiver (SetEcho) is offered a drawn chat's output on the
// goroutine that parsed it: what it takes reaches no Changes, and its read
// of the chat lets the next notice go; what it declines goes to Changes;
// a chat no one draws, or one with a notice unread in Changes, is not
// offered.
func TestEchoReceiverIsOfferedDrawnOutput(t *testing.T) {
	r := newRig(t, "", func(_ *config.Config, o *Options) { o.HoldFor = time.Hour })
	drawn, hidden := r.create("shell", nil), r.create("shell", nil)
	r.mux.SetDrawn(map[string]struct{}{drawn.ID: {}})
	for _, id := range []string{drawn.ID, hidden.ID} {
		if err := r.mux.Start(id, 80, 24); err != nil {
			t.Fatal(err)
		}
		r.waitScreen(id, "ready>")
	}
	drainChanges(r.mux)
	r.mux.State(drawn.ID)
	r.mux.State(hidden.ID)

	offered := make(chan string, 64)
	var take atomic.Bool
	take.Store(true)
	read := make(chan string, 64)
	r.mux.SetEcho(func(id string) bool {
		offered <- id
		if !take.Load() {
			return false
		}
		// As the server's hub does: it reads the chat there and then.
		read <- r.mux.Render(id, 0)
		r.mux.State(id)
		return true
	})
	defer r.mux.SetEcho(nil)
	waitOffer := func(what string) string {
		t.Helper()
		select {
		case id := <-offered:
			return id
		case <-time.After(hangDeadline):
			t.Fatalf("no offer of %s after %s", what, hangDeadline)
			return ""
		}
	}

	if err := r.mux.Write(drawn.ID, []byte("one\r")); err != nil {
		t.Fatal(err)
	}
	r.waitScreen(drawn.ID, "echo: one")
	if id := waitOffer("the drawn chat's output"); id != drawn.ID {
		t.Fatalf("offered %s, want the drawn chat %s", id, drawn.ID)
	}
	waitFor(t, "the drawn chat read by the receiver", func() bool { return r.noticeOf(drawn.ID) == noticeNone })
	if told := drainChanges(r.mux); slices.Contains(told, drawn.ID) {
		t.Fatalf("output the receiver took went to Changes too: %q", told)
	}

	// Declined: Changes tells of it.
	take.Store(false)
	if err := r.mux.Write(drawn.ID, []byte("two\r")); err != nil {
		t.Fatal(err)
	}
	waitOffer("the drawn chat's output again")
	waitNotice(t, r.mux, drawn.ID, "output the receiver declined")

	// Unread in Changes: not offered again until read. (The shell's echo
	// and its answer may come as two outputs: each was told above or is
	// unread now.)
	if got := r.noticeOf(drawn.ID); got != noticeSent {
		t.Fatalf("the declined chat's notice is %d, want sent (%d)", got, noticeSent)
	}
	for len(offered) > 0 {
		<-offered
	}
	if err := r.mux.Write(drawn.ID, []byte("three\r")); err != nil {
		t.Fatal(err)
	}
	r.waitScreen(drawn.ID, "echo: three")
	if len(offered) > 0 {
		t.Fatalf("a chat with a notice unread was offered: %s", <-offered)
	}

	// Hidden: held, never offered.
	if err := r.mux.Write(hidden.ID, []byte("four\r")); err != nil {
		t.Fatal(err)
	}
	r.waitScreen(hidden.ID, "echo: four")
	waitFor(t, "the hidden chat's output held", func() bool { return r.noticeOf(hidden.ID) == noticeHeld })
	if len(offered) > 0 {
		t.Fatalf("a hidden chat's output was offered: %s", <-offered)
	}
	if first := <-read; !strings.Contains(first, "one") {
		t.Fatalf("the receiver read a screen without the output it took: %q", first)
	}
}
