package main

import (
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/lockedbuf"
	"github.com/acpmux/acpmux-tui/proto"
)

func TestPromptOutputCleansWhatTheAgentWrote(t *testing.T) {
	var stdout, stderr lockedbuf.Buffer
	out := newPromptOutput(&stdout, &stderr)
	out.observed(proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryStderr, Text: "starting \x1b[31mnow\x1b[0m\a"}})
	out.observed(proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryAgent, Text: "replayed before the turn"}})
	out.observed(proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryTurnStarted}, Own: true})
	out.observed(proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryAgent, Text: "hi \x1b]52;c;cHduZWQ=\x07there\u009b2J"}})
	out.observed(proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryThought, Text: "not printed"}})
	out.observed(proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryRefused, Title: "Edit \x1b]0;pwned\x07main.go"}})
	out.endTurn()
	out.note("turn ended: \x1b[2Jrefusal")
	if got := stdout.String(); got != "hi there\n" {
		t.Fatalf("stdout %q", got)
	}
	want := "agent: starting now\nacpmux-tui: refused permission for Edit main.go\nacpmux-tui: turn ended: refusal\n"
	if got := stderr.String(); got != want {
		t.Fatalf("stderr %q, want %q", got, want)
	}
}

// The quiet watch ("no reply yet", once per quiet spell) runs in the
// server now: server/prompt_test.go tests it.
