package mux

import (
	"fmt"
	"sync"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file holds where a chat's turn is, as exactly as its harness lets
// us know, and who is told when a chat needs its user:
//   - an ACP chat's status follows the protocol (acpclient.go);
//   - a Claude Code chat's follows its hooks once one has been heard
//     (Report), and a Codex chat's turn ends follow its notify program;
//   - any other pty chat's is inferred from its screen (detectWaitingLocked).
//
// A chat that asks for its user, or finishes a turn, while nobody looks at
// it (Look) is marked unread and reported to Options.NeedsUser.

// needsUser reports whether a change of status from prev to s is one the
// user is told of: the chat asks, or a turn has ended.
func needsUser(prev, s proto.Status) bool {
	return s == proto.StatusAsking || s == proto.StatusWaiting && (prev == proto.StatusRunning || prev == proto.StatusAsking)
}

// setStatusLocked changes the chat's status. A change the user is told of
// (needsUser) marks the chat unread and goes to Options.NeedsUser, unless
// someone looks at the chat.
func (b *base) setStatusLocked(s proto.Status) { b.announceLocked(s, needsUser(b.state.Status, s)) }

// announceLocked changes the chat's status; needs says the change is one
// the user is told of.
func (b *base) announceLocked(s proto.Status, needs bool) {
	prev := b.state.Status
	b.state.Status = s
	if prev == s || !needs || b.m.looks.looked(b.id) {
		return
	}
	b.state.Unread = true
	if f := b.m.opt.NeedsUser; f != nil {
		f(b.id, s)
	}
}

// seen clears the unread mark: someone looks at the chat.
func (b *base) seen() {
	b.mu.Lock()
	changed := b.state.Unread
	b.state.Unread = false
	b.mu.Unlock()
	if changed {
		b.m.notify(b)
	}
}

// looks records which chat each viewer shows its user. Its lock is a leaf:
// nothing else is taken under it, so a chat may ask under its own.
type looks struct {
	mu    sync.Mutex
	by    map[any]string
	count map[string]int
}

// set makes viewer look at id ("" for none) instead of what it looked at.
func (l *looks) set(viewer any, id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.by == nil {
		l.by, l.count = map[any]string{}, map[string]int{}
	}
	if prev, ok := l.by[viewer]; ok {
		if l.count[prev]--; l.count[prev] <= 0 {
			delete(l.count, prev)
		}
		delete(l.by, viewer)
	}
	if id != "" {
		l.by[viewer] = id
		l.count[id]++
	}
}

func (l *looks) looked(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.count[id] > 0
}

// Look says which chat viewer (a client connection, an attached terminal)
// shows its user now; "" for none. A chat someone looks at is not marked
// unread and not reported to NeedsUser; looking at a chat clears its mark.
func (m *Mux) Look(viewer any, id string) {
	m.looks.set(viewer, id)
	if id == "" {
		return
	}
	if c, err := m.existing(id); err == nil {
		c.seen()
	}
}

// Report takes what a pty harness reported of its turn through
// `acpmux-tui hook` (Claude Code's hooks, Codex's notify program). A chat
// whose harness does not run now is an error.
func (m *Mux) Report(id string, sig harness.TurnSignal) error {
	c, err := m.existing(id)
	if err != nil {
		return err
	}
	p, ok := c.(*ptyChat)
	if !ok {
		return fmt.Errorf("chat %s: its status comes from ACP, not from hooks", id)
	}
	return p.report(sig)
}

// report applies a signal: from Claude Code's hooks every signal decides
// the status; from Codex's notify program only the turn's end does.
func (c *ptyChat) report(sig harness.TurnSignal) error {
	c.mu.Lock()
	if c.proc == nil {
		c.mu.Unlock()
		return fmt.Errorf("chat %s: %w", c.id, ErrUnknownChat)
	}
	src := proto.SourceHooks
	if c.kind == harness.KindCodex {
		src = proto.SourceNotify
	}
	c.state.StatusFrom = src
	c.heard, c.gap = src, false
	if c.quiet != nil {
		c.quiet.Stop()
	}
	switch sig {
	case harness.SignalWorking:
		c.setStatusLocked(proto.StatusRunning)
	case harness.SignalAsking:
		c.setStatusLocked(proto.StatusAsking)
	case harness.SignalDone, harness.SignalReady:
		c.setStatusLocked(proto.StatusWaiting)
		c.turnEndedLocked()
	}
	c.mu.Unlock()
	c.m.notify(c)
	return nil
}

// screenDecidesLocked reports whether what the harness prints may change
// its status. Once Claude Code's hooks have been heard they decide, except
// after a key the user sent while it worked or asked (an answer, an
// interrupt): no hook may follow that (a refused permission, Esc), so the
// screen decides until the next hook. Once Codex's notify program said a
// turn ended, the chat waits until the user sends input; the screen decides
// the rest of the next turn.
func (c *ptyChat) screenDecidesLocked() bool { return c.heard == "" || c.gap }

// inputLocked notes input the user sent (see screenDecidesLocked).
func (c *ptyChat) inputLocked() {
	switch c.heard {
	case proto.SourceHooks:
		if c.state.Status == proto.StatusRunning || c.state.Status == proto.StatusAsking {
			c.gap = true
		}
	case proto.SourceNotify:
		if c.state.Status == proto.StatusWaiting {
			c.gap = true
		}
	}
}
