package memtrim

import (
	"slices"
	"testing"
	"time"
)

// The pacer's tests run a made-up process on a made-up clock: what it has
// allocated at each moment, the collections and wakes it sees, and what
// the pacer makes of them; no test waits on the wall clock.

const (
	kib = 1 << 10
	mib = 1 << 20
	sec = time.Second
)

// eventKind is what happens to the made-up process at one moment.
type eventKind int

const (
	wakeEvent    eventKind = iota // Wake: work told of
	collectEvent                  // a collection of the runtime's own
	noticeEvent                   // the late notice of a trim's collection
)

type event struct {
	at   time.Duration
	kind eventKind
}

// process is a made-up process: allocated says how many bytes it has
// allocated by each moment (a trim adds trimAllocs more), events are its
// wakes and collections.
type process struct {
	allocated  func(at time.Duration) uint64
	events     []event
	trimAllocs uint64
}

// paced is what the pacer did with a process: when it looked, when it
// trimmed, and when its looks came to rest.
type paced struct {
	looks, trims, rests []time.Duration
}

// run paces pr with the defaults (Settle 1 s, MaxWait 1 min, Burst 256
// KiB, Quiet 64 KiB) until the clock reads until. At one moment wakes and
// collections come before a look, as a timer that fires with a wake
// waiting may come second.
func (pr process) run(until time.Duration) paced {
	var out paced
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	events := slices.Clone(pr.events)
	slices.SortStableFunc(events, func(a, b event) int { return int(a.at - b.at) })
	var cycles, extra uint64
	allocs := func(at time.Duration) uint64 { return pr.allocated(at) + extra }
	p, wait := newPacer(Options{}.withDefaults(), epoch, allocs(0))
	due := wait // when the next look is; < 0 while the looks rest
	for {
		if len(events) > 0 && (due < 0 || events[0].at <= due) {
			e := events[0]
			events = events[1:]
			if e.at > until {
				return out
			}
			switch e.kind {
			case wakeEvent:
				due = e.at + p.woken(epoch.Add(e.at), allocs(e.at))
			case collectEvent, noticeEvent:
				if e.kind == collectEvent {
					cycles++
				}
				if w, ok := p.collected(epoch.Add(e.at), allocs(e.at), cycles); ok {
					due = e.at + w
				}
			}
			continue
		}
		if due < 0 || due > until {
			return out
		}
		at := due
		out.looks = append(out.looks, at)
		trim, w := p.look(epoch.Add(at), allocs(at))
		if trim {
			out.trims = append(out.trims, at)
			cycles++ // the trim's own collection, whose notice comes late
			extra += pr.trimAllocs
			events = append([]event{{at, noticeEvent}}, events...)
			w = p.trimmed(epoch.Add(at), allocs(at), cycles)
		}
		due = at + w
		if w == 0 {
			out.rests = append(out.rests, at)
			due = -1
		}
	}
}

// idle allocates a little every few seconds, as an idle server's or TUI's
// timers do.
func idle(at time.Duration) uint64 { return uint64(at/(5*sec)) * 4 * kib }

// startUp allocates 2 MiB over its first half second, then idles.
func startUp(at time.Duration) uint64 {
	if at < sec/2 {
		return uint64(float64(2*mib) * at.Seconds() * 2)
	}
	return 2*mib + idle(at)
}

// burst adds n bytes allocated evenly from from to to.
func burst(base func(time.Duration) uint64, from, to time.Duration, n uint64) func(time.Duration) uint64 {
	return func(at time.Duration) uint64 {
		switch {
		case at <= from:
			return base(at)
		case at >= to:
			return base(at) + n
		}
		return base(at) + uint64(float64(n)*float64(at-from)/float64(to-from))
	}
}

func secs(s ...float64) []time.Duration {
	out := make([]time.Duration, len(s))
	for i, v := range s {
		out[i] = time.Duration(v * float64(sec))
	}
	return out
}

func wantTimes(t *testing.T, what string, got, want []time.Duration) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s at %v, want %v", what, got, want)
	}
}

// TestPacerTrimsTheStartUpThenRests: the start-up is trimmed at the first
// look that finds the process quiet; the looks then back off, 2 s, 4 s,
// ... to a minute, and stop, though the idle process goes on allocating a
// little.
func TestPacerTrimsTheStartUpThenRests(t *testing.T) {
	got := process{allocated: startUp, trimAllocs: 150 * kib}.run(time.Hour)
	wantTimes(t, "trims", got.trims, secs(2))
	wantTimes(t, "looks", got.looks, secs(1, 2, 4, 8, 16, 32, 64))
	wantTimes(t, "rests", got.rests, secs(64))
}

