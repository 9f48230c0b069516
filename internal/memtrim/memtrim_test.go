package memtrim

import (
	"context"
	"runtime"
	"runtime/debug"
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

// running is Run in the background with short waits, and what it reports.
type running struct {
	trimmed chan Result
	looked  chan Look
	wake    chan struct{}
	stop    func()
}

// runShort starts Run with a Settle of 20 ms and a MaxWait of 640 ms (a
// test stalled for more than a second can miss a burst); its
// stop ends Run and fails t if it does not return.
func runShort(t *testing.T) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{trimmed: make(chan Result, 64), looked: make(chan Look, 1024), wake: make(chan struct{}, 1)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ctx, Options{Settle: 20 * time.Millisecond, MaxWait: 640 * time.Millisecond, Wake: r.wake,
			Trimmed: func(res Result) { r.trimmed <- res },
			Looked:  func(l Look) { r.looked <- l }})
	}()
	r.stop = func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return within 10 s of its context's end")
		}
	}
	t.Cleanup(r.stop)
	return r
}

// waitTrim waits for a look that trimmed (Run has then counted what the
// trim allocated), failing t with what after 30 s.
func (r *running) waitTrim(t *testing.T, what string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case l := <-r.looked:
			if l.Trimmed {
				<-r.trimmed // reported before the look ended
				return
			}
		case <-deadline:
			t.Fatalf("no trim within 30 s of %s", what)
		}
	}
}

// waitRest waits for a look after which the looks rest, failing t after
// 30 s; it reports whether a look on the way trimmed.
func (r *running) waitRest(t *testing.T) (trimmed bool) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case l := <-r.looked:
			if l.Trimmed {
				<-r.trimmed
				trimmed = true
			}
			if l.Wait == 0 {
				return trimmed
			}
		case <-deadline:
			t.Fatal("the looks did not come to rest within 30 s")
		}
	}
}

// TestRunTrimsABurstWithoutACollection: with the collector off, so that
// no collection comes, Run trims the start-up, then a burst once it is
// over, on its timer alone; then its looks rest.
func TestRunTrimsABurstWithoutACollection(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	r := runShort(t)
	r.waitTrim(t, "the start")
	r.waitRest(t)
	// Once the looks rest, a collection (here of the test's own making)
	// brings one: it trims the burst before it.
	garbage(2 << 20)
	runtime.GC()
	r.waitTrim(t, "a 2 MB burst and a collection")
	r.waitRest(t)

	// A burst while the looks back off after a trim is trimmed with no
	// collection at all.
	r.wake <- struct{}{}
	r.waitTrim(t, "a wake")
	garbage(2 << 20)
	if !r.waitRest(t) {
		t.Fatal("the looks came to rest after a 2 MB burst, with no collection, without trimming it")
	}
}

// TestRunRestsAndWakes: after the start-up's trim the looks come to rest;
// work told of through Wake (a harness started: code mapped, little
// allocated) is trimmed with no collection to bring the look.
func TestRunRestsAndWakes(t *testing.T) {
	r := runShort(t)
	r.waitTrim(t, "the start")
	r.waitRest(t)
	r.wake <- struct{}{}
	r.waitTrim(t, "a wake")
}
