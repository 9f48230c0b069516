package server

import (
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

// This file is the view hub's fast way for a key's echo: the chat a
// watcher typed into has its next change told at once, by the fan-out and
// by the watcher's viewer, whatever frame of gathered changes is open.
// Everything else is told a frame at a time (view.go).

// echoWait is how long after a key its chat's next change is taken for
// the key's echo. A harness that echoes nothing (a password prompt) is
// not waited for longer.
const echoWait = time.Second

// awaited reports whether a client awaits chat id's change as its key's
// echo.
func (h *viewHub) awaited(id string) bool {
	for _, v := range h.all() {
		v.mu.Lock()
		is := v.echo == id && time.Since(v.echoAt) <= echoWait
		v.mu.Unlock()
		if is {
			return true
		}
	}
	for _, lp := range h.lentPanes() {
		if lp.awaits(id) {
			return true
		}
	}
	return false
}

// awaitEcho marks chat id's next change as the echo of a key this client
// typed, to be sent at once.
func (v *viewer) awaitEcho(id string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.watching || v.closed {
		return // told of nothing: no echo to hurry
	}
	if v.echo == "" {
		v.c.s.views.echoes.Add(1)
	}
	v.echo, v.echoAt = id, time.Now()
	select {
	case v.c.s.views.echoWake <- struct{}{}:
	default: // a wake is on its way already
	}
}

// echoedLocked reports whether views hold the awaited echo, and awaits it
// no more; an echo awaited past echoWait is forgotten.
func (v *viewer) echoedLocked(views map[string]proto.ChatView) bool {
	if v.echo == "" {
		return false
	}
	if time.Since(v.echoAt) > echoWait {
		v.forgetEchoLocked()
		return false
	}
	if _, ok := views[v.echo]; !ok {
		return false
	}
	v.forgetEchoLocked()
	return true
}

// forgetEchoLocked awaits no echo.
func (v *viewer) forgetEchoLocked() {
	if v.echo != "" {
		v.echo = ""
		v.c.s.views.echoes.Add(-1)
	}
}

// takeEcho is the mux's echo receiver (mux.SetEcho): a chat's output that
// a client awaits as its key's echo is published from the goroutine that
// parsed it, and so written to the client's socket from there when the
// connection's queue is empty (conn.send), with no goroutine woken on the
// way. Any other change is left to the fan-out.
func (h *viewHub) takeEcho(id string) bool {
	if h.echoes.Load() == 0 || !h.awaited(id) {
		return false
	}
	h.publish(map[string]struct{}{id: {}})
	return true
}
