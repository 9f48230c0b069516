package mux

import (
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

func TestACPCancelledTurnLeavesOneMark(t *testing.T) {
	r := newACPRig(t, nil)
	m := r.create("fake", nil)
	done := r.promptAsync(m.ID, "slow")
	waitFor(t, "the slow turn's first chunk", func() bool { return r.lastAgentText(m.ID) == "working slowly" })
	// Esc twice: still one mark.
	for range 2 {
		if err := r.mux.Cancel(m.ID); err != nil {
			t.Fatal(err)
		}
	}
	if res := waitResult(t, done); res.err != nil || res.reason != "cancelled" {
		t.Fatalf("turn ended %q %v", res.reason, res.err)
	}
	entries := r.mux.Transcript(m.ID)
	if n := countNotes(entries, "turn cancelled"); n != 1 || entries[len(entries)-1].Text != "turn cancelled" {
		t.Fatalf("%d marks, want one at the end: %+v", n, entries)
	}
	if n := countNotes(entries, "turn ended: cancelled"); n != 0 {
		t.Fatalf("a second mark: %+v", entries)
	}
	// The next turn is not marked.
	if _, err := r.prompt(m.ID, "hello"); err != nil {
		t.Fatal(err)
	}
	if n := countNotes(r.mux.Transcript(m.ID), "turn cancelled"); n != 1 {
		t.Fatalf("%d marks after a normal turn, want 1", n)
	}
}

func TestLastUpdateIsTheLatestChangeOfTheTurn(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	entries := []proto.Entry{
		{Kind: proto.EntryUser, At: at(0)},
		{Kind: proto.EntryAgent, At: at(100)}, // an earlier turn
		{Kind: proto.EntryUser, At: at(200)},
		{Kind: proto.EntryTool, At: at(230)}, // updated after the chunk below
		{Kind: proto.EntryAgent, At: at(210)},
	}
	if got := proto.LastUpdate(entries); !got.Equal(at(230)) {
		t.Fatalf("LastUpdate %v, want %v", got, at(230))
	}
	if got := proto.LastUpdate(entries[:3]); !got.Equal(at(200)) {
		t.Fatalf("a turn with no reply yet: %v, want its prompt's time", got)
	}
	if !proto.LastUpdate(nil).IsZero() {
		t.Fatal("an empty transcript has a last update")
	}
}

func TestACPEntriesCarryTheirTime(t *testing.T) {
	r := newACPRig(t, nil)
	m := r.create("fake", nil)
	before := time.Now()
	if _, err := r.prompt(m.ID, "tool"); err != nil {
		t.Fatal(err)
	}
	for _, e := range r.mux.Transcript(m.ID) {
		if e.At.Before(before) || e.At.After(time.Now()) {
			t.Fatalf("entry %+v has time %v", e, e.At)
		}
	}
}
