package server

import (
	"sync"
	"time"
)

// quietWatch says that a turn's agent has been quiet (the "no reply yet"
// notice) once per quiet spell: when spell passes with nothing heard from
// it since the turn started or it was last heard. It keeps no goroutine
// and wakes none: an update only notes the time it was heard, and the one
// timer, when it fires before the spell since then has passed, is armed
// again for the rest. A goroutine woken by a channel at every update put a
// thread's wake-up on the way of every update to an ACP client.
type quietWatch struct {
	spell time.Duration
	clock budgetClock // a test's own, or realClock
	quiet func()

	mu      sync.Mutex
	last    time.Time // when the agent was last heard, or the turn began
	said    bool      // quiet was said for the spell since last
	stopped bool
	timer   stopper
	saying  sync.WaitGroup // a quiet call under way
}

// newQuietWatch is the watch of a turn, which begin starts: quiet is
// called on the timer's goroutine, never once stop has returned.
func newQuietWatch(spell time.Duration, quiet func()) *quietWatch {
	return &quietWatch{spell: spell, clock: realClock{}, quiet: quiet}
}

// begin starts the first spell now.
func (w *quietWatch) begin() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	w.last = w.clock.Now()
	w.timer = w.clock.AfterFunc(w.spell, w.fired)
}

// heard notes that the agent was heard from: a new spell begins.
func (w *quietWatch) heard() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last = w.clock.Now()
	if w.said && !w.stopped && w.timer != nil {
		// The timer stopped when it said: the new spell needs one.
		w.said = false
		w.timer = w.clock.AfterFunc(w.spell, w.fired)
	}
}

// fired is the timer's: the spell since the agent was last heard has
// passed, or the timer is armed again for what is left of it.
func (w *quietWatch) fired() {
	w.mu.Lock()
	if w.stopped || w.said {
		w.mu.Unlock()
		return
	}
	if left := w.spell - w.clock.Now().Sub(w.last); left > 0 {
		w.timer = w.clock.AfterFunc(left, w.fired)
		w.mu.Unlock()
		return
	}
	w.said = true
	w.saying.Add(1)
	w.mu.Unlock()
	defer w.saying.Done()
	w.quiet()
}

// stop ends the watch once any quiet call under way has returned.
func (w *quietWatch) stop() {
	w.mu.Lock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	w.saying.Wait()
}
