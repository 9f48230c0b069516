package mux

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// promptAsync runs a prompt in the background; the result arrives on the
// channel. The deadline only detects a hang.
func (r *acpRig) promptAsync(id, text string) <-chan promptResult {
	done := make(chan promptResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
		defer cancel()
		reason, err := r.mux.Prompt(ctx, id, text)
		done <- promptResult{reason, err}
	}()
	return done
}

type promptResult struct {
	reason string
	err    error
}

// waitResult waits for a background prompt, failing on a hang.
func waitResult(t *testing.T, done <-chan promptResult) promptResult {
	t.Helper()
	var res promptResult
	waitFor(t, "the turn to end", func() bool {
		select {
		case res = <-done:
			return true
		default:
			return false
		}
	})
	return res
}

// countNotes counts the transcript's notes with that text.
func countNotes(entries []proto.Entry, text string) int {
	n := 0
	for _, e := range entries {
		if e.Kind == proto.EntryNote && e.Text == text {
			n++
		}
	}
	return n
}

func TestACPConcurrentPermissionsAreQueuedAndEachAnswered(t *testing.T) {
	r := newACPRig(t, nil)
	m := r.create("fake", nil)
	done := r.promptAsync(m.ID, "perms 5")
	waitFor(t, "five permission requests", func() bool {
		p := r.mux.State(m.ID).Permission
		return p != nil && p.Pending == 5
	})
	// Each card in turn: the count goes down, every title is another tool
	// call, and odd tools are allowed, even ones rejected.
	want := map[string]string{}
	var seen []string
	for left := 5; left > 0; left-- {
		var card *proto.Permission
		waitFor(t, fmt.Sprintf("the card with %d pending", left), func() bool {
			card = r.mux.State(m.ID).Permission
			return card != nil && card.Pending == left
		})
		if slices.Contains(seen, card.Title) {
			t.Fatalf("card %q shown twice", card.Title)
		}
		seen = append(seen, card.Title)
		var n int
		if _, err := fmt.Sscanf(card.Title, "Tool %d", &n); err != nil {
			t.Fatalf("card title %q", card.Title)
		}
		answer := "allow_once"
		if n%2 == 0 {
			answer = "reject_once"
		}
		want[card.Title] = answer
		if err := r.mux.AnswerPermission(m.ID, answer); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the next card", func() bool {
			next := r.mux.State(m.ID).Permission
			return next == nil || next.Seq != card.Seq
		})
	}
	res := waitResult(t, done)
	if res.err != nil || res.reason != "end_turn" {
		t.Fatalf("turn ended %q %v", res.reason, res.err)
	}
	if p := r.mux.State(m.ID).Permission; p != nil {
		t.Fatalf("a card is left after every request was answered: %+v", p)
	}
	var parts []string
	for i := 1; i <= 5; i++ {
		title := fmt.Sprintf("Tool %d", i)
		parts = append(parts, title+"="+want[title])
	}
	if got, wantReply := r.lastAgentText(m.ID), "perms: "+strings.Join(parts, "; "); got != wantReply {
		t.Fatalf("agent replied %q, want %q", got, wantReply)
	}
	statuses := map[string]string{}
	for _, e := range r.mux.Transcript(m.ID) {
		if e.Kind == proto.EntryTool {
			statuses[e.Title] = e.ToolStatus
		}
	}
	for title, answer := range want {
		wantStatus := "completed"
		if answer != "allow_once" {
			wantStatus = "failed"
		}
		if statuses[title] != wantStatus {
			t.Errorf("%s is %q after %s, want %q", title, statuses[title], answer, wantStatus)
		}
	}
}

func TestACPCancelAnswersEveryPendingPermission(t *testing.T) {
	r := newACPRig(t, nil)
	m := r.create("fake", nil)
	done := r.promptAsync(m.ID, "perms 5")
	waitFor(t, "five permission requests", func() bool {
		p := r.mux.State(m.ID).Permission
		return p != nil && p.Pending == 5
	})
	if err := r.mux.Cancel(m.ID); err != nil {
		t.Fatal(err)
	}
	res := waitResult(t, done)
	if res.err != nil || res.reason != "cancelled" {
		t.Fatalf("turn ended %q %v, want cancelled", res.reason, res.err)
	}
	want := "perms: Tool 1=cancelled; Tool 2=cancelled; Tool 3=cancelled; Tool 4=cancelled; Tool 5=cancelled"
	if got := r.lastAgentText(m.ID); got != want {
		t.Fatalf("agent replied %q, want %q", got, want)
	}
	if p := r.mux.State(m.ID).Permission; p != nil {
		t.Fatalf("a card is left after the cancel: %+v", p)
	}
	entries := r.mux.Transcript(m.ID)
	if n := countNotes(entries, "turn cancelled"); n != 1 {
		t.Fatalf("%d \"turn cancelled\" marks, want 1: %+v", n, entries)
	}
	if n := countNotes(entries, "turn ended: cancelled"); n != 0 {
		t.Fatalf("the cancel left a second mark: %+v", entries)
	}
	if n := len(r.requests("session/cancel")); n != 1 {
		t.Fatalf("%d session/cancel sent, want 1", n)
	}
}

func TestACPProcessEndAnswersEveryPendingPermission(t *testing.T) {
	r := newACPRig(t, nil)
	m := r.create("fake", nil)
	done := r.promptAsync(m.ID, "perms 5")
	waitFor(t, "five permission requests", func() bool {
		p := r.mux.State(m.ID).Permission
		return p != nil && p.Pending == 5
	})
	r.mux.Stop(m.ID)
	if res := waitResult(t, done); res.err == nil {
		t.Fatalf("a turn whose agent was stopped ended %q with no error", res.reason)
	}
	waitFor(t, "the cards to go", func() bool { return r.mux.State(m.ID).Permission == nil })
}
