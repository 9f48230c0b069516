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
	r.dial = func(ctx context.Context) (*Conn, error) { return dialHello(ctx, home) }
	r.dialTimeout, r.backoffFirst, r.backoffMax = PullTimeout, 50*time.Millisecond, redialBackoff
	if r.lost != nil && !r.redialing && !r.firstPending() {
		r.redialing = true
		go r.redial()
	}
}

// HostBackoff bounds the wait between two dials of a host that does not
// answer: the first comes a second after the loss, each next one twice as
// late, up to a minute.
const (
	hostBackoffFirst = time.Second
	HostBackoff      = time.Minute
)

// FollowHost makes the Remote dial host h again over ssh (DialHost)
// whenever its connection ends, until Close, waiting a second after the
// loss and twice as long after each failed dial, up to HostBackoff. While
// the link is down every call fails at once, saying so: keys are not sent
// into nothing. Call it once, right after NewRemote.
// extra are more ssh arguments, as DialHost takes them.
func (r *Remote) FollowHost(h Host, extra ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.host = h.Name
	r.dial = func(ctx context.Context) (*Conn, error) { return DialHost(ctx, h, extra...) }
	r.dialTimeout, r.backoffFirst, r.backoffMax = HostTimeout, hostBackoffFirst, HostBackoff
	if r.lost != nil && !r.redialing && !r.firstPending() {
		r.redialing = true
		go r.redial()
	}
}

// LinkPid is the pid of the ssh process under the Remote's connection, or
// 0 when it is not over ssh.
func (r *Remote) LinkPid() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.c == nil {
		return 0
	}
	return LinkPid(r.c)
}

// Link delivers a signal each time the connection to the server is lost or
// back (at most one waits); Lost says which.
func (r *Remote) Link() <-chan struct{} { return r.link }

// Lost returns why the connection to the server ended, or nil while one is
// up.
func (r *Remote) Lost() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.firstPending() {
		return nil // nothing lost: the first connection is on its way
	}
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
	r.mu.Lock()
	first, most, host := r.backoffFirst, r.backoffMax, r.host
	r.mu.Unlock()
	wait := first
	if host != "" {
		// A host's link just dropped: ssh is not asked again at once.
		if !r.sleep(&wait, first, most) {
			return
		}
	}
	for {
		r.mu.Lock()
		dial, timeout, closed := r.dial, r.dialTimeout, r.closed
		if closed {
			r.redialing = false
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		c, err := dial(ctx)
		cancel()
		if err == nil {
			if err = r.adopt(c, PullTimeout); err == nil {
				r.mu.Lock()
				r.redialing = false
				r.mu.Unlock()
				return
			}
		}
		if !r.sleep(&wait, first, most) {
			return
		}
	}
}

// sleep waits *wait (or less, after StartServer) and doubles it up to
// most; false when the Remote was closed meanwhile.
func (r *Remote) sleep(wait *time.Duration, first, most time.Duration) bool {
	select {
	case <-r.wake:
		*wait = first
	case <-time.After(*wait):
		*wait = min(2**wait, most)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		r.redialing = false
		return false
	}
	return true
}
