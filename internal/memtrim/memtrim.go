// Package memtrim gives the freed heap of a long-lived process (the
// server, the TUI) back to the system, and lets go of the binary's pages
// it mapped, once it goes quiet after a burst of work.
//
// Go's runtime keeps the pages a burst freed, returning them to the system
// only slowly: for a small idle process that slack, not its live data, is
// much of what it holds (scripts/bench memory-10). Run looks a moment
// after the process starts, after each garbage collection and after each
// Wake; when the process has allocated at least Burst bytes since the last
// trim (or has just started, or was woken) and less than Quiet in that
// moment, it trims once (debug.FreeOSMemory, then ReleaseImage: the code
// and tables the burst touched). It never
// polls: an idle process allocates nothing, so it collects nothing and Run
// does not wake; a busy one is looked at once a moment until it is quiet.
package memtrim

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Options tune Run; a zero field takes its default.
type Options struct {
	// Settle is how long after the start, or a collection, Run looks
	// (1 s).
	Settle time.Duration
	// Burst is how many bytes the process allocates after a trim before
	// the next one is worth it (1 MiB).
	Burst uint64
	// Quiet is the most the process allocates in one Settle and still
	// counts as quiet (64 KiB: an idle TUI redrawing its clock allocates
	// about 40 KiB a second).
	Quiet uint64
	// Trimmed, when set, is called after each trim with what it returned
	// to the system (tests, logs).
	Trimmed func(Result)
	// Looked, when set (tests), is called after each look; again says
	// whether Run looks again without a collection first.
	Looked func(again bool)
	// Wake, when set, tells Run of work that mapped code without
	// necessarily allocating enough for a collection (the server starting
	// a harness): Run looks a moment after it, as after a collection.
	Wake <-chan struct{}
}

// Result is what one trim did.
type Result struct {
	// Released is how many heap bytes the runtime holds returned to the
	// system, after the trim less before it.
	Released int64
	// Unmapped is how many bytes of the binary's own pages the process
	// let go of (ReleaseImage); ImageErr says why it could not.
	Unmapped int64
	ImageErr error
}

const (
	allocsMetric   = "/gc/heap/allocs:bytes"
	releasedMetric = "/memory/classes/heap/released:bytes"
)

// Run trims as the package comment says until ctx ends.
func Run(ctx context.Context, opt Options) {
	if opt.Settle <= 0 {
		opt.Settle = time.Second
	}
	if opt.Burst == 0 {
		opt.Burst = 1 << 20
	}
	if opt.Quiet == 0 {
		opt.Quiet = 64 << 10
	}
	sample := []metrics.Sample{{Name: allocsMetric}}
	allocs := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	collected := make(chan struct{}, 1)
	notifyCollections(ctx, collected)
	// At start the whole start-up counts as a burst, however little it
	// allocated: it mapped most of the binary (ReleaseImage); so does the
	// work Wake tells of.
	var lastTrim uint64
	startUp := true
	from := allocs()
	look := time.NewTimer(opt.Settle)
	defer look.Stop()
	armed := true
	for {
		select {
		case <-ctx.Done():
			return
		case <-collected:
			if !armed {
				look.Reset(opt.Settle)
				from, armed = allocs(), true
			}
		case <-opt.Wake:
			// Work happened: it counts as a burst, as the start-up does.
			startUp = true
			if !armed {
				look.Reset(opt.Settle)
				from, armed = allocs(), true
			}
		case <-look.C:
			now := allocs()
			again := false
			switch {
			case !startUp && now-lastTrim < opt.Burst:
				// Nothing worth giving back since the last trim (its own
				// collection ends here).
			case now-from >= opt.Quiet:
				again = true // still busy: look once more
			default:
				res := Trim()
				if opt.Trimmed != nil {
					opt.Trimmed(res)
				}
				lastTrim = allocs() // what the trim allocated starts no burst
				startUp = false
			}
			armed = again
			if again {
				look.Reset(opt.Settle)
				from = now
			}
			if opt.Looked != nil {
				opt.Looked(again)
			}
		}
	}
}

// notifyCollections tells ch (without blocking) of each garbage collection
// until ctx ends: a cleanup on an object nothing keeps runs after the
// collection that finds it, and makes the next one.
func notifyCollections(ctx context.Context, ch chan<- struct{}) {
	// A pointer field keeps the object out of the tiny allocator, whose
	// blocks are shared and so not freed with it.
	type sentinel struct{ _ *int }
	var arm func(struct{})
	arm = func(struct{}) {
		if ctx.Err() != nil {
			return
		}
		select {
		case ch <- struct{}{}:
		default:
		}
		runtime.AddCleanup(&sentinel{}, arm, struct{}{})
	}
	runtime.AddCleanup(&sentinel{}, arm, struct{}{})
}

// Trim collects the garbage, returns the freed pages to the system, and
// lets go of the binary's pages that the burst (or the start-up) mapped
// (ReleaseImage): what the quiet process goes on using comes back.
func Trim() Result {
	released := []metrics.Sample{{Name: releasedMetric}}
	metrics.Read(released)
	before := int64(released[0].Value.Uint64())
	debug.FreeOSMemory()
	metrics.Read(released)
	res := Result{Released: int64(released[0].Value.Uint64()) - before}
	res.Unmapped, res.ImageErr = ReleaseImage()
	return res
}
