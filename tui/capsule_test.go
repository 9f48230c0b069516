package tui

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

var keyCtrlS = keyOf(tea.KeyCtrlS)

// h builds the capsule from the parent's transcript and opens it for
// review; what the user types goes into it, ctrl+s makes the chat with the
// capsule as edited (stored, waiting to be sent), esc makes none.
func TestHandoffCapsuleIsReviewedBeforeItIsSent(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "base", Harness: "claude-acp"})
	r.fake.transcripts[a.ID] = []proto.Entry{
		{Kind: proto.EntryUser, Text: "fix the flaky test"},
		{Kind: proto.EntryTool, Title: "Edit flaky_test.go", ToolStatus: "completed", Paths: []string{"/src/flaky_test.go"}},
		{Kind: proto.EntryAgent, Text: "It races on the clock \x1b]52;c;aGk=\x07now."},
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
	r.fake.set(a.ID, proto.State{}, "> make the build reproducible\n✦ Pinned the toolchain.")
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

// The capsule of a handoff and of a fork without a native one is the
// server's to write (it runs the harness, in its own environment); when it
// cannot, the status line says why and no chat is made.
func TestCapsuleTheServerCannotWriteMakesNoChat(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "base", Harness: "gemini"})
	r.fake.capsuleErr = errors.New("chat " + a.ID + ": its file is unreadable")
	r.open(Options{})
	for _, keys := range [][]tea.KeyMsg{{runeKey('f')}, {runeKey('h'), keyEnter}} { // h: to the first harness offered
		r.key(keys...)
		if r.chatOf(sessions.OriginFork) != nil || r.chatOf(sessions.OriginHandoff) != nil || r.m.dialog != nil {
			t.Fatalf("%s: a chat was made or a dialog is open (%T)", keys[0], r.m.dialog)
		}
		if !r.m.isErr || !strings.Contains(r.m.status, "no chat made") || !strings.Contains(r.m.status, "unreadable") {
			t.Errorf("%s: status %q", keys[0], r.m.status)
		}
	}
	var asked []string
	for _, c := range r.fake.Calls() {
		if strings.HasPrefix(c, "capsule ") || strings.HasPrefix(c, "derive ") {
			asked = append(asked, c)
		}
	}
	if want := []string{"capsule fork " + a.ID, "capsule handoff " + a.ID}; !slices.Equal(asked, want) {
		t.Errorf("asked the server %q, want %q", asked, want)
	}
}

// The review of a handoff's capsule shows what was redacted from it: the
// credentials the parent's transcript held are marks in the capsule, each
// highlighted, and a line counts them by kind; the count follows edits,
// and what ctrl+s stores holds none of the credentials.
func TestCapsuleReviewShowsTheRedactions(t *testing.T) {
	// Made here, so that no file of the repository holds a credential.
	key := "sk-ant-api03-" + strings.Repeat("Zx9k", 12)
	token := "ghp_" + strings.Repeat("a7Q2", 9)
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "deploy", Harness: "claude-acp"})
	r.fake.transcripts[a.ID] = []proto.Entry{
		{Kind: proto.EntryUser, Text: "deploy with my key " + key},
		{Kind: proto.EntryAgent, Text: "Set it up:\nexport GITHUB_TOKEN=" + token + "\nDEBUG=1"},
	}
	r.open(Options{})
	r.key(runeKey('h'), keyEnter)
	rev, ok := r.m.dialog.(*CapsuleReview)
	if !ok {
		t.Fatalf("choosing a harness opened %T, not the capsule", r.m.dialog)
	}
	for _, want := range []string{"deploy with my key [redacted:anthropic-key]", "export GITHUB_TOKEN=[redacted:github-token]\n", "DEBUG=1"} {
		if !strings.Contains(rev.Value(), want) {
			t.Errorf("capsule lacks %q:\n%s", want, rev.Value())
		}
	}
	if strings.Contains(rev.Value(), key) || strings.Contains(rev.Value(), token) {
		t.Fatalf("the capsule under review holds a credential:\n%s", rev.Value())
	}
	const counted = "2 redactions: 1 Anthropic key, 1 GitHub token (highlighted)"
	if v := r.m.View(); !strings.Contains(v, counted) || !strings.Contains(v, "[redacted:anthropic-key]") {
		t.Errorf("the review does not show the redactions and their count %q:\n%s", counted, v)
	}

	// A mark the user types is counted too (what is sent is what is counted).
	r.typeText("[redacted:jwt] ")
	if got := rev.Redactions().String(); got != "3 redactions: 1 Anthropic key, 1 GitHub token, 1 JWT" {
		t.Errorf("after an edit the review counts %q", got)
	}
	r.key(keyCtrlS)
	h := r.chatOf(sessions.OriginHandoff)
	if h == nil {
		t.Fatal("ctrl+s made no chat")
	}
	text, _, err := r.store.Capsule(h.ID)
	if err != nil || strings.Contains(text, key) || strings.Contains(text, token) || !strings.Contains(text, "[redacted:github-token]") {
		t.Fatalf("stored capsule (err %v):\n%s", err, text)
	}
}

// Each redaction mark is drawn with the Redacted style (colour or not),
// and the text around it is not.
func TestCapsuleReviewHighlightsEachMark(t *testing.T) {
	for _, color := range []bool{true, false} {
		ren := lipgloss.NewRenderer(nil)
		ren.SetColorProfile(termenv.ANSI)
		st := NewStyles(ren, color)
		d := NewCapsuleReview(&Common{Styles: st}, "hand off", "# Handoff\n\nexport GITHUB_TOKEN=[redacted:github-token] and [redacted:jwt]\n[redacted:unknown] stays\n", func(string) tea.Cmd { return nil })
		d.SetSize(100, 30)
		v := strings.Join(d.View(), "\n")
		for _, mark := range []string{"[redacted:github-token]", "[redacted:jwt]"} {
			hl := st.Redacted.Render(mark)
			if hl == mark {
				t.Fatalf("color %v: the Redacted style draws nothing", color)
			}
			if !strings.Contains(v, "GITHUB_TOKEN="+st.Redacted.Render("[redacted:github-token]")+" and "+st.Redacted.Render("[redacted:jwt]")) {
				t.Errorf("color %v: %s is not highlighted in place:\n%q", color, mark, v)
			}
		}
		if strings.Contains(v, st.Redacted.Render("[redacted:unknown]")) {
			t.Errorf("color %v: a word in brackets that is no mark is highlighted", color)
		}
		if !strings.Contains(v, "2 redactions: 1 GitHub token, 1 JWT (highlighted)") {
			t.Errorf("color %v: no count of the redactions:\n%s", color, v)
		}
	}
}
