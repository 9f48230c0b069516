package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
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
func waitForLink(dial func(context.Context) (*Conn, error), in *os.File, keys <-chan []byte, notice func(string)) *Conn {
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
		case p, ok := <-keys:
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

// pumpKeys reads in for as long as it gives bytes, each read a chunk on
// the channel; the channel closes at in's end.
func pumpKeys(in io.Reader) <-chan []byte {
	ch := make(chan []byte, 64)
	go func() {
		defer close(ch)
		buf := make([]byte, 4096)
		for {
			n, err := in.Read(buf)
			if n > 0 {
				ch <- bytes.Clone(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// forwardKeys is forwardInput over chunks from keys, until stop.
func forwardKeys(keys <-chan []byte, stop <-chan struct{}, detached chan<- struct{}, send func([]byte)) {
	for {
		select {
		case <-stop:
			return
		case chunk, ok := <-keys:
			if !ok {
				close(detached)
				return
			}
			if i := bytes.IndexByte(chunk, DetachKey); i >= 0 {
				if i > 0 {
					send(chunk[:i])
				}
				close(detached)
				return
			}
			send(chunk)
		}
	}
}
