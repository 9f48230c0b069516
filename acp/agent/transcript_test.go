package agent

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	acp "github.com/coder/acp-go-sdk"
)

// TestTranscriptKeepsItsLatestEntries: a transcript fed far past its bound
// holds the bound, the latest entries in order, each change stamped where
// Since finds it, and counts those it dropped; past the bound an entry
// takes the oldest's place, with nothing copied or made.
func TestTranscriptKeepsItsLatestEntries(t *testing.T) {
	var tr Transcript
	const n = 4*MaxTranscriptEntries + 17
	for i := range n {
		tr.Add(proto.Entry{Kind: proto.EntryUser, Text: fmt.Sprint(i)})
		if tr.count() > MaxTranscriptEntries {
			t.Fatalf("after %d adds the transcript holds %d entries", i+1, tr.count())
		}
	}
	if tr.count() != MaxTranscriptEntries || tr.dropped != n-MaxTranscriptEntries {
		t.Fatalf("it keeps %d entries and dropped %d, want %d and %d", tr.count(), tr.dropped, MaxTranscriptEntries, n-MaxTranscriptEntries)
	}
	entries := tr.Entries()
	first := n - len(entries)
	for i, e := range entries {
		if e.Text != fmt.Sprint(first+i) {
			t.Fatalf("entry %d is %q, want %d: the latest entries in order", i, e.Text, first+i)
		}
	}
	// The oldest kept changes: Since finds it at its place.
	before := tr.seq
	tr.entry(0).Text = "changed"
	tr.changed(0)
	res := tr.Since(tr.Since(0, 0).Epoch, before)
	if len(res.Changed) != 1 || res.Changed[0].At != tr.dropped || res.Changed[0].Entry.Text != "changed" {
		t.Fatalf("the change of the oldest entry kept: %+v, want it alone at %d", res.Changed, tr.dropped)
	}
	if allocs := testing.AllocsPerRun(100, func() { tr.Add(proto.Entry{Kind: proto.EntryAgent}) }); allocs != 0 {
		t.Fatalf("an entry past the bound made %v allocations, want none", allocs)
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
			for _, e := range tr.Entries()[1:] {
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

// TestTranscriptToolLocations: a tool call's locations are kept as the
// agent gave them, cleaned (a path on one line, no negative line, none
// without a path), on the entry Apply hands the observer and in the
// transcript; an update that carries locations replaces them, one that
// carries none leaves them; every path joins the call's Paths.
func TestTranscriptToolLocations(t *testing.T) {
	var tr Transcript
	line := func(n int) *int { return &n }
	places := func(locs []proto.Location) string {
		var b strings.Builder
		for _, l := range locs {
			b.WriteString(l.Path)
			if l.Line != nil {
				fmt.Fprintf(&b, ":%d", *l.Line)
			}
			b.WriteString(" ")
		}
		return b.String()
	}
	e := tr.Apply(acp.StartToolCall("c1", "Edit", acp.WithStartLocations([]acp.ToolCallLocation{
		{Path: "/src/a.go", Line: line(7)}, {Path: "/src/\x1b]0;x\x07b.go", Line: line(-3)}, {Path: ""},
	})))
	want := "/src/a.go:7 /src/b.go "
	if e == nil || places(e.Locations) != want {
		t.Fatalf("the observer's entry has %q, want %q", places(e.Locations), want)
	}
	if got := places(tr.Entries()[0].Locations); got != want {
		t.Fatalf("the transcript has %q, want %q", got, want)
	}
	e = tr.Apply(acp.UpdateToolCall("c1", acp.WithUpdateStatus(acp.ToolCallStatusInProgress)))
	if e.Locations != nil || places(tr.Entries()[0].Locations) != want {
		t.Fatalf("an update without locations: observer %q, transcript %q", places(e.Locations), places(tr.Entries()[0].Locations))
	}
	e = tr.Apply(acp.UpdateToolCall("c1", acp.WithUpdateLocations([]acp.ToolCallLocation{{Path: "/src/c.go", Line: line(9)}})))
	if got := places(tr.Entries()[0].Locations); places(e.Locations) != "/src/c.go:9 " || got != "/src/c.go:9 " {
		t.Fatalf("an update with locations: observer %q, transcript %q", places(e.Locations), got)
	}
	if got := tr.Entries()[0].Paths; !slices.Equal(got, []string{"/src/a.go", "/src/b.go", "/src/c.go"}) {
		t.Fatalf("paths %q", got)
	}
}

// TestTranscriptKeepsAPlanWhole: a plan's entries are kept with their
// status and priority, each text cleaned to one line; a status or a
// priority ACP does not define is kept as none; a later plan replaces it.
func TestTranscriptKeepsAPlanWhole(t *testing.T) {
	var tr Transcript
	e := tr.Apply(acp.UpdatePlan(
		acp.PlanEntry{Content: "Read \x1b]0;pwned\x07the\ncode", Priority: acp.PlanEntryPriorityHigh, Status: acp.PlanEntryStatusCompleted},
		acp.PlanEntry{Content: "Fix", Priority: "urgent\x1b[2J", Status: "sleeping"},
	))
	want := []proto.PlanItem{{Content: "Read the code", Priority: "high", Status: "completed"}, {Content: "Fix"}}
	if e == nil || !slices.Equal(e.PlanItems, want) {
		t.Fatalf("the update's entry %+v, want %+v", e, want)
	}
	tr.Apply(acp.UpdatePlan(acp.PlanEntry{Content: "Test", Priority: acp.PlanEntryPriorityLow, Status: acp.PlanEntryStatusPending}))
	entries := tr.Entries()
	if len(entries) != 1 || !slices.Equal(entries[0].PlanItems, []proto.PlanItem{{Content: "Test", Priority: "low", Status: "pending"}}) {
		t.Fatalf("the transcript holds %+v", entries)
	}
}
