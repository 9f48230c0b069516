package server

import (
	"sync/atomic"
	"time"
)

// This file runs an ACP client's session/prompt to a live agent on the
// goroutine that read it. Any other call runs on a goroutine of its own,
// so that the reader goes on to the client's next line at once; but a new
// goroutine for a prompt puts a scheduler's hand-off (another thread woken
// for it, the reader parked first) between the client's line and the
// agent on the way of every turn through the door, and a thread busy on
// the server's side while the agent works. So a prompt runs where it was
// read, and only a turn that outlasts handOnAfter (or a prompt that waits
// that long to be sent: for its agent's session, or for the chat's
// capsule to be told first) hands the reading on to a goroutine of its
// own; the reader's goroutine then stays the prompt's until it is
// answered. A client's session/cancel, or any other line, waits at most
// that long to be read.

// handOnAfter is how long a prompt keeps the reading.
const handOnAfter = 2 * time.Millisecond

// The reading's states while a prompt has it.
const (
	handOnLent int32 = iota // the prompt runs; the reading waits for it
	handOnGone              // the reading went on in a goroutine of its own
	handOnBack              // the prompt was answered first: the reading is back
)

// runPrompt runs req, a session/prompt to a live agent, on the reader's
// goroutine, lending it the reading; handedOn reports that the reading
// went on elsewhere meanwhile.
func (c *conn) runPrompt(req Request, lines *lineReader) (handedOn bool) {
	c.slots <- struct{}{}
	c.hold()
	var reading atomic.Int32 // handOnLent
	timer := time.AfterFunc(handOnAfter, func() {
		if reading.CompareAndSwap(handOnLent, handOnGone) {
			c.readLoop(lines)
		}
	})
	c.run(req)
	<-c.slots
	c.release()
	if reading.CompareAndSwap(handOnLent, handOnBack) {
		timer.Stop()
		return false
	}
	return true
}
