// Package memtrim gives the freed heap of a long-lived process (the
// server, the TUI) back to the system, and lets go of the binary's pages
// it mapped, once it goes quiet after a burst of work.
//
// Go's runtime keeps the pages a burst freed, returning them to the system
// only slowly, and a burst under the collector's 4 MB minimum is not even
// collected: for a small idle process that slack, and the code and tables
// its start-up mapped, not its live data, are much of what it holds
// (scripts/bench memory-10). Run trims (debug.FreeOSMemory, then
// ReleaseImage) a moment after the start-up, after a wake and after a
// burst, once the process is quiet, whether or not a collection ran: it
// looks on a timer (see pacer), a Settle after the start, a wake or a
// collection, again after Settle while the process is busy or has
// something to give back, and at doubling waits after that. When a wait
// would pass MaxWait with nothing to give back, the timer stops: an idle
// process is not woken again until it collects or is woken. It collects
// every two minutes at the least (the runtime forces a collection when
// none ran for that long, unless GOGC=off, once one has run: the first
// trim's), and each collection brings one look, so a burst that comes
// while the looks rest is trimmed within about two minutes.
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
	// Settle is how long after the start, a wake or a collection Run
	// looks, how long a process must have been quiet to be trimmed, and
	// the shortest wait between looks (1 s).
	Settle time.Duration
	// MaxWait is the longest wait between looks: once the next would be
	// longer, with nothing to give back, the looks stop until a
	// collection or a wake (1 min: the runtime forces a collection
	// every two minutes, and each brings a look).
	MaxWait time.Duration
	// Burst is how many bytes the process allocates after a trim before
	// the next one is worth it (256 KiB: an idle server or TUI, whose
	// timers allocate a few KiB every few seconds, gets there in about
	// five minutes).
	Burst uint64
	// Quiet is the most the process allocates in one Settle and still
	// counts as quiet (64 KiB: an idle TUI or server allocates a few KiB
	// every few seconds).
	Quiet uint64
	// Trimmed, when set, is called after each trim with what it returned
	// to the system (tests, logs).
	Trimmed func(Result)
	// Looked, when set (tests), is called after each look.
	Looked func(Look)
	// Wake, when set, tells Run of work that mapped code without
	// necessarily allocating much (the server starting a harness): Run
	// trims a moment after it, once quiet, as after the start.
	Wake <-chan struct{}
}

// withDefaults fills o's zero fields with their defaults; MaxWait is at
// least Settle.
func (o Options) withDefaults() Options {
	if o.Settle <= 0 {
		o.Settle = time.Second
	}
	if o.MaxWait <= 0 {
		o.MaxWait = time.Minute
	}
	o.MaxWait = max(o.MaxWait, o.Settle)
	if o.Burst == 0 {
		o.Burst = 256 << 10
	}
	if o.Quiet == 0 {
		o.Quiet = 64 << 10
	}
	return o
}

// Look is what one look of Run did.
type Look struct {
	// Trimmed says the look trimmed.
	Trimmed bool
	// Wait is how long until the next look; 0 when the looks rest until
	// a collection or a wake.
	Wait time.Duration
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
	cyclesMetric   = "/gc/cycles/total:gc-cycles"
	releasedMetric = "/memory/classes/heap/released:bytes"
)

// Run trims as the package comment says until ctx ends.
func Run(ctx context.Context, opt Options) {
	opt = opt.withDefaults()
	samples := []metrics.Sample{{Name: allocsMetric}, {Name: cyclesMetric}}
	read := func() (allocs, cycles uint64) {
		metrics.Read(samples)
		return samples[0].Value.Uint64(), samples[1].Value.Uint64()
	}
	collected := make(chan struct{}, 1)
	notifyCollections(ctx, collected)
	allocs, _ := read()
	p, wait := newPacer(opt, time.Now(), allocs)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-collected:
			allocs, cycles := read()
			if wait, ok := p.collected(time.Now(), allocs, cycles); ok {
				timer.Reset(wait)
			}
		case <-opt.Wake:
			allocs, _ := read()
			timer.Reset(p.woken(time.Now(), allocs))
		case <-timer.C:
			allocs, _ := read()
			trim, wait := p.look(time.Now(), allocs)
			if trim {
				res := Trim()
				if opt.Trimmed != nil {
					opt.Trimmed(res)
				}
				// What the trim (and its report) allocated starts no burst,
				// and its collection brings no look.
				allocs, cycles := read()
				wait = p.trimmed(time.Now(), allocs, cycles)
			}
			if wait > 0 {
				timer.Reset(wait)
			}
			if opt.Looked != nil {
				opt.Looked(Look{Trimmed: trim, Wait: wait})
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
