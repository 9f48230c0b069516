package mux

import (
	"fmt"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file hands a chat's capsule (its first message, stored beside its
// file by a handoff or a capsule fork) to its harness exactly once: it is
// marked sent in the store (sessions.Store.ClaimCapsule) at the moment it
// is handed over, before the harness can act on it, so no later start,
// respawn or restart sends it again, even after a crash.

// ptyCapsule is a capsule claimed for one pty start.
type ptyCapsule struct {
	m    *Mux
	id   string
	size int
	argc int // how many arguments at the end of the argv carry it
}

// claimCapsuleArgs claims the chat's waiting capsule, if any, and appends
// it to the launch's argv the way the harness takes a first message
// (harness.Spec.InitialPromptArgs). A harness that takes none leaves the
// capsule waiting, and says so in the log. nil when nothing was claimed.
func (m *Mux) claimCapsuleArgs(spec harness.Spec, meta *sessions.Meta, l *harness.Launch, pooled bool) (*ptyCapsule, error) {
	if pooled || !meta.Capsule {
		return nil, nil
	}
	if !spec.TakesInitialPrompt() {
		m.opt.Logger.Warn("the harness takes no first message: the capsule is not sent", "chat", meta.ID, "harness", spec.Name, "capsule", m.opt.Store.HandoffPath(meta.ID))
		return nil, nil
	}
	text, err := m.opt.Store.ClaimCapsule(meta.ID)
	if err != nil || text == "" {
		return nil, err
	}
	args := spec.InitialPromptArgs(plaintext.Clean(text))
	l.Argv = append(l.Argv, args...)
	m.opt.Logger.Info("capsule handed to the harness", "chat", meta.ID, "bytes", len(text))
	return &ptyCapsule{m: m, id: meta.ID, size: len(text), argc: len(args)}, nil
}

// undo puts the capsule back when the harness never started: the next
// start sends it.
func (h *ptyCapsule) undo() {
	if h == nil {
		return
	}
	if err := h.m.opt.Store.UnclaimCapsule(h.id); err != nil {
		h.m.opt.Logger.Error("could not put the capsule back after a failed start", "chat", h.id, "err", err)
	}
}

// shown is argv as the summary and the log show it: the capsule, up to 64
// KiB of Markdown, replaced by a mark.
func (h *ptyCapsule) shown(argv []string) []string {
	if h == nil || len(argv) < h.argc {
		return argv
	}
	out := append([]string(nil), argv[:len(argv)-h.argc]...)
	return append(out, fmt.Sprintf("<capsule, %d bytes>", h.size))
}

// shownLaunch is l for the log, with the capsule marked rather than shown.
func (h *ptyCapsule) shownLaunch(l harness.Launch) string {
	l.Argv = h.shown(l.Argv)
	return l.String()
}

// capsuleDue reports whether an ACP chat has a capsule waiting to be its
// first prompt.
func (m *Mux) capsuleDue(meta *sessions.Meta) bool {
	if !meta.Capsule {
		return false
	}
	text, sent, err := m.opt.Store.Capsule(meta.ID)
	if err != nil {
		m.opt.Logger.Error("chat capsule", "chat", meta.ID, "err", err)
		return false
	}
	return text != "" && !sent
}

// dropCapsule forgets the capsule of a fork whose agent branched the
// conversation itself (session/fork): it is not needed.
func (m *Mux) dropCapsule(meta *sessions.Meta) {
	if !meta.Capsule {
		return
	}
	if err := m.opt.Store.DropCapsule(meta.ID); err != nil {
		m.opt.Logger.Error("drop the capsule of a native fork", "chat", meta.ID, "err", err)
	}
}

// sendCapsule runs the capsule as the ACP chat's first turn, once its
// session is set up. The user's own prompts wait for it (see prompt).
func (c *acpChat) sendCapsule(p *acpProcess) {
	defer close(p.capsuleTurn)
	text, err := c.m.opt.Store.ClaimCapsule(c.id)
	if err != nil {
		c.m.opt.Logger.Error("chat capsule", "chat", c.id, "err", err)
		c.note("the capsule could not be sent: " + err.Error())
		return
	}
	if text == "" {
		return
	}
	c.m.opt.Logger.Info("capsule sent as the first prompt", "chat", c.id, "bytes", len(text))
	if _, err := c.turn(p.ctx, p, plaintext.Clean(text)); err != nil {
		c.m.opt.Logger.Warn("capsule turn", "chat", c.id, "err", err)
	}
}
