package server

import (
	"testing"
	"time"
)

// TestWatchQuietSaysOncePerQuietSpell: "no reply yet" is said when a spell
// passes with no update, once per quiet spell; an update only moves the
// spell's end (the timer, when it fires early, is armed for the rest);
// nothing is said once the watch stopped, and stop waits for a saying
// under way.
func TestWatchQuietSaysOncePerQuietSpell(t *testing.T) {
	const spell = 10 * time.Second
	clock := newFakeClock()
	entered, release := make(chan struct{}, 4), make(chan struct{}, 4)
	said := 0
	w := &quietWatch{spell: spell, clock: clock, quiet: func() {
		said++
		entered <- struct{}{}
		<-release
	}}
	release <- struct{}{}
	release <- struct{}{}
	advance := func(d time.Duration) {
		clock.mu.Lock()
		clock.now = clock.now.Add(d)
		clock.mu.Unlock()
	}
	w.heard() // before the turn began: nothing armed
	if clock.fireNext() {
		t.Fatal("a timer was armed before the watch began")
	}
	w.begin()
	advance(4 * time.Second)
	w.heard()
	// The spell from the start ends: 4 s of the one since the update are
	// left, and the timer waits for them.
	if !clock.fireNext() || said != 0 {
		t.Fatalf("at 10 s, 6 s after an update: said %d times, or no timer", said)
	}
	if !clock.fireNext() || said != 1 {
		t.Fatalf("at 14 s, a spell after the update: said %d times, want 1", said)
	}
	<-entered
	if clock.fireNext() {
		t.Fatal("a timer is armed after the spell was said, before the agent was heard again")
	}
	advance(time.Second)
	w.heard()
	if !clock.fireNext() || said != 2 {
		t.Fatalf("a spell after the next update: said %d times, want 2", said)
	}
	<-entered

	// stop waits for a saying under way.
	w.heard()
	fired := make(chan struct{})
	go func() { clock.fireNext(); close(fired) }()
	deadline := time.NewTimer(hangDeadline)
	defer deadline.Stop()
	select {
	case <-entered:
	case <-deadline.C:
		t.Fatal("the third spell was never said")
	}
	stopped := make(chan struct{})
	go func() { w.stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("stop returned while the saying was under way")
	default:
	}
	release <- struct{}{}
	for _, ch := range []chan struct{}{fired, stopped} {
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatal("stop did not return once the saying had")
		}
	}
	w.heard()
	if clock.fireNext() || said != 3 {
		t.Fatalf("after stop: a timer armed, or said %d times (want 3)", said)
	}
}

// Turns that follow each other within a spell arm no timer of their own:
// the one an earlier turn armed fires, finds the spell since the later
// turn began unspent and is armed for the rest; once no turn runs it ends.
func TestQuietWatchTimerServesTheTurnsAfter(t *testing.T) {
	const spell = 10 * time.Second
	clock := newFakeClock()
	said := 0
	w := &quietWatch{spell: spell, clock: clock, quiet: func() { said++ }}
	pending := func() int {
		clock.mu.Lock()
		defer clock.mu.Unlock()
		n := 0
		for _, tm := range clock.timers {
			if !tm.stopped {
				n++
			}
		}
		return n
	}
	for range 3 {
		w.begin()
		clock.mu.Lock()
		clock.now = clock.now.Add(3 * time.Second)
		clock.mu.Unlock()
		w.stop()
	}
	if n := pending(); n != 1 {
		t.Fatalf("three turns within a spell left %d timers pending, want the first's alone", n)
	}
	w.begin() // at 9 s: the first turn's timer is due at 10 s
	if !clock.fireNext() || said != 0 || pending() != 1 {
		t.Fatalf("the first turn's timer, in the fourth turn's spell: said %d times, %d timers pending (want 0 and 1, the rest of the spell)", said, pending())
	}
	if !clock.fireNext() || said != 1 {
		t.Fatalf("a spell after the fourth turn began: said %d times, want 1", said)
	}
	w.stop()
	w.begin()
	w.stop()
	if !clock.fireNext() || said != 1 || pending() != 0 {
		t.Fatalf("a timer firing with no turn running: said %d times (want 1), %d timers pending (want none)", said, pending())
	}
}
