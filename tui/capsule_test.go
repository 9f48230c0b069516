package tui

import (
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

var keyCtrlS = keyOf(tea.KeyCtrlS)

// h builds the capsule from the parent's transcript and opens it for
// review; what the user types goes into it, ctrl+s makes the chat with the
// capsule as edited (stored, waiting to be sent), esc makes none.
func TestHandoffCapsuleIsReviewedBeforeItIsSent(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "base", Harness: "claude-acp"})
	r.fake.transcripts[a.ID] = []mux.Entry{
		{Kind: mux.EntryUser, Text: "fix the flaky test"},
		{Kind: mux.EntryTool, Title: "Edit flaky_test.go", ToolStatus: "completed", Paths: []string{"/src/flaky_test.go"}},
		{Kind: mux.EntryAgent, Text: "It races on the clock \x1b]52;c;aGk=\x07now."},
	}
	r.open(Options{})

	// Cancel first: nothing is made.
	r.key(runeKey('h'), keyEnter)
	if _, ok := r.m.dialog.(*CapsuleReview); !ok {
		t.Fatalf("choosing a harness opened %T, not the capsule", r.m.dialog)
	}
	r.key(keyOf(tea.KeyEsc))
	if r.m.dialog != nil || r.chatOf(sessions.OriginHandoff) != nil || !strings.Contains(r.m.status, "handoff cancelled") {
		t.Fatalf("esc: dialog %T, status %q", r.m.dialog, r.m.status)
	}

	r.key(runeKey('h'), keyEnter)
	rev := r.m.dialog.(*CapsuleReview)
	for _, want := range []string{"## Goal\n\n> fix the flaky test\n", "- /src/flaky_test.go\n", "It races on the clock now."} {
		if !strings.Contains(rev.Value(), want) {
			t.Errorf("capsule lacks %q:\n%s", want, rev.Value())
		}
	}
	v := r.m.View()
	if !strings.Contains(v, "ctrl+s send") || !strings.Contains(v, "esc cancel") || !strings.Contains(v, "# Handoff from chat") {
		t.Errorf("the review does not show the capsule and its keys:\n%s", v)
	}
	r.typeText("Start with the CI logs. ")
	r.key(keyCtrlS)
	h := r.chatOf(sessions.OriginHandoff)
	if h == nil || h.Parent != a.ID || !h.Capsule || r.m.dialog != nil {
		t.Fatalf("ctrl+s: chat %+v, dialog %T", h, r.m.dialog)
	}
	text, sent, err := r.store.Capsule(h.ID)
	if err != nil || sent || !strings.HasPrefix(text, "Start with the CI logs. # Handoff from chat") || !strings.Contains(text, "fix the flaky test") {
		t.Fatalf("stored capsule (sent %v, err %v):\n%s", sent, err, text)
	}
	if !strings.Contains(r.m.View(), "capsule  its first message: what was said in "+a.ID) {
		t.Errorf("the summary does not say the chat starts with a capsule:\n%s", r.m.View())
	}
}

// f on a chat whose harness has no native fork (Gemini CLI) makes a fork
// whose first message is a capsule of the terminal's text, and says so.
func TestForkWithoutNativeForkCarriesACapsule(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "base", Harness: "gemini"})
	r.fake.set(a.ID, mux.State{}, "> make the build reproducible\n✦ Pinned the toolchain.")
	r.open(Options{})
	r.key(runeKey('f'))
	fork := r.chatOf(sessions.OriginFork)
	if fork == nil || !fork.Capsule || fork.Harness != "gemini" {
		t.Fatalf("fork: %+v", fork)
	}
	text, _, err := r.store.Capsule(fork.ID)
	if err != nil || !strings.Contains(text, "# Forked from chat \"base\"") || !strings.Contains(text, "> > make the build reproducible") {
		t.Fatalf("capsule (err %v):\n%s", err, text)
	}
	if !strings.Contains(r.m.status, noteCapsuleFork) {
		t.Errorf("status %q", r.m.status)
	}
	if !strings.Contains(r.m.View(), "forked as a capsule") {
		t.Errorf("the summary does not say so:\n%s", r.m.View())
	}
}
