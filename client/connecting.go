package client

import (
	"context"
	"errors"
	"time"
)

// This file lets a Remote exist before its first connection: the TUI that
// finds no server draws its first frame from the chat files while the
// server it starts comes up (scripts/bench first-frame-1000, cold), rather
// than after a second program has started.

// errConnecting is what a Remote says of its connection while the first
// one is being made.
var errConnecting = errors.New("connecting to the server")

// NewConnectingRemote returns a Remote with no connection yet: ConnectWith
// makes its first. Until then its calls wait for that connection (up to
// their own deadline, or StartTimeout), State says stopped, Render and
// Transcript give nothing, and Lost says nothing is lost: no loss is
// signalled on Link. Should the first connection fail, the Remote is lost
// from then on, with the reason, as one whose server went.
func NewConnectingRemote() *Remote {
	r := newRemote()
	r.lost = errConnecting
	r.connecting = make(chan struct{})
	return r
}

// ConnectWith makes the first connection of a Remote from
// NewConnectingRemote with dial (EnsureServer, which may start a server),
// and says why it failed, as Connected does. It is called once.
func (r *Remote) ConnectWith(dial func() (*Conn, error)) error {
	c, err := dial()
	if err == nil {
		err = r.adopt(c, StartTimeout)
	}
	r.mu.Lock()
	if r.firstPending() {
		// Not made (adopt closes it when it makes the connection).
		r.connectErr = err
		if !r.closed {
			r.lost = err
			if r.dial != nil && !r.redialing {
				r.redialing = true
				go r.redial()
			}
		}
		close(r.connecting)
	}
	r.mu.Unlock()
	if err != nil {
		r.signalLink()
	}
	return err
}

// Connected waits until the first connection of a Remote from
// NewConnectingRemote is made or has failed, and says why it failed;
// connecting says the Remote was made so. Any other Remote returns false,
// nil at once.
func (r *Remote) Connected() (connecting bool, err error) {
	r.mu.Lock()
	wait := r.connecting
	r.mu.Unlock()
	if wait == nil {
		return false, nil
	}
	<-wait
	r.mu.Lock()
	defer r.mu.Unlock()
	return true, r.connectErr
}

// awaitFirst waits, for a call, until the first connection is made or has
// failed (or ctx ends, then bounded by StartTimeout).
func (r *Remote) awaitFirst(ctx context.Context) error {
	r.mu.Lock()
	wait := r.connecting
	r.mu.Unlock()
	if wait == nil {
		return nil
	}
	select {
	case <-wait: // made long ago: the common case, with no timer
		return nil
	default:
	}
	timer := time.NewTimer(StartTimeout)
	defer timer.Stop()
	select {
	case <-wait:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return errors.New("the server did not answer in time")
	}
}

// firstPending reports, with r.mu held, whether the first connection of a
// connecting Remote is still being made.
func (r *Remote) firstPending() bool {
	if r.connecting == nil {
		return false
	}
	select {
	case <-r.connecting:
		return false
	default:
		return true
	}
}
