package server

import (
	"sync/atomic"
)

// This file runs an ACP client's session/prompt to a live agent on the
// goroutine that read it, up to the moment the prompt is on its way to the
// agent; the reader then goes on to the client's next line, and the turn's
// end (its answer to the client, once every update of it is queued) runs
// on the goroutine that reads the agent's answer. Any other call runs on a
// goroutine of its own, so that the reader goes on at once; but a new
// goroutine for a prompt, or one that waits for its answer, puts a
// scheduler's hand-off (another thread woken) on the way of every turn
// through the door: between the client's line and the agent, and between
// the agent's answer and the client's.
//
// Until its prompt is sent a turn only runs code, unless it must wait
// first: for its agent's session to be set up, or for its chat's capsule
// to be told. It then says so (agent.Waiting) and the reading goes on at
// once in a goroutine of its own, so that a client's session/cancel, or
// any other line, is read meanwhile.

// The reading's states while a prompt has it.
const (
	handOnLent int32 = iota // the prompt runs; the reading waits for it
	handOnGone              // the reading went on in a goroutine of its own
	handOnBack              // the prompt was sent (or refused) first: the reading is back
)

// lentPrompt is the session/prompt that has a connection's reading: its
// chat, and what its turn calls when it must wait before its prompt is
// sent (runTurnThen hands it on).
type lentPrompt struct {
	chat  string
	waits func()
}

// runPrompt runs req, a session/prompt to chat's live agent, on the
// reader's goroutine until it is sent, lending it the reading; handedOn
// reports that the reading went on elsewhere meanwhile.
func (c *conn) runPrompt(req Request, chat string, lines *lineReader) (handedOn bool) {
	c.slots <- struct{}{}
	c.hold()
	var reading atomic.Int32 // handOnLent
	waits := func() {
		if reading.CompareAndSwap(handOnLent, handOnGone) {
			go c.readLoop(lines)
		}
	}
	done := func() {
		<-c.slots
		c.release()
	}
	c.prompting.Store(&lentPrompt{chat: chat, waits: waits})
	if c.webRefused(req) {
		done()
	} else {
		c.runDoorThen(req, done)
	}
	c.prompting.Store(nil)
	return !reading.CompareAndSwap(handOnLent, handOnBack)
}
