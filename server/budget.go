package server

import (
	"slices"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

// This file is the byte budget of a watcher behind a slow link (another
// host's TUI, over ssh: MethodBudget). Its screen updates draw on a token
// bucket: while tokens last, the chats that changed are sent one line
// each, in turn, starting after the last one sent; once the bucket is
// empty the rest stay marked (each keeps only its latest state, and its
// screen is read when it is sent, so intermediate frames are all that is
// lost) and one timer waits for the bucket to hold a frame's share again.
// A chat flooding its pty therefore takes at most its turn: a chat that
// changed once goes out within one refill per chat waiting. A line may
// take the bucket below zero (a big screen is never stuck behind a small
// bucket); the next waits until the debt is paid, so what is sent over
// any span stays within burst + rate x span + one line.

// budgetClock is the time the budget reads and its refill timer; tests
// give one they move themselves.
type budgetClock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) stopper
}

// stopper is a timer that can be stopped (*time.Timer is one).
type stopper interface{ Stop() bool }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) stopper {
	return time.AfterFunc(d, f)
}

// linkBudget is one watcher's token bucket, guarded by its viewer's mu.
type linkBudget struct {
	clock  budgetClock
	rate   float64 // bytes per second
	burst  float64 // the most the bucket holds
	tokens float64
	at     time.Time // when tokens was last brought up to date
	// next is the chat the next turn starts at (the first id after the
	// last one sent, in order).
	next string
	// spent counts every byte charged, for tests and the log.
	spent int64
}

func newLinkBudget(clock budgetClock, rate int64) *linkBudget {
	b := &linkBudget{clock: clock, rate: float64(rate), at: clock.Now()}
	// A quarter of a second's worth: a few full screens at once, so a
	// key's echo after a quiet spell never waits for a refill.
	b.burst = max(b.rate/4, float64(proto.MinBudget))
	b.tokens = b.burst
	return b
}

// refill brings the tokens up to now.
func (b *linkBudget) refill() {
	now := b.clock.Now()
	if d := now.Sub(b.at); d > 0 {
		b.tokens = min(b.burst, b.tokens+d.Seconds()*b.rate)
	}
	b.at = now
}

// open reports whether a line may be sent now.
func (b *linkBudget) open() bool { return b.tokens > 0 }

func (b *linkBudget) charge(n int) {
	b.tokens -= float64(n)
	b.spent += int64(n)
}

// wait is how long until the bucket holds a frame's share of the rate
// again (past any debt): the refill timer's delay, so an exhausted
// watcher is looked at no more than once a frame.
func (b *linkBudget) wait() time.Duration {
	share := b.rate * viewFrame.Seconds()
	need := share - b.tokens
	if need <= 0 {
		return 0
	}
	return time.Duration(need / b.rate * float64(time.Second))
}

// turn orders the chats marked so the one after the last sent comes
// first.
func (b *linkBudget) turn(ids []string) []string {
	slices.Sort(ids)
	i, _ := slices.BinarySearch(ids, b.next)
	return append(ids[i:], ids[:i]...)
}

// setBudget serves MethodBudget: the connection's screen updates draw on
// a bucket of p.BytesPerSecond from now on (0 lifts it).
func (h *viewHub) setBudget(c *conn, p proto.BudgetParams) (struct{}, *Error) {
	if p.BytesPerSecond != 0 && (p.BytesPerSecond < proto.MinBudget || p.BytesPerSecond > 1<<40) {
		return struct{}{}, errorf(proto.CodeInvalidParams, "Invalid params: bytesPerSecond must be 0 or %d..%d", proto.MinBudget, int64(1<<40))
	}
	v := h.viewerOf(c)
	v.mu.Lock()
	defer v.mu.Unlock()
	if p.BytesPerSecond == 0 {
		v.budget = nil
	} else {
		v.budget = newLinkBudget(h.clock, p.BytesPerSecond)
	}
	return struct{}{}, nil
}

// flushBudgeted sends the chats marked as the budget allows, one line
// each, in turn; what is left waits for the refill timer.
func (v *viewer) flushBudgeted() {
	b := v.budget
	b.refill()
	ids := make([]string, 0, len(v.dirty))
	for id := range v.dirty {
		ids = append(ids, id)
	}
	for _, id := range b.turn(ids) {
		if !b.open() {
			break
		}
		cv := v.dirty[id]
		delete(v.dirty, id)
		var line []byte
		var err error
		if _, shown := v.shown[id]; shown {
			if u, screenOnly := v.screenOf(id, &cv); screenOnly {
				line = proto.EncodeScreenUpdate(u)
			}
		}
		if line == nil {
			if line, err = encodeNotification(proto.NotifyChanged, proto.StatesResult{States: map[string]proto.ChatView{id: cv}}); err != nil {
				v.c.s.opt.Logger.Error("encode notification", "method", proto.NotifyChanged, "err", err)
				continue
			}
		}
		v.lastLine = v.c.send(line)
		b.charge(len(line))
		b.next = id + "\x00" // the first id after this one
	}
	v.lastFlush = time.Now()
	if len(v.dirty) > 0 && v.flushAt == nil {
		v.scheduleLocked(b.clock.AfterFunc, b.wait(), false)
	}
}

// screenOf reads the screen of a chat the client draws into cv, or, when
// only its screen and cursor moved, returns the ScreenUpdate to send in
// place of cv.
func (v *viewer) screenOf(id string, cv *proto.ChatView) (proto.ScreenUpdate, bool) {
	told := v.screens[id]
	if told == nil {
		told = &toldScreen{}
		v.screens[id] = told
	}
	patch := told.update(v.c.s.opt.Mux, id, &cv.Terminal)
	screenOnly := told.sent && told.state.Equal(cv.State) && sameBesidesCursor(told.terminal, cv.Terminal)
	told.sent, told.state, told.terminal = true, cv.State, cv.Terminal
	if screenOnly {
		return proto.ScreenUpdate{ID: id, Cursor: [2]int{cv.Terminal.CursorCol, cv.Terminal.CursorRow}, Screen: *patch}, true
	}
	cv.Screen = patch
	return proto.ScreenUpdate{}, false
}
