package proto

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"
)

// TestObservedEntryWire: the stream of an observed chat writes each entry
// as protocol 1 did (its kind by name, the empty fields left out but its
// time, the stream's own next to the entry's), a tool call's locations as
// ACP names them, and reads back what it wrote; a kind this build does not
// know (a newer server's) is read as one that matches no kind.
func TestObservedEntryWire(t *testing.T) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	line := 12
	cases := []struct {
		e    ObservedEntry
		want string
	}{
		{ObservedEntry{Entry: Entry{Kind: EntryAgent, Text: "hi", MessageID: "m1", At: at}},
			`{"kind":"agent","text":"hi","messageId":"m1","at":"2026-03-01T10:00:00Z"}`},
		{ObservedEntry{Entry: Entry{Kind: EntryTurnStarted, Text: "go", At: at}, Own: true},
			`{"kind":"turnStarted","text":"go","at":"2026-03-01T10:00:00Z","own":true}`},
		{ObservedEntry{Entry: Entry{Kind: EntryTurnEnded, At: at}, StopReason: "end_turn", Error: "boom"},
			`{"kind":"turnEnded","at":"2026-03-01T10:00:00Z","stopReason":"end_turn","error":"boom"}`},
		{ObservedEntry{Entry: Entry{Kind: EntryMissed, At: at}, Count: 3}, `{"kind":"missed","at":"2026-03-01T10:00:00Z","count":3}`},
		{ObservedEntry{Entry: Entry{Kind: EntryTool, ToolCallID: "c1", Title: "Edit", ToolStatus: "pending", At: at,
			Locations: []Location{{Path: "/src/a.go", Line: &line}, {Path: "/src/b.go"}}}},
			`{"kind":"tool","toolCallId":"c1","title":"Edit","toolStatus":"pending","locations":[{"path":"/src/a.go","line":12},{"path":"/src/b.go"}],"at":"2026-03-01T10:00:00Z"}`},
	}
	for _, tc := range cases {
		b, err := json.Marshal(tc.e)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("wrote %s\nwant  %s", b, tc.want)
		}
		var back ObservedEntry
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, tc.e) {
			t.Errorf("%s read back as %+v", b, back)
		}
	}
	var p EntriesParams
	if err := json.Unmarshal([]byte(`{"id":"k3x9q2","entries":[{"kind":"sparkle","text":"new"},{"kind":"stderr","text":"x"}]}`), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) != 2 || p.Entries[0].Kind != -1 || p.Entries[0].Text != "new" || p.Entries[1].Kind != EntryStderr {
		t.Errorf("read %+v", p.Entries)
	}
}

