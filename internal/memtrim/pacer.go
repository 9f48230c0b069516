package memtrim

import "time"

// pacer decides when Run looks at the process and which look trims. It
// holds no clock and reads no counter: Run tells it the time and the
// runtime's counts at each event, so its tests run on a made-up clock.
//
// A look reads how much the process allocated since the one before.
// Something to give back (the start-up, a wake, or Burst bytes allocated
// since the last trim) is trimmed at the first look that finds the
// process quiet (less than Quiet allocated since the look before, itself
// at least Settle ago). A process that allocates at Quiet a Settle or
// more is looked at again after Settle; one with nothing to give back is
// looked at after twice the last wait, and once that wait would pass
// MaxWait the looks stop until a collection or a wake.
type pacer struct {
	settle, maxWait time.Duration
	burst, quiet    uint64

	// step is the wait before the next look; 0 while the looks rest.
	step time.Duration
	// lookedAt and allocs are when the allocations were last read, and
	// what they were: the next look measures from there.
	lookedAt time.Time
	allocs   uint64
	// trimAllocs and trimCycles are the allocations and the collections
	// counted just after the last trim: what a trim already gave back.
	trimAllocs, trimCycles uint64
	// pending says the start-up or a wake is still to be trimmed, however
	// little it allocated (it mapped code: ReleaseImage).
	pending bool
}

// newPacer starts pacing a process that starts at now with allocs bytes
// allocated so far, and returns the wait before the first look.
func newPacer(opt Options, now time.Time, allocs uint64) (*pacer, time.Duration) {
	p := &pacer{settle: opt.Settle, maxWait: opt.MaxWait, burst: opt.Burst, quiet: opt.Quiet,
		step: opt.Settle, lookedAt: now, allocs: allocs, pending: true}
	return p, p.step
}

// woken is work told of at now (Wake): it is trimmed once quiet, and the
// looks start again from Settle. It returns the wait before the next look.
func (p *pacer) woken(now time.Time, allocs uint64) time.Duration {
	p.pending = true
	p.step = p.settle
	p.lookedAt, p.allocs = now, allocs
	return p.settle
}

// collected is a garbage collection seen at now, cycles the collections
// counted so far. The collection of a trim is ignored (ok false: the
// next look stays as it was); any other brings the next look to Settle
// from now, and a collection while the looks rest gets one look, after
// which they rest again unless it finds something to give back.
func (p *pacer) collected(now time.Time, allocs, cycles uint64) (wait time.Duration, ok bool) {
	if cycles <= p.trimCycles {
		return 0, false
	}
	if p.step == 0 {
		p.step = p.maxWait
	}
	p.lookedAt, p.allocs = now, allocs
	return p.settle, true
}

// look is the look due at now, with allocs bytes allocated so far: trim
// says to trim now (then call trimmed for the wait), and otherwise wait is
// the wait before the next look, 0 when the looks rest.
func (p *pacer) look(now time.Time, allocs uint64) (trim bool, wait time.Duration) {
	span := max(now.Sub(p.lookedAt), p.settle)
	allocated := allocs - p.allocs
	p.lookedAt, p.allocs = now, allocs
	want := p.pending || allocs-p.trimAllocs >= p.burst
	quiet := allocated < p.quiet
	// Busy: Quiet a Settle or more, on average over the span.
	busy := float64(allocated)*float64(p.settle) >= float64(p.quiet)*float64(span)
	switch {
	case want && quiet:
		return true, 0
	case want || busy:
		// Something to give back but not yet quiet, or a burst under way
		// that may come to be worth it: look again soon.
		p.step = p.settle
	default:
		p.step *= 2
		if p.step > p.maxWait {
			p.step = 0
		}
	}
	return false, p.step
}

// trimmed is a trim that ended at now, with allocs bytes allocated and
// cycles collections counted (its own included), and returns the wait
// before the next look: what follows a trim is watched, backing off.
func (p *pacer) trimmed(now time.Time, allocs, cycles uint64) time.Duration {
	p.pending = false
	p.trimAllocs, p.trimCycles = allocs, cycles
	p.lookedAt, p.allocs = now, allocs
	p.step = min(2*p.settle, p.maxWait)
	return p.step
}
