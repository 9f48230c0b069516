package memtrim

import (
	"context"
	"runtime"
	"testing"
	"time"
)

var sink []byte

// garbage allocates n bytes that nothing keeps.
func garbage(n int) {
	for i := 0; i < n; i += 64 << 10 {
		sink = make([]byte, 64<<10)
	}
	sink = nil
}

// TestTrimReturnsMemory: after 16 MB of garbage a trim gives the freed
// heap back to the system.
func TestTrimReturnsMemory(t *testing.T) {
	garbage(16 << 20)
	if res := Trim(); res.Released <= 0 {
		t.Errorf("Trim released %d heap bytes after 16 MB of garbage, want > 0", res.Released)
	}
}

// TestRunTrimsAfterABurstThenRests: Run trims once the start-up has gone
// quiet, however little it allocated, and once a burst of allocation has;
// a collection after that, with nothing allocated, is looked at once and
// not again (an idle process is not woken).
func TestRunTrimsAfterABurstThenRests(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	trimmed := make(chan Result, 16)
	looked := make(chan bool, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ctx, Options{Settle: 20 * time.Millisecond, Burst: 4 << 20,
			Trimmed: func(r Result) { trimmed <- r },
			Looked:  func(again bool) { looked <- again }})
	}()
	select {
	case <-trimmed:
	case <-time.After(30 * time.Second):
		t.Fatal("no trim within 30 s of the start, with nothing allocated since")
	}
	garbage(8 << 20)
	select {
	case <-trimmed:
	case <-time.After(30 * time.Second):
		t.Fatal("no trim within 30 s of an 8 MB burst followed by quiet")
	}
	// Drain the looks so far, then collect with nothing allocated.
	for len(looked) > 0 {
		<-looked
	}
	runtime.GC()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case again := <-looked:
			if !again {
				select {
				case r := <-trimmed:
					t.Fatalf("a collection after the trim, with nothing allocated, trimmed again: %+v", r)
				default:
				}
				cancel()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					t.Fatal("Run did not return within 10 s of its context's end")
				}
				return
			}
		case <-deadline:
			t.Fatal("no look that rests within 30 s of a collection after the trim")
		}
	}
}

// TestWakeTrimsWithoutACollection: work told of through Wake (a harness
// started: code mapped, little allocated) is trimmed once quiet, with no
// collection to arm the look; with no wake and no collection, Run rests.
func TestWakeTrimsWithoutACollection(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	trimmed := make(chan Result, 16)
	wake := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ctx, Options{Settle: 20 * time.Millisecond, Wake: wake, Trimmed: func(r Result) { trimmed <- r }})
	}()
	select {
	case <-trimmed: // the start-up's
	case <-time.After(30 * time.Second):
		t.Fatal("no trim within 30 s of the start")
	}
	select {
	case r := <-trimmed:
		t.Fatalf("a second trim with nothing told and nothing collected: %+v", r)
	case <-time.After(200 * time.Millisecond): // ten looks' worth of rest
	}
	wake <- struct{}{}
	select {
	case <-trimmed:
	case <-time.After(30 * time.Second):
		t.Fatal("no trim within 30 s of a wake")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10 s of its context's end")
	}
}