// TestTranscriptEntryWire: a transcript (MethodTranscript, a bundle's
// transcript.jsonl) writes the kind as the number it always was, and reads
// an entry as protocol 1's servers and older bundles wrote it, with Go's
// field names.
func TestTranscriptEntryWire(t *testing.T) {
	b, err := json.Marshal(Entry{Kind: EntryTool, ToolCallID: "c1", Paths: []string{"/src/a.go"}, At: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"kind":3,"toolCallId":"c1","paths":["/src/a.go"],"at":"2026-03-01T10:00:00Z"}`; string(b) != want {
		t.Errorf("wrote %s, want %s", b, want)
	}
	old := `{"Kind":3,"Text":"","ToolCallID":"c1","Title":"Read","ToolStatus":"completed","Paths":["/src/a.go"],` +
		`"Plan":null,"MessageID":"m1","At":"2026-03-01T10:00:00Z"}`
	var e Entry
	if err := json.Unmarshal([]byte(old), &e); err != nil {
		t.Fatal(err)
	}
	want := Entry{Kind: EntryTool, ToolCallID: "c1", Title: "Read", ToolStatus: "completed", Paths: []string{"/src/a.go"},
		MessageID: "m1", At: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	if !reflect.DeepEqual(e, want) {
		t.Errorf("read %+v\nwant %+v", e, want)
	}
}

// FuzzEntriesWire: whatever a host sends as a stream batch or a transcript
// is read without a panic, and what is read is written and read back the
// same (an ObservedEntry as the stream writes it, an Entry as a transcript
// does).
func FuzzEntriesWire(f *testing.F) {
	f.Add([]byte(`{"id":"a","entries":[{"kind":"tool","toolCallId":"c","locations":[{"path":"/a","line":3}],"own":true}]}`))
	f.Add([]byte(`{"entries":[{"Kind":3,"Text":"x","Paths":["/p"],"Plan":null,"At":"2026-03-01T10:00:00Z"}]}`))
	f.Add([]byte(`{"entries":[{"kind":"sparkle"},{"kind":null},{"kind":-4},{"kind":"\u0061gent"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var stream EntriesParams
		if json.Unmarshal(b, &stream) == nil {
			line, err := json.Marshal(stream)
			if err != nil {
				t.Fatalf("%+v: %v", stream, err)
			}
			var back EntriesParams
			if err := json.Unmarshal(line, &back); err != nil || !sameEntries(back.Entries, stream.Entries) {
				t.Fatalf("%s read back as %+v (%v), was %+v", line, back, err, stream)
			}
		}
		var tr TranscriptResult
		if json.Unmarshal(b, &tr) == nil {
			line, err := json.Marshal(tr)
			if err != nil {
				t.Fatalf("%+v: %v", tr, err)
			}
			var back TranscriptResult
			if err := json.Unmarshal(line, &back); err != nil || len(back.Entries) != len(tr.Entries) {
				t.Fatalf("%s read back as %+v (%v)", line, back, err)
			}
			for i := range tr.Entries {
				if !sameEntry(back.Entries[i], tr.Entries[i]) {
					t.Fatalf("%s read back as %+v, was %+v", line, back.Entries[i], tr.Entries[i])
				}
			}
		}
	})
}

// sameEntries compares batches as the stream carries them: a kind it has
// no name for is read back as -1.
func sameEntries(a, b []ObservedEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if y.Kind.String() != entryKindName(y.Kind) {
			y.Kind = -1
		}
		if !sameEntry(x.Entry, y.Entry) || x.Own != y.Own || x.StopReason != y.StopReason || x.Error != y.Error || x.Count != y.Count {
			return false
		}
	}
	return true
}

// entryKindName is k's name, "" for a kind that has none.
func entryKindName(k EntryKind) string {
	if k >= 0 && int(k) < len(entryKindNames) {
		return entryKindNames[k]
	}
	return ""
}

// sameEntry compares entries as JSON carries them: times as instants, an
// empty list as none.
func sameEntry(a, b Entry) bool {
	if !a.At.Equal(b.At) {
		return false
	}
	a.At, b.At = time.Time{}, time.Time{}
	norm := func(e *Entry) {
		if len(e.Locations) == 0 {
			e.Locations = nil
		}
		if len(e.Paths) == 0 {
			e.Paths = nil
		}
		if len(e.Plan) == 0 {
			e.Plan = nil
		}
	}
	norm(&a)
	norm(&b)
	return reflect.DeepEqual(a, b)
}

// BenchmarkEntriesWire is one batch of an observed chat's stream (100
// entries: chunks of a reply, tool calls with a location, a turn's marks)
// written as the server sends it and read as a client does.
func BenchmarkEntriesWire(b *testing.B) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	line := 41
	p := EntriesParams{ID: "k3x9q2"}
	p.Entries = append(p.Entries, ObservedEntry{Entry: Entry{Kind: EntryTurnStarted, Text: "fix the build", At: at}, Own: true})
	for i := range 98 {
		e := Entry{Kind: EntryAgent, Text: "some words of the reply, streamed ", MessageID: "0b0d1a52-8f6e-4f2e-9a43-2b8d3c8a1f00", At: at}
		if i%10 == 9 {
			e = Entry{Kind: EntryTool, ToolCallID: "call-1", Title: "Edit main.go", ToolStatus: "completed", At: at,
				Locations: []Location{{Path: "/home/me/src/app/main.go", Line: &line}}}
		}
		p.Entries = append(p.Entries, ObservedEntry{Entry: e})
	}
	p.Entries = append(p.Entries, ObservedEntry{Entry: Entry{Kind: EntryTurnEnded, At: at}, StopReason: "end_turn"})
	b.ReportAllocs()
	for b.Loop() {
		line, err := json.Marshal(p)
		if err != nil {
			b.Fatal(err)
		}
		var back EntriesParams
		if err := json.Unmarshal(line, &back); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTranscriptWire is a full transcript (5,000 entries: chunks of
// replies, tool calls with their files) as MethodTranscript answers it
// and a drawing client reads it, at each change of the ACP chat it shows.
func BenchmarkTranscriptWire(b *testing.B) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var tr TranscriptResult
	for i := range 5000 {
		e := Entry{Kind: EntryAgent, Text: "a paragraph of the agent's reply, long enough to wrap once or twice in a pane", At: at}
		switch i % 10 {
		case 0:
			e = Entry{Kind: EntryUser, Text: "fix the flaky test", At: at}
		case 5:
			e = Entry{Kind: EntryTool, ToolCallID: "call-1", Title: "Edit main.go", ToolStatus: "completed", At: at,
				Paths: []string{"/home/me/src/app/main.go"}}
		}
		tr.Entries = append(tr.Entries, e)
	}
	b.ReportAllocs()
	for b.Loop() {
		line, err := json.Marshal(tr)
		if err != nil {
			b.Fatal(err)
		}
		var back TranscriptResult
		if err := json.Unmarshal(line, &back); err != nil {
			b.Fatal(err)
		}
	}
}

// TestToolLineNamesItsLocations: a tool call's line says where it works,
// the first three of its locations with their lines, the rest counted.
func TestToolLineNamesItsLocations(t *testing.T) {
	line := func(n int) *int { return &n }
	for _, c := range []struct {
		locs []Location
		want string
	}{
		{nil, "⚙ Edit [completed]"},
		{[]Location{{Path: "/p/main.go", Line: line(42)}}, "⚙ Edit [completed] · /p/main.go:42"},
		{[]Location{{Path: "/a"}, {Path: "/b", Line: line(1)}, {Path: "/c"}, {Path: "/d"}, {Path: "/e"}}, "⚙ Edit [completed] · /a, /b:1, /c (+2 more)"},
	} {
		got := RenderTranscript([]Entry{{Kind: EntryTool, ToolCallID: "t", Title: "Edit", ToolStatus: "completed", Locations: c.locs}}, 200)
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%+v: %q, want %q", c.locs, got, c.want)
		}
	}
}

// TestPlanIsAChecklist: a plan's entries are drawn with a mark by status
// (done, running, pending), an unusual priority said; a plan written
// before the entries were kept whole is drawn as its lines.
func TestPlanIsAChecklist(t *testing.T) {
	e := Entry{Kind: EntryPlan, Plan: []string{"[completed] Read", "[in_progress] Fix", "[pending] Test"},
		PlanItems: []PlanItem{{Content: "Read", Priority: "high", Status: "completed"}, {Content: "Fix", Priority: "medium", Status: "in_progress"}, {Content: "Test", Priority: "low", Status: "pending"}, {Content: "Odd"}}}
	want := []string{"plan:", "  ✓ Read (high)", "  ▸ Fix", "  ○ Test (low)", "  ○ Odd"}
	if got := RenderTranscript([]Entry{e}, 80); !slices.Equal(got, want) {
		t.Errorf("checklist %q, want %q", got, want)
	}
	e.PlanItems = nil
	if got := RenderTranscript([]Entry{e}, 80); !slices.Equal(got, []string{"plan:", "  [completed] Read", "  [in_progress] Fix", "  [pending] Test"}) {
		t.Errorf("an older plan %q", got)
	}
}
