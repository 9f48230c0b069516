package agent

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestSinceTellsEveryChange: a client that pulls after every change to a
// transcript (a new message, a chunk joining one, a tool call's update, a
// file written, a plan replaced, a terminal's output, entries cut from the
// front) and applies each delta to what it holds, holds the transcript.
func TestSinceTellsEveryChange(t *testing.T) {
	var tr Transcript
	rng := rand.New(rand.NewPCG(1, 2))
	var held []proto.Entry
	var epoch, seq uint64
	var base int64
	pull := func(step string) {
		t.Helper()
		res := tr.Since(epoch, seq)
		if res.Delta {
			var ok bool
			if held, ok = proto.ApplyDelta(held, base, res); !ok {
				t.Fatalf("%s: the delta does not fit what the client holds", step)
			}
		} else {
			held = res.Entries
		}
		epoch, seq, base = res.Epoch, res.Seq, res.Base
		if want := tr.Entries(); !reflect.DeepEqual(held, want) {
			t.Fatalf("%s: the client holds %d entries, the transcript %d:\n%+v\n---\n%+v", step, len(held), len(want), held, want)
		}
	}
	calls := 0
	ops := []func() string{
		func() string { tr.AppendText(proto.EntryAgent, "chunk ", ""); return "an agent chunk" },
		func() string { tr.AppendText(proto.EntryThought, "hmm ", ""); return "a thought chunk" },
		func() string {
			tr.StartTurn("prompt", proto.Link{URI: "file:///a.go", Name: "a.go"})
			return "a prompt"
		},
		func() string {
			calls++
			tr.Tool(proto.Entry{ToolCallID: fmt.Sprint("c", calls), Title: "Run", ToolStatus: "pending",
				Content: []proto.ToolContent{{Type: proto.ToolContentTerminal, TerminalID: fmt.Sprint("t", calls)}}})
			return "a tool call"
		},
		func() string {
			tr.Tool(proto.Entry{ToolCallID: fmt.Sprint("c", rng.IntN(calls+1)), ToolStatus: "completed"})
			return "an earlier call's update"
		},
		func() string {
			tr.TerminalOutput(fmt.Sprint("t", rng.IntN(calls+1)), fmt.Sprint("out ", rng.IntN(9)))
			return "a terminal's output"
		},
		func() string { tr.Wrote(fmt.Sprint("/src/f", rng.IntN(5), ".go")); return "a file written" },
		func() string {
			tr.Plan([]string{"[pending] x"}, []proto.PlanItem{{Content: fmt.Sprint("x", rng.IntN(3)), Status: "pending"}})
			return "a plan"
		},
		func() string { tr.EndTurn("end_turn", fmt.Errorf("failed %d", rng.IntN(3))); return "a turn's end" },
	}
	pull("empty")
	for i := range 3000 {
		step := ops[rng.IntN(len(ops))]()
		if rng.IntN(3) > 0 {
			pull(fmt.Sprintf("step %d, %s", i, step))
		}
	}
	pull("the end")
	// Past the bound, entries are cut from the front: a client that
	// pulls now and then follows.
	for i := range MaxTranscriptEntries + MaxTranscriptEntries/2 {
		tr.StartTurn(fmt.Sprint("prompt ", i))
		if i%997 == 0 {
			pull(fmt.Sprintf("add %d", i))
		}
	}
	pull("after the cut")
	if base == 0 {
		t.Fatal("no entry was cut from the front: the test did not reach the bound")
	}
	// Another transcript (a new agent process) is sent whole.
	var other Transcript
	other.StartTurn("fresh")
	if res := other.Since(epoch, seq); res.Delta || len(res.Entries) != 1 {
		t.Fatalf("another transcript answered delta %v with %d entries, want it whole", res.Delta, len(res.Entries))
	}
}

// BenchmarkTranscriptPullDelta is what a drawing client's pull of a
// 5,000-entry transcript costs after one streamed chunk: the server's
// delta, its line and the client's read and apply (beside
// proto.BenchmarkTranscriptWire, the whole transcript every time).
func BenchmarkTranscriptPullDelta(b *testing.B) {
	var tr Transcript
	for i := range MaxTranscriptEntries {
		if i%10 == 0 {
			tr.StartTurn("fix the flaky test")
			continue
		}
		tr.AppendText(proto.EntryAgent, "a paragraph of the agent's reply, long enough to wrap once or twice in a pane", fmt.Sprint("m", i))
	}
	first := tr.Since(0, 0)
	held, epoch, seq, base := first.Entries, first.Epoch, first.Seq, first.Base
	b.ReportAllocs()
	for b.Loop() {
		tr.AppendText(proto.EntryAgent, " and a chunk more", fmt.Sprint("m", MaxTranscriptEntries-1))
		line, err := json.Marshal(tr.Since(epoch, seq))
		if err != nil {
			b.Fatal(err)
		}
		var res proto.TranscriptResult
		if err := json.Unmarshal(line, &res); err != nil {
			b.Fatal(err)
		}
		var ok bool
		if held, ok = proto.ApplyDelta(held, base, res); !ok {
			b.Fatal("the delta does not fit")
		}
		seq = res.Seq
	}
}
