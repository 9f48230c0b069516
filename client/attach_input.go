package client

import (
	"context"
	"sync"
	"syscall"

	"github.com/acpmux/acpmux-tui/internal/rawio"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file is attach's typed input on its way to the server. A key goes
// out from the goroutine that read it, as a notification (no answer comes
// back to be read and matched), written at once when nothing waits before
// it and the connection takes it whole without waiting: over ssh every
// goroutine woken on a key's way, and every answer carried back, cost a
// share of the echo's round trip. What cannot go at once waits in a
// bounded queue that one sender goroutine writes, in order.

// typedInput is input on its way to the server. Lines go one at a time,
// so keys reach the harness in the order they were typed (the server runs
// a connection's keys in the order they come); what is typed while one is
// under way goes with the next.
type typedInput struct {
	c   *Conn
	id  string
	raw syscall.RawConn // the connection's own descriptor; nil: none

	mu     sync.Mutex
	buf    []byte
	busy   bool   // the sender is writing a line
	carry  []byte // the rest of a line written in part at once; c.wmu held for it
	closed bool
	wake   chan struct{}
}

func newTypedInput(c *Conn, id string) *typedInput {
	q := &typedInput{c: c, id: id, wake: make(chan struct{}, 1)}
	q.raw = linkRaw(c)
	return q
}

// linkRaw is the descriptor a line to the server is written to: a host
// link's pipe to ssh, or the socket.
func linkRaw(c *Conn) syscall.RawConn {
	var sc syscall.Conn
	switch nc := c.nc.(type) {
	case *sshLink:
		sc = nc.w
	case syscall.Conn:
		sc = nc
	default:
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}

// inputLine is the notification that sends data to the harness of id.
func inputLine(id string, data []byte) []byte {
	b := append(make([]byte, 0, 96+len(data)*4/3), `{"jsonrpc":"2.0","method":"`+proto.MethodAttachInput+`","params":`...)
	// WriteParams has AttachInputParams' members and writes them without
	// reflection.
	b = proto.WriteParams{ID: id, Data: data}.AppendJSON(b)
	return append(b, "}\n"...)
}

// add sends input, or queues it; it never blocks, so ctrl+] is read
// whatever the link or the harness does with its input. p is not kept.
func (q *typedInput) add(p []byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	if len(q.buf) == 0 && !q.busy && q.carry == nil && q.sendNowLocked(p) {
		return
	}
	if len(q.buf)+len(p) <= maxTyped {
		q.buf = append(q.buf, p...)
	}
	q.poke()
}

// sendNowLocked writes p's line at once when no other line is being
// written and the descriptor takes it without waiting. A line taken in
// part is finished by the sender, c.wmu held until it has.
func (q *typedInput) sendNowLocked(p []byte) bool {
	if q.raw == nil || len(p) > maxInputCall || !q.c.wmu.TryLock() {
		return false
	}
	line := inputLine(q.id, p)
	rest, err := rawio.WriteNow(q.raw, line)
	switch {
	case err != nil:
		q.c.wmu.Unlock()
		// The connection has gone: its reader ends attach.
	case len(rest) == 0:
		q.c.wmu.Unlock()
	default:
		q.carry = rest
		q.poke()
	}
	return true
}

func (q *typedInput) poke() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// close lets send end once what is queued has gone.
func (q *typedInput) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.poke()
}

// send writes what add could not, in order, until the queue is closed and
// empty or the connection has gone.
func (q *typedInput) send() {
	for {
		q.mu.Lock()
		carry := q.carry
		n := min(len(q.buf), maxInputCall)
		var line []byte
		if carry == nil && n > 0 {
			line = inputLine(q.id, q.buf[:n])
			q.buf = q.buf[n:]
		}
		idle := carry == nil && n == 0
		closed := q.closed
		q.busy = !idle
		q.mu.Unlock()
		if idle {
			if closed {
				return
			}
			<-q.wake
			continue
		}
		var err error
		if carry != nil {
			_, err = q.c.nc.Write(carry)
			q.c.wmu.Unlock()
		} else {
			err = q.c.writeLine(context.Background(), line)
		}
		q.mu.Lock()
		if carry != nil {
			q.carry = nil
		}
		q.busy = false
		q.mu.Unlock()
		if err != nil {
			return // the connection has gone
		}
	}
}
