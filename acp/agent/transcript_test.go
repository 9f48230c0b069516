package agent

import (
	"errors"
	"fmt"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestTranscriptKeepsItsLatestEntries: a transcript fed far past its bound
// holds at most the bound and its slack, the latest entries in order.
func TestTranscriptKeepsItsLatestEntries(t *testing.T) {
	var tr Transcript
	const n = 4*MaxTranscriptEntries + 17
	for i := range n {
		tr.Add(proto.Entry{Kind: proto.EntryUser, Text: fmt.Sprint(i)})
		if len(tr.entries) > MaxTranscriptEntries+transcriptSlack {
			t.Fatalf("after %d adds the transcript holds %d entries", i+1, len(tr.entries))
		}
	}
	if len(tr.entries) < MaxTranscriptEntries {
		t.Fatalf("it keeps %d entries, want at least %d", len(tr.entries), MaxTranscriptEntries)
	}
	first := n - len(tr.entries)
	for i, e := range tr.entries {
		if e.Text != fmt.Sprint(first+i) {
			t.Fatalf("entry %d is %q, want %d: the latest entries in order", i, e.Text, first+i)
		}
	}
}

func TestTranscriptTurnMarks(t *testing.T) {
	boom := errors.New("session/prompt: agent refused (-32603): boom")
	cases := []struct {
		name      string
		cancelled bool
		reason    string
		err       error
		want      []string
	}{
		{"end_turn", false, "end_turn", nil, nil},
		{"agent says cancelled", false, "cancelled", nil, []string{"turn cancelled"}},
		{"user cancelled, agent ends normally", true, "end_turn", nil, []string{"turn cancelled"}},
		{"user cancelled, agent errs", true, "", boom, []string{"turn cancelled"}},
		{"error", false, "", boom, []string{boom.Error()}},
		{"refusal", false, "refusal", nil, []string{"turn ended: refusal"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var tr Transcript
			tr.StartTurn("question")
			if tc.cancelled {
				tr.Cancel()
			}
			tr.EndTurn(tc.reason, tc.err)
			var got []string
			for _, e := range tr.entries[1:] {
				got = append(got, e.Text)
			}
			if len(got) != len(tc.want) || len(got) == 1 && got[0] != tc.want[0] {
				t.Fatalf("marks %q, want %q", got, tc.want)
			}
			if tr.Cancelled {
				t.Fatal("the cancel outlived its turn")
			}
		})
	}
}
