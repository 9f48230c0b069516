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
// read, and only a turn that outlasts handOnAfter hands the reading on to
// a goroutine of its own; the reader's goroutine then stays the prompt's
// until it is answered. A client's session/cancel, or any other line,
// waits at most that long to be read.
//
// The clock starts when the prompt first waits (agent.Waiting): once its
// line is written to the agent, or before anything on its way blocks (its
// agent's session not yet set up, its chat's capsule not yet told). Until
// then it only runs code. A timer armed as the prompt is read would be the
// runtime's earliest, and adding one wakes a thread of the runtime at
// once: 10 us at the median on the 2-core VM, before the agent has the
// prompt.

// handOnAfter is how long a prompt keeps the reading once it waits.
const handOnAfter = 2 * time.Millisecond

// The reading's states while a prompt has it.
const (
	handOnLent int32 = iota // the prompt runs; the reading waits for it
	handOnGone              // the reading went on in a goroutine of its own
	handOnBack              // the prompt was answered first: the reading is back
)

// lentPrompt is the session/prompt that has a connection's reading: its
// chat, and what its turn calls when it waits (runTurn hands it on).
type lentPrompt struct {
	chat  string
	waits func()
}

// runPrompt runs req, a session/prompt to chat's live agent, on the
// reader's goroutine, lending it the reading; handedOn reports that the
// reading went on elsewhere meanwhile.
func (c *conn) runPrompt(req Request, chat string, lines *lineReader) (handedOn bool) {
	c.slots <- struct{}{}
	c.hold()
	var reading atomic.Int32 // handOnLent
	var timer atomic.Pointer[time.Timer]
	waits := func() {
		if timer.Load() != nil || reading.Load() != handOnLent {
			return
		}
		t := time.AfterFunc(handOnAfter, func() {
			if reading.CompareAndSwap(handOnLent, handOnGone) {
				c.readLoop(lines)
			}
		})
		if !timer.CompareAndSwap(nil, t) {
			t.Stop()
		}
	}
	c.prompting.Store(&lentPrompt{chat: chat, waits: waits})
	c.runCall(req, true)
	c.prompting.Store(nil)
	<-c.slots
	c.release()
	if reading.CompareAndSwap(handOnLent, handOnBack) {
		if t := timer.Load(); t != nil {
			t.Stop()
		}
		return false
	}
	return true
}
