package mux

import (
	"errors"
	"fmt"
	"slices"

	"github.com/acpmux/acpmux-tui/proto"
)

// This file lets a client follow a pty chat's raw output, as `attach` shows
// it in a terminal: a redraw of the screen as it is, then every byte the
// harness writes after it, then its end.

// ErrNotPty refuses a tap on a chat whose harness does not run in a pty.
var ErrNotPty = errors.New("its harness does not run in a pty")

// OutputSink hears one pty chat's output. Its methods are called with the
// chat's lock held, in the order the chat's screen takes the bytes, so
// nothing is lost or heard twice between a redraw and the output after it.
// They must be quick (copy, don't write anywhere), must not block, and must
// not call the mux.
type OutputSink interface {
	// Output is raw output of the harness, after the last redraw.
	Output(p []byte)
	// Redraw replaces everything heard before it: snapshot draws the chat's
	// screen as it is now (see screen.Screen.Redraw) on a terminal of its
	// size; it is empty while the chat has never run. It comes first, when
	// the sink is tapped; again when a new run of the harness starts on a
	// screen an earlier run drew on (the screen was reset); and when asked
	// for with RedrawTap.
	Redraw(snapshot []byte)
	// Ended tells that the harness has ended and the mux will not start it
	// again by itself: it exited with status 0, was stopped, or failed (a
	// start refused, or crashes past the respawn limit). st is the chat's
	// state then. A crash that is respawned is not an end.
	Ended(st proto.State)
}

// tapSet is the sinks tapping a chat; it is guarded by the chat's lock.
type tapSet struct {
	sinks []OutputSink
}

func (t *tapSet) outputLocked(p []byte) {
	for _, s := range t.sinks {
		s.Output(p)
	}
}

// redrawLocked sends each sink a redraw, made only when one listens.
func (t *tapSet) redrawLocked(snapshot func() []byte) {
	if len(t.sinks) == 0 {
		return
	}
	b := snapshot()
	for _, s := range t.sinks {
		s.Redraw(b)
	}
}

// endedLocked tells the sinks that no harness process runs now, unless a
// respawn is due.
func (t *tapSet) endedLocked(st proto.State, respawning bool) {
	if respawning {
		return
	}
	for _, s := range t.sinks {
		s.Ended(st)
	}
}

// snapshotLocked is the redraw of the chat's screen (nil before its first
// run).
func (c *ptyChat) snapshotLocked() []byte {
	if c.scr == nil {
		return nil
	}
	return c.scr.Redraw()
}

// Tap subscribes sink to the output of the chat's pty harness, whether or
// not it runs now (a tap made before Start hears the first byte). The chat
// is first resized to cols x rows (0 keeps its size), so the redraw sink
// hears at once fits a terminal of that size. Untap ends the subscription;
// nothing is heard after it returns. A chat whose harness is not a pty is
// refused (ErrNotPty).
func (m *Mux) Tap(id string, cols, rows int, sink OutputSink) (untap func(), err error) {
	r, err := m.chat(id)
	if err != nil {
		return nil, err
	}
	c, ok := r.(*ptyChat)
	if !ok {
		return nil, fmt.Errorf("chat %s: %w", id, ErrNotPty)
	}
	c.resize(cols, rows)
	c.mu.Lock()
	c.taps.sinks = append(c.taps.sinks, sink)
	sink.Redraw(c.snapshotLocked())
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		c.taps.sinks = slices.DeleteFunc(c.taps.sinks, func(s OutputSink) bool { return s == sink })
		c.mu.Unlock()
	}, nil
}

// RedrawTap sends sink, which Tap subscribed to the chat, a fresh redraw in
// the order of the output, as a client that fell behind needs: it starts
// again from the screen as it is.
func (m *Mux) RedrawTap(id string, sink OutputSink) {
	r, err := m.existing(id)
	if err != nil {
		return
	}
	c, ok := r.(*ptyChat)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if slices.Contains(c.taps.sinks, sink) {
		sink.Redraw(c.snapshotLocked())
	}
}
