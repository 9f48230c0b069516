package web

import (
	"sync"
	"time"
)

// deadline is a read or write deadline of a wsConn, kept as net.Pipe keeps
// its own: a channel closed once the time has passed, so a Read or a Write
// waits on it in a select beside its data. Setting a later time keeps the
// channel while it is still open, so a wait already under way sees the new
// time; setting one after the old time passed makes a fresh channel.
type deadline struct {
	mu     sync.Mutex
	timer  *time.Timer
	passed chan struct{}
}

func newDeadline() *deadline { return &deadline{passed: make(chan struct{})} }

// set makes t the deadline; the zero time means none.
func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.timer != nil && !d.timer.Stop() {
		<-d.passed // the timer fired: its close has happened or is about to
	}
	d.timer = nil
	closed := isClosed(d.passed)
	if t.IsZero() {
		if closed {
			d.passed = make(chan struct{})
		}
		return
	}
	if wait := time.Until(t); wait > 0 {
		if closed {
			d.passed = make(chan struct{})
		}
		ch := d.passed
		d.timer = time.AfterFunc(wait, func() { close(ch) })
		return
	}
	if !closed {
		close(d.passed)
	}
}

// wait returns a channel that is closed once the deadline has passed.
func (d *deadline) wait() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.passed
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
