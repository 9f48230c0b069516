package client

import (
	"reflect"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestRemoteTranscriptTakesOnlyWhatChanged: after the first pull, the
// Remote asks for what changed since (the server answers a delta) and
// holds, after each turn, exactly the transcript a whole pull gives.
func TestRemoteTranscriptTakesOnlyWhatChanged(t *testing.T) {
	h, r, id, ctx := remoteACPChat(t)
	whole := func() []proto.Entry {
		t.Helper()
		c, err := Dial(h)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var res proto.TranscriptResult
		if err := c.Call(ctx, proto.MethodTranscript, proto.TranscriptParams{ID: id}, &res); err != nil {
			t.Fatal(err)
		}
		if res.Delta {
			t.Fatal("a pull with nothing held was answered with a delta")
		}
		return res.Entries
	}
	for i, prompt := range []string{"hello there", "markdown", "edit-diff", "plan-full", "thoughts"} {
		if _, err := r.Prompt(ctx, id, prompt); err != nil {
			t.Fatalf("prompt %q: %v", prompt, err)
		}
		waitRemote(t, r, "the turn over", func() bool { return !r.State(id).TurnActive })
		held := r.Transcript(id)
		if want := whole(); !reflect.DeepEqual(held, want) {
			t.Fatalf("after %q the Remote holds %d entries unlike the whole transcript's %d:\n%+v\n---\n%+v", prompt, len(held), len(want), held, want)
		}
		r.mu.Lock()
		seq := r.chat(id).seq
		r.mu.Unlock()
		if seq == 0 {
			t.Fatalf("after pull %d the Remote counts no change: it would pull the whole again", i)
		}
	}
	// One more pull with nothing new is a delta of nothing.
	c, err := Dial(h)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r.mu.Lock()
	p := proto.TranscriptParams{ID: id, Epoch: r.chat(id).epoch, Since: r.chat(id).seq}
	r.mu.Unlock()
	var res proto.TranscriptResult
	if err := c.Call(ctx, proto.MethodTranscript, p, &res); err != nil {
		t.Fatal(err)
	}
	if !res.Delta || len(res.Changed) != 0 || len(res.Entries) != 0 {
		t.Fatalf("a pull as of the last change: delta %v with %d changed and %d entries, want an empty delta", res.Delta, len(res.Changed), len(res.Entries))
	}
}
