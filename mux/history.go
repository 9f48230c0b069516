package mux

import (
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/screen"
)

// History returns a pty chat's terminal as plain lines, oldest first: its
// scrollback, then its screen with the blank rows at its foot dropped. The
// oldest lines are left out past maxBytes (at most MaxHistoryBytes). nil
// for an ACP chat or a chat never started. A handoff's capsule reads it
// when the harness keeps no session log of its own.
func (m *Mux) History(id string, maxBytes int) []string {
	if maxBytes <= 0 || maxBytes > proto.MaxHistoryBytes {
		maxBytes = proto.MaxHistoryBytes
	}
	c, err := m.existing(id)
	if err != nil {
		return nil
	}
	p, ok := c.(*ptyChat)
	if !ok {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.scr == nil {
		return nil
	}
	return historyOf(p.scr, maxBytes)
}

// historyOf is a screen's scrollback and screen as History gives them.
func historyOf(scr *screen.Screen, maxBytes int) []string {
	_, rows := scr.Size()
	var rev []string // newest first
	for r := rows - 1; r >= 0; r-- {
		l := scr.PlainLine(r)
		if l == "" && len(rev) == 0 {
			continue
		}
		rev = append(rev, l)
	}
	size := 0
	for _, l := range rev {
		size += len(l) + 1
	}
	for i := scr.ScrollbackLen() - 1; i >= 0 && size < maxBytes; i-- {
		l := scr.PlainScrollback(i)
		size += len(l) + 1
		rev = append(rev, l)
	}
	for size > maxBytes && len(rev) > 0 {
		size -= len(rev[len(rev)-1]) + 1
		rev = rev[:len(rev)-1]
	}
	out := make([]string, len(rev))
	for i, l := range rev {
		out[len(rev)-1-i] = l
	}
	return out
}
