package server

import (
	"sync"
	"time"
)

// quietWatch says that a chat's agent has been quiet during a turn (the
// "no reply yet" notice) once per quiet spell: when spell passes with
// nothing heard from it since the turn began or it was last heard. It
// keeps no goroutine and wakes none on a turn's way: an update only notes
// the time it was heard, and the one timer, when it fires before the spell
// since then has passed, is armed again for the rest.
//
// The watch is the chat's, begun and stopped by each of its turns, and a
// timer armed in one turn serves the next ones: stop leaves it to fire
// (when it finds no turn and is not armed again) rather than stopping it,
// so turns that follow each other within a spell arm none. A timer made
// as a turn begins is, more often than not, the runtime's earliest, and
// making one then wakes a thread to watch for it: a wake-up on the way of
// every prompt. A goroutine woken by a channel at every update, before
// the timer, put one on the way of every update to an ACP client.
type quietWatch struct {
	spell time.Duration
	clock budgetClock // a test's own, or realClock
	quiet func()

	mu       sync.Mutex
	last     time.Time // when the agent was last heard, or the turn began
	said     bool      // quiet was said for the spell since last
	watching bool      // a turn runs: between begin and stop
	armed    bool      // a timer is pending, perhaps an earlier turn's
	saying   sync.WaitGroup
}

// newQuietWatch is a chat's watch, which each turn begins and stops: quiet
// is called on the timer's goroutine, never once stop has returned.
func newQuietWatch(spell time.Duration, quiet func()) *quietWatch {
	return &quietWatch{spell: spell, clock: realClock{}, quiet: quiet}
}

// begin starts a turn's first spell now.
func (w *quietWatch) begin() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.watching, w.said = true, false
	w.last = w.clock.Now()
	if !w.armed {
		w.armLocked(w.spell)
	}
}

// armLocked arms the timer to fire in d.
func (w *quietWatch) armLocked(d time.Duration) {
	w.armed = true
	w.clock.AfterFunc(d, w.fired)
}

// heard notes that the agent was heard from: a new spell begins.
func (w *quietWatch) heard() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.last = w.clock.Now()
	if w.said && w.watching && !w.armed {
		// The timer was spent when it said: the new spell needs one.
		w.said = false
		w.armLocked(w.spell)
	}
}

// fired is the timer's: the spell since the agent was last heard has
// passed, or the timer is armed again for what is left of it, or no turn
// runs and it ends.
func (w *quietWatch) fired() {
	w.mu.Lock()
	w.armed = false
	if !w.watching || w.said {
		w.mu.Unlock()
		return
	}
	if left := w.spell - w.clock.Now().Sub(w.last); left > 0 {
		w.armLocked(left)
		w.mu.Unlock()
		return
	}
	w.said = true
	w.saying.Add(1)
	w.mu.Unlock()
	defer w.saying.Done()
	w.quiet()
}

// stop ends the turn's watch once any quiet call under way has returned.
func (w *quietWatch) stop() {
	w.mu.Lock()
	w.watching = false
	w.mu.Unlock()
	w.saying.Wait()
}