// TestPacerTrimsABurstWithoutACollection: a burst after the start-up's
// trim, too small for the runtime to collect, is trimmed once it is over
// and quiet, by the backing-off looks alone.
func TestPacerTrimsABurstWithoutACollection(t *testing.T) {
	got := process{allocated: burst(startUp, 10*sec, 10*sec+sec/2, 700*kib)}.run(time.Hour)
	// The look at 16 s finds the burst (700 KiB in 8 s: busy, and worth
	// a trim); the one at 17 s finds the process quiet.
	wantTimes(t, "trims", got.trims, secs(2, 17))
	if len(got.rests) != 1 || got.rests[0] != 17*sec+62*sec {
		t.Errorf("looks rest at %v, want once at 79 s (a minute of backing off after the trim)", got.rests)
	}
}

// TestPacerLeavesASmallBurst: less than Burst allocated after a trim
// (an idle process's timers, a short call) is not worth a trim: the looks
// back off and rest as if nothing happened.
func TestPacerLeavesASmallBurst(t *testing.T) {
	got := process{allocated: burst(startUp, 10*sec, 11*sec, 100*kib)}.run(time.Hour)
	wantTimes(t, "trims", got.trims, secs(2))
	// The look at 16 s finds 100 KiB in 8 s: not busy, so the backing
	// off goes on.
	wantTimes(t, "looks", got.looks, secs(1, 2, 4, 8, 16, 32, 64))
}

// TestPacerLooksEverySettleWhileBusy: a process that goes on allocating
// is looked at every second, never trimmed while busy, and trimmed at the
// first look after it stopped.
func TestPacerLooksEverySettleWhileBusy(t *testing.T) {
	busy := burst(idle, 0, 10*sec, 2*mib) // 200 KiB a second for 10 s
	got := process{allocated: busy}.run(time.Hour)
	wantTimes(t, "trims", got.trims, secs(11))
	wantTimes(t, "looks before the trim", got.looks[:11], secs(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11))
}

// TestPacerWatchesACollectionWhileResting: once the looks rest, a
// collection brings one look a Settle later: it trims what a burst since
// left, and with nothing to give back the looks rest again at once. A
// trim's own collection brings no look.
func TestPacerWatchesACollectionWhileResting(t *testing.T) {
	alloc := burst(startUp, 4*time.Minute, 4*time.Minute+sec, 1*mib)
	got := process{allocated: alloc, events: []event{
		{5 * time.Minute, collectEvent},
		{8 * time.Minute, collectEvent},
	}}.run(time.Hour)
	wantTimes(t, "trims", got.trims, secs(2, 301))
	wantTimes(t, "rests", got.rests, secs(64, 301+62, 481))
	after := 0
	for _, l := range got.looks {
		if l > 301*sec+62*sec {
			after++
		}
	}
	if after != 1 {
		t.Errorf("%d looks after the second trim's backing off, want 1 (the collection at 8 min's)", after)
	}
}

// TestPacerWakeTrimsWithNothingAllocated: a wake (a harness started:
// code mapped, little allocated) is trimmed a Settle later, once quiet,
// while the looks rest.
func TestPacerWakeTrimsWithNothingAllocated(t *testing.T) {
	got := process{allocated: startUp, events: []event{{10 * time.Minute, wakeEvent}}}.run(time.Hour)
	wantTimes(t, "trims", got.trims, secs(2, 601))
}

// TestPacerIdleIsCheap: an idle process for an hour, with the runtime's
// collection every two minutes, is looked at about once a collection
// plus a backing off after each trim, and trimmed about once per Burst
// its timers allocate.
func TestPacerIdleIsCheap(t *testing.T) {
	var events []event
	collections := 0
	for at := 2 * time.Minute; at <= time.Hour; at += 2 * time.Minute {
		events = append(events, event{at, collectEvent})
		collections++
	}
	got := process{allocated: startUp, events: events, trimAllocs: 150 * kib}.run(time.Hour)
	allocated := idle(time.Hour) + uint64(len(got.trims))*150*kib
	if maxTrims := int(allocated/(256*kib)) + 1; len(got.trims) > maxTrims {
		t.Errorf("%d trims in an idle hour, want at most %d (one per 256 KiB allocated)", len(got.trims), maxTrims)
	}
	// Each trim's backing off: 5 looks over a minute.
	if maxLooks := 2 + collections + 5*len(got.trims); len(got.looks) > maxLooks {
		t.Errorf("%d looks in an idle hour with %d collections and %d trims, want at most %d", len(got.looks), collections, len(got.trims), maxLooks)
	}
	t.Logf("idle hour: %d looks, %d trims, %d collections", len(got.looks), len(got.trims), collections)
}
