package mux

import (
	"fmt"
	"testing"
)

// TestTranscriptKeepsItsLatestEntries: a transcript fed far past its bound
// holds at most the bound and its slack, the latest entries in order.
func TestTranscriptKeepsItsLatestEntries(t *testing.T) {
	var tr Transcript
	const n = 4*maxTranscriptEntries + 17
	for i := range n {
		tr.Add(Entry{Kind: EntryUser, Text: fmt.Sprint(i)})
		if len(tr.entries) > maxTranscriptEntries+transcriptSlack {
			t.Fatalf("after %d adds the transcript holds %d entries", i+1, len(tr.entries))
		}
	}
	if len(tr.entries) < maxTranscriptEntries {
		t.Fatalf("it keeps %d entries, want at least %d", len(tr.entries), maxTranscriptEntries)
	}
	first := n - len(tr.entries)
	for i, e := range tr.entries {
		if e.Text != fmt.Sprint(first+i) {
			t.Fatalf("entry %d is %q, want %d: the latest entries in order", i, e.Text, first+i)
		}
	}
}
