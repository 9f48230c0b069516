package server

import (
	"slices"
	"sync"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

// This file is one connection's stream of one chat (see prompt.go): the
// backlog the mux's observer fills, and the goroutine that sends it while
// the connection's queue has room.

// watcher streams one chat to one connection.
type watcher struct {
	c    *conn
	feed *chatFeed
	wake chan struct{} // the backlog has something
	stop chan struct{} // closed by unobserve

	mu      sync.Mutex
	backlog []proto.ObservedEntry
	size    int // the backlog's cost
	// missed counts the updates dropped since the backlog overflowed; it
	// drops until the backlog has been sent, then says how many.
	missed  int
	sending bool            // a batch is taken but not yet queued
	waiters []chan struct{} // closed when the backlog is all queued
}

func backlogCost(e proto.ObservedEntry) int {
	n := entryCost + len(e.Text) + len(e.Title)
	for _, p := range e.Plan {
		n += len(p)
	}
	for _, l := range e.Locations {
		n += len(l.Path)
	}
	for _, p := range e.Paths {
		n += len(p)
	}
	return n
}

// joins reports whether chunk e continues entry last, as the transcript
// joins them: same kind and message id, and a user chunk only with an id.
func joins(last, e proto.ObservedEntry) bool {
	switch e.Kind {
	case proto.EntryAgent, proto.EntryThought:
	case proto.EntryUser:
		if e.MessageID == "" {
			return false
		}
	default:
		return false
	}
	return last.Kind == e.Kind && last.MessageID == e.MessageID && len(last.Text)+len(e.Text) <= maxJoined
}

// push adds e to the backlog. An entry that does not fit, and every entry
// after it until the backlog has been sent, is counted as missed instead;
// always marks an entry that is never dropped (a turn's start and end,
// which a client needs to read the rest).
func (w *watcher) push(e proto.ObservedEntry, always bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	cost := backlogCost(e)
	if !always && len(w.backlog) > 0 && (w.missed > 0 || w.size+cost > maxBacklog) {
		w.missed++
		w.signal()
		return
	}
	if w.sendNowLocked(e) {
		return
	}
	if w.missed > 0 {
		w.backlog = append(w.backlog, proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryMissed, At: time.Now()}, Count: w.missed})
		w.size += entryCost
		w.missed = 0
	}
	if n := len(w.backlog); n > 0 && joins(w.backlog[n-1], e) {
		last := &w.backlog[n-1]
		last.Text += e.Text
		last.At = e.At
		w.size += len(e.Text)
	} else {
		w.backlog = append(w.backlog, e)
		w.size += cost
	}
	w.signal()
}

func (w *watcher) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// sent returns a channel closed once everything in the backlog now has
// been queued for the client.
func (w *watcher) sent() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch := make(chan struct{})
	if len(w.backlog) == 0 && w.missed == 0 && !w.sending {
		close(ch)
		return ch
	}
	w.waiters = append(w.waiters, ch)
	return ch
}

// take removes the next batch from the backlog (the missed mark, once the
// backlog is empty after an overflow); nil when there is nothing to send.
func (w *watcher) take() []proto.ObservedEntry {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.backlog) == 0 {
		if w.missed == 0 {
			w.wakeWaitersLocked()
			return nil
		}
		w.sending = true
		n := w.missed
		w.missed = 0
		return []proto.ObservedEntry{{Entry: proto.Entry{Kind: proto.EntryMissed, At: time.Now()}, Count: n}}
	}
	n, size := 0, 0
	for n < len(w.backlog) && (n == 0 || size+backlogCost(w.backlog[n]) <= maxBatch) {
		size += backlogCost(w.backlog[n])
		n++
	}
	batch := slices.Clone(w.backlog[:n])
	clear(w.backlog[:n])
	w.backlog = w.backlog[n:]
	if len(w.backlog) == 0 {
		w.backlog = nil // let the grown array go
	}
	w.size = max(w.size-size, 0)
	w.sending = true
	return batch
}

// queued notes that the batch taken is in the connection's queue.
func (w *watcher) queued() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sending = false
	if len(w.backlog) == 0 && w.missed == 0 {
		w.wakeWaitersLocked()
	}
}

func (w *watcher) wakeWaitersLocked() {
	for _, ch := range w.waiters {
		close(ch)
	}
	w.waiters = nil
}

// run sends the backlog as it fills, until unobserve or the connection's
// end.
func (w *watcher) run() {
	defer w.c.release()
	defer w.feed.forget(w)
	for {
		select {
		case <-w.wake:
		case <-w.stop:
			return
		case <-w.c.gone:
			return
		}
		if !w.flush() {
			return
		}
	}
}

// flush sends the backlog a batch per notification while the connection's
// queue has room; false once the watcher is to end.
func (w *watcher) flush() bool {
	for {
		if len(w.c.out) >= cap(w.c.out)/2 {
			t := time.NewTimer(congestedPoll)
			select {
			case <-t.C:
				continue
			case <-w.stop:
				t.Stop()
				return false
			case <-w.c.gone:
				t.Stop()
				return false
			}
		}
		batch := w.take()
		if batch == nil {
			return true
		}
		if w.c.door != nil {
			if !w.flushDoor(batch) {
				w.queued()
				return false
			}
		} else {
			w.c.notify(proto.MethodEntries, proto.EntriesParams{ID: w.feed.id, Entries: batch})
		}
		w.queued()
	}
}
