// Package memtrim gives memory back to the system when a long-lived
// process (the server, the TUI) goes quiet after a burst of work.
//
// Go's runtime keeps a heap of at least 4 MB before its first collection
// and frees pages to the system slowly, and the pages of the binary that
// only start-up ran stay mapped: for a small idle process those, not its
// live data, are most of what it holds (scripts/bench memory-10). Run
// watches the runtime's own counters twice a second; when the process has
// allocated at least Burst bytes since the last trim and then less than
// Quiet bytes in the last half second, it trims once: a collection that returns
// the freed pages (debug.FreeOSMemory) and, on Linux, the binary's
// read-only pages unmapped, so that only those the process touches again
// count against it (they stay in the page cache; a later use maps them
// again at a minor fault). A process that keeps allocating is left to the
// runtime's collector; an idle one costs a metrics read each half second.
package memtrim

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Options tune Run; a zero field takes its default.
type Options struct {
	// Every is how often the counters are read (500 ms).
	Every time.Duration
	// Burst is how many bytes the process allocates after a trim before
	// the next one is worth it (1 MiB).
	Burst uint64
	// Quiet is the most a process allocates in one period and still
	// counts as quiet (32 KiB: an idle TUI allocates about 40 KiB a
	// second, scripts/bench memory-10 with BENCH_MEMORY_HOLD).
	Quiet uint64
	// Trimmed, when set, is called after each trim with what it returned
	// to the system (tests, logs).
	Trimmed func(Result)
}

// Result is what one trim did.
type Result struct {
	// Released is how many heap bytes the runtime holds returned to the
	// system, after the trim less before it.
	Released int64
	// Unmapped is how many bytes of the binary's read-only mappings were
	// unmapped (their pages stay in the page cache).
	Unmapped int64
	// Err is why the binary's mappings were not unmapped, if they were not.
	Err error
}

const (
	allocsMetric   = "/gc/heap/allocs:bytes"
	releasedMetric = "/memory/classes/heap/released:bytes"
)

// Run trims as the package comment says until ctx ends.
func Run(ctx context.Context, opt Options) {
	if opt.Every <= 0 {
		opt.Every = 500 * time.Millisecond
	}
	if opt.Burst == 0 {
		opt.Burst = 1 << 20
	}
	if opt.Quiet == 0 {
		opt.Quiet = 32 << 10
	}
	tick := time.NewTicker(opt.Every)
	defer tick.Stop()
	sample := []metrics.Sample{{Name: allocsMetric}}
	allocs := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	// At start the whole start-up counts as the burst.
	var lastTrim uint64
	prev := allocs()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		now := allocs()
		if now-lastTrim >= opt.Burst && now-prev < opt.Quiet {
			res := Trim()
			if opt.Trimmed != nil {
				opt.Trimmed(res)
			}
			// What the trim itself allocated does not start a burst.
			now = allocs()
			lastTrim = now
		}
		prev = now
	}
}

// Trim collects the garbage, returns the freed pages to the system and
// unmaps the binary's read-only pages (see the package comment).
func Trim() Result {
	released := []metrics.Sample{{Name: releasedMetric}}
	metrics.Read(released)
	before := int64(released[0].Value.Uint64())
	debug.FreeOSMemory()
	metrics.Read(released)
	res := Result{Released: int64(released[0].Value.Uint64()) - before}
	res.Unmapped, res.Err = unmapBinary()
	return res
}
