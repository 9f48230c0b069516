package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// This file is `attach --host` over a link that may drop: when the ssh
// process dies or the network is cut, the terminal says the link is down,
// keys typed meanwhile are dropped (and said to be), never queued for a
// harness that cannot get them, and the link is dialed again with a
// backoff until it answers; the chat kept running over there, and its
// screen as it is now is drawn again. ctrl+] gives up at any time.

// Bounds of the redial backoff.
const (
	redialFirst = 250 * time.Millisecond
	redialMost  = 5 * time.Second
)

// AttachFollow is Attach over connections made by dial, dialing again
// whenever the connection ends under it. first is the connection already
// made; the last one in use is closed before it returns. notice writes a
// line on the terminal (cooked, so each ends in "\r\n").
func AttachFollow(first *Conn, dial func(context.Context) (*Conn, error), id string, in, out *os.File, notice func(string)) (how string, err error) {
	keys := pumpKeys(in)
	c := first
	for {
		how, err := attach(c, id, in, out, keys)
		select {
		case <-c.Done():
		default:
			c.Close()
			return how, err // detached, the harness ended, a signal, a refusal
		}
		why := LinkError(c)
		c.Close()
		notice(fmt.Sprintf("%v; reconnecting (ctrl+] gives up, keys typed meanwhile are not sent)", why))
		c = waitForLink(dial, in, keys, notice)
		if c == nil {
			return "detached", nil
		}
		notice("the link is back: " + id + " as it is now")
	}
}

// waitForLink dials until a connection answers (returned) or ctrl+] is
// typed (nil). The terminal is raw meanwhile so that ctrl+] reaches it as
// a byte; every other key is dropped, and said to be once per link down.
func waitForLink(dial func(context.Context) (*Conn, error), in *os.File, keys *keyPump, notice func(string)) *Conn {
	if st, err := term.MakeRaw(int(in.Fd())); err == nil {
		defer term.Restore(int(in.Fd()), st)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dialed := make(chan *Conn, 1)
	go func() {
		backoff := redialFirst
		last := ""
		for {
			c, err := dial(ctx)
			if err == nil {
				dialed <- c
				return
			}
			if ctx.Err() != nil {
				return
			}
			if err.Error() != last {
				last = err.Error()
				notice("still down: " + last)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, redialMost)
		}
	}()
	told := false
	for {
		select {
		case c := <-dialed:
			return c
		case p, ok := <-keys.ch:
			if !ok || bytes.IndexByte(p, DetachKey) >= 0 {
				cancel()
				// A dial that was answered as ctrl+] came is closed.
				select {
				case c := <-dialed:
					c.Close()
				default:
				}
				return nil
			}
			if !told {
				told = true
				notice("link down: keys not sent")
			}
		}
	}
}

// keyPump reads the terminal for as long as it gives bytes, for one attach
// after another. Each chunk goes to the attach's consumer, called on the
// pump's goroutine (a key is sent from there: no goroutine is woken on its
// way), or, while none is set (the link is down), on ch; ch closes at
// in's end.
type keyPump struct {
	ch chan []byte

	mu  sync.Mutex // held while a chunk is handed on, so chunks keep their order
	to  func(chunk []byte, end bool)
	end bool // in has ended
}

// keyBacklog is how many chunks wait on the channel while no attach
// consumes them; more are dropped (the link is down: keys are not sent).
const keyBacklog = 64

func pumpKeys(in io.Reader) *keyPump {
	k := &keyPump{ch: make(chan []byte, keyBacklog)}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := in.Read(buf)
			k.mu.Lock()
			if n > 0 {
				if k.to != nil {
					k.to(buf[:n], false)
				} else {
					select {
					case k.ch <- bytes.Clone(buf[:n]):
					default:
					}
				}
			}
			if err != nil {
				k.end = true
				close(k.ch)
				if k.to != nil {
					k.to(nil, true)
				}
			}
			k.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return k
}

// consume hands what was read to fn from now on (first the chunks waiting
// on the channel, in order); nil puts them on the channel again. fn must
// not block, and must not keep a chunk after it returns.
func (k *keyPump) consume(fn func(chunk []byte, end bool)) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.to = fn
	if fn == nil {
		return
	}
	for {
		select {
		case p, ok := <-k.ch:
			if !ok {
				fn(nil, true)
				return
			}
			fn(p, false)
		default:
			if k.end {
				fn(nil, true)
			}
			return
		}
	}
}

// keyForwarder is forwardInput as a consumer of a keyPump: chunks go to
// send until in ends or ctrl+] is read (bytes before it in the same chunk
// still sent), which closes detached; what comes after is dropped.
func keyForwarder(t *borrowedTerminal, detached chan<- struct{}, send func([]byte)) func([]byte, bool) {
	done := false
	return func(chunk []byte, end bool) {
		defer t.restoreIfPanicking()
		if done {
			return
		}
		if end {
			done = true
			close(detached)
			return
		}
		if i := bytes.IndexByte(chunk, DetachKey); i >= 0 {
			if i > 0 {
				send(chunk[:i])
			}
			done = true
			close(detached)
			return
		}
		send(chunk)
	}
}
