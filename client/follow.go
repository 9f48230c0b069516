package client

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// This file is how a Remote follows its server: when the connection ends
// it dials again with a backoff, or at once after StartServer, and adopts
// the new connection as its own (see adopt).

// Follow makes the Remote dial home's server again whenever its connection
// ends, until Close; binary is the program StartServer runs. Call it once,
// right after NewRemote.
func (r *Remote) Follow(home, binary string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.home, r.binary = home, binary
	if r.lost != nil && !r.redialing {
		r.redialing = true
		go r.redial()
	}
}

// Link delivers a signal each time the connection to the server is lost or
// back (at most one waits); Lost says which.
func (r *Remote) Link() <-chan struct{} { return r.link }

// Lost returns why the connection to the server ended, or nil while one is
// up.
func (r *Remote) Lost() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lost
}

// StartServer starts a server for the agent home in the background, as a
// client that needs one does, and has the Remote connect to it at once. It
// blocks until the server listens or gives up, and says why it did not.
func (r *Remote) StartServer() error {
	r.mu.Lock()
	home, binary, lost := r.home, r.binary, r.lost
	r.mu.Unlock()
	if home == "" {
		return errors.New("start a server: this client does not follow the server")
	}
	if lost == nil {
		return nil // connected: a server runs
	}
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	if c, err := dialHello(ctx, home); err == nil {
		c.Close() // one is back already: the redial loop takes it
	} else if why := startServer(ctx, home, binary); why != "" {
		return fmt.Errorf("start the server for %s: %s", home, why)
	}
	select {
	case r.wake <- struct{}{}:
	default:
	}
	return nil
}

// signalLink tells Link's reader that the connection was lost or is back.
func (r *Remote) signalLink() {
	select {
	case r.link <- struct{}{}:
	default: // a signal waits already; Lost tells the latest
	}
}

// redialBackoff bounds the wait between two dials of a server that is gone:
// a server back is found within about a second, and an idle TUI costs one
// failed dial a second.
const redialBackoff = time.Second

// redial dials the agent home's server until one answers and is adopted,
// waiting longer after each failure, up to redialBackoff; a StartServer
// cuts the wait short.
func (r *Remote) redial() {
	wait := 50 * time.Millisecond
	for {
		r.mu.Lock()
		home, closed := r.home, r.closed
		if closed {
			r.redialing = false
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), PullTimeout)
		c, err := dialHello(ctx, home)
		cancel()
		if err == nil {
			if err = r.adopt(c, PullTimeout); err == nil {
				r.mu.Lock()
				r.redialing = false
				r.mu.Unlock()
				return
			}
		}
		select {
		case <-r.wake:
			wait = 50 * time.Millisecond
		case <-time.After(wait):
			wait = min(2*wait, redialBackoff)
		}
	}
}
