package mux

import (
	"sync"
	"sync/atomic"
	"time"
)

// This file carries change notices from the chats to the one receiver of
// Changes. A chat is told of at most once until the receiver reads it
// (State, Render, ScreenRows...). A notice for a chat's output, when no one
// draws that chat's screen (SetDrawn), is held and sent with the others
// held HoldFor later: a hundred hidden chats printing a line a second then
// wake the receiver a few times a second, not a hundred, and a line costs
// the server its read and its parse. Any other notice (a start, an exit, a
// stop, a turn's end, a permission asked) goes at once and takes a held
// one for the same chat with it.

// DefaultHoldFor is Options.HoldFor's default: the sidebar of a client
// shows a hidden chat's state within a quarter of a second.
const DefaultHoldFor = 250 * time.Millisecond

// A chat's notice is in one of three states.
const (
	noticeNone uint32 = iota // nothing waits: the next change is told
	noticeSent               // in Changes, not read yet
	noticeHeld               // held for the next batch
)

// noticeFlag is a chat's notice state; reading the chat clears it.
type noticeFlag struct{ v atomic.Uint32 }

// read says the receiver has read the chat: its next change is told.
func (n *noticeFlag) read() { n.v.Store(noticeNone) }

// heldNotices are the chats whose output notices wait for the next batch.
type heldNotices struct {
	// drawn is the set of chats someone draws (nil: all, so none is held).
	drawn atomic.Pointer[map[string]struct{}]
	mu    sync.Mutex
	held  []noticer
	armed bool // a batch is due
}

// SetDrawn names the chats whose screens a client draws; nil means every
// chat (the default), an empty set none. Output of any chat not named is
// told at most every Options.HoldFor, with its state: a list of chats
// needs their states, not their lines. The mux keeps ids: the caller must
// not change it afterwards.
func (m *Mux) SetDrawn(ids map[string]struct{}) {
	if ids == nil {
		m.held.drawn.Store(nil)
		return
	}
	m.held.drawn.Store(&ids)
}

// Drawn reports whether the output of the chat is told at once: someone
// draws its screen, or SetDrawn named every chat.
func (m *Mux) Drawn(id string) bool { return m.held.isDrawn(id) }

// isDrawn reports whether someone draws the chat's screen.
func (h *heldNotices) isDrawn(id string) bool {
	d := h.drawn.Load()
	if d == nil {
		return true
	}
	_, ok := (*d)[id]
	return ok
}

// notify tells the receiver the chat changed, unless it has not read the
// last notice yet; a notice held for the chat goes now.
func (m *Mux) notify(c noticer) {
	n := c.notice()
	for {
		s := n.v.Load()
		if s == noticeSent {
			return
		}
		if n.v.CompareAndSwap(s, noticeSent) {
			m.send(c)
			return
		}
	}
}

// notifyOutput tells of new output: at once for a chat someone draws,
// else with the next batch of held notices.
func (m *Mux) notifyOutput(c noticer) {
	if m.held.isDrawn(c.chatID()) {
		if !m.echoed(c) {
			m.notify(c)
		}
		return
	}
	if !c.notice().v.CompareAndSwap(noticeNone, noticeHeld) {
		return // told, or held, already
	}
	h := &m.held
	h.mu.Lock()
	h.held = append(h.held, c)
	arm := !h.armed
	h.armed = true
	h.mu.Unlock()
	if arm {
		time.AfterFunc(m.opt.HoldFor, m.sendHeld)
	}
}

// SetEcho has f offered each drawn chat's new output first, on the
// goroutine that parsed it, before any notice goes to Changes. f reports
// whether it took the change: it does when a client awaits that chat's
// next change as a key's echo, and then reads the chat at once (which lets
// the next notice go). The echo so reaches the client with no hand-off to
// the receiver of Changes: waking that goroutine, while this one reads the
// pty again, cost an echo tens of microseconds. f must not wait, nor call
// into the mux with a lock of its caller's held (nothing here holds one).
func (m *Mux) SetEcho(f func(id string) bool) {
	if f == nil {
		m.echo.Store(nil)
		return
	}
	m.echo.Store(&f)
}

// echoed offers the chat's output to the echo receiver, and reports
// whether it took it. A chat with a notice unread in Changes is not
// offered: its receiver reads it soon, and reading it here too would let
// a second notice of the chat into the channel.
func (m *Mux) echoed(c noticer) bool {
	f := m.echo.Load()
	if f == nil {
		return false
	}
	n := c.notice()
	s := n.v.Load()
	if s == noticeSent || !n.v.CompareAndSwap(s, noticeSent) {
		return false
	}
	if (*f)(c.chatID()) {
		return true
	}
	m.send(c)
	return true
}

// sendHeld sends the batch of held notices: each chat not told since is
// told now. One read since is told all the same: the reader may have been
// another than the receiver (a client's ls asks the server for every
// chat's state), and the receiver has not seen the change yet.
func (m *Mux) sendHeld() {
	h := &m.held
	h.mu.Lock()
	batch := h.held
	h.held, h.armed = nil, false
	h.mu.Unlock()
	for _, c := range batch {
		m.notify(c) // nothing, when it was told since
	}
}

// send puts the chat's notice in Changes; a receiver far behind hears of
// the chat with its next change.
func (m *Mux) send(c noticer) {
	select {
	case m.changes <- c.chatID():
	default:
		c.notice().read()
	}
}
