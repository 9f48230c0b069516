package mux

import (
	"sync"
	"time"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/sessions"
)

// Codex picks its own session id and tells nobody: it writes it in the
// session meta record of a rollout file under its sessions folder, once the
// conversation has a first message, dated from when the session began. The
// mux learns a Codex chat's id from those files and stores it as the chat's
// agent_session_id, so that later starts are `codex resume ID`.
//
// When: when the harness exits (before the exit is reported, so a restart,
// which waits for it, and a respawn already see the id), and again at the
// next start before its launch is built, which covers a harness whose exit
// this mux never saw (the server was killed; the next server starts the chat
// again). Both look only at the files Codex wrote by then: no polling while
// the harness runs, at the price of `show` not naming the session until the
// first run ends.
//
// Which file: one whose meta names the chat's folder and a start inside the
// chat's window: from the start of its last run in this mux (or, with none,
// from the chat's creation) to now. Never a guess across chats: nothing is
// learned when the window holds more than one such file, when one of them
// is already another chat's agent_session_id, or when another Codex chat
// without a session, in the same folder, could have begun it (it ran then,
// or may have, in an earlier server). A fork's file names the parent it was
// forked from; a file forked from anything else is not the chat's.

// harnessRun is one run of a chat's harness in this mux: from just before it
// was started to when it ended (zero while it runs).
type harnessRun struct{ from, to time.Time }

// harnessRuns are a chat's runs in this mux. Its mutex is a leaf: held
// with nothing else taken after it, so any chat may read any other's runs
// while it holds its own runner's lock.
type harnessRuns struct {
	mu   sync.Mutex
	runs []harnessRun
}

// begin records a run starting at at.
func (r *harnessRuns) begin(at time.Time) {
	r.mu.Lock()
	r.runs = append(r.runs, harnessRun{from: at})
	r.mu.Unlock()
}

// end records that the current run ended at at.
func (r *harnessRuns) end(at time.Time) {
	r.mu.Lock()
	if n := len(r.runs); n > 0 && r.runs[n-1].to.IsZero() {
		r.runs[n-1].to = at
	}
	r.mu.Unlock()
}

// snapshot returns a copy of the runs.
func (r *harnessRuns) snapshot() []harnessRun {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]harnessRun(nil), r.runs...)
}

// couldHave reports whether a session Codex began at t could be of a run of
// runs: t falls in one, or, when earlier muxes count (unknownBefore), t is
// before the first run here (the runs of an earlier server are not known).
func couldHave(runs []harnessRun, t time.Time, unknownBefore bool) bool {
	for _, r := range runs {
		if !t.Before(r.from.Truncate(time.Millisecond)) && (r.to.IsZero() || !t.After(r.to)) {
			return true
		}
	}
	return unknownBefore && (len(runs) == 0 || t.Before(runs[0].from))
}

// runsOf returns the runs of the chat's pty runner in this mux, if it has
// one.
func (m *Mux) runsOf(id string) []harnessRun {
	m.mu.Lock()
	c, ok := m.chats[id].(*ptyChat)
	m.mu.Unlock()
	if !ok {
		return nil
	}
	return c.runs.snapshot()
}

// learnCodexSession learns the Codex session of chat id from Codex's files
// and stores it as the chat's agent_session_id (see the top of this file).
// It reports whether it stored one. A chat that is not Codex, or whose
// stored session Codex still has, is left as it is.
func (m *Mux) learnCodexSession(id string) bool {
	meta, err := m.opt.Store.Load(id)
	if err != nil {
		return false
	}
	spec, ok := m.table().Get(meta.Harness)
	if !ok || spec.Kind != harness.KindCodex {
		return false
	}
	env := spec.Environment(meta, m.opt.Environ())
	if meta.AgentSessionID != "" && harness.CodexHasSession(env, meta.AgentSessionID) {
		return false
	}
	own := m.runsOf(id)
	from := meta.Created
	if n := len(own); n > 0 {
		from = own[n-1].from
	}
	found := harness.FindCodexSessions(env, meta.Cwd, from, time.Now())
	if len(found) == 0 {
		return false
	}
	sid := m.pickCodexSession(meta, spec, found, len(own) > 0)
	if sid == "" {
		return false
	}
	was := meta.AgentSessionID
	stored := false
	if _, err := m.opt.Store.Update(id, func(s *sessions.Meta) error {
		// Only over what was seen: never over a session stored meanwhile.
		if s.AgentSessionID == was {
			s.AgentSessionID, stored = sid, true
		}
		return nil
	}); err != nil {
		m.opt.Logger.Warn("could not store the Codex session", "chat", id, "session", sid, "err", err)
		return false
	}
	if stored {
		m.opt.Logger.Info("learned the Codex session", "chat", id, "session", sid)
	}
	return stored
}

// pickCodexSession returns the one session of found that can only be
// chat meta's, or "". ownKnown says whether the chat's window began with a
// run in this mux (else at its creation, perhaps in an earlier server).
func (m *Mux) pickCodexSession(meta *sessions.Meta, spec harness.Spec, found []harness.CodexSession, ownKnown bool) string {
	entries, err := m.opt.Store.List()
	if err != nil {
		return ""
	}
	parent := m.forkFrom(spec, meta)
	var mine []harness.CodexSession
	for _, s := range found {
		for _, e := range entries {
			if e.Meta != nil && e.ID != meta.ID && e.Meta.AgentSessionID == s.ID {
				m.opt.Logger.Info("Codex session not learned: another chat's in the window", "chat", meta.ID, "other", e.ID, "session", s.ID)
				return ""
			}
		}
		if s.ForkedFrom != "" && s.ForkedFrom != parent {
			continue // forked from another conversation: not this chat's
		}
		mine = append(mine, s)
	}
	if len(mine) != 1 {
		if len(mine) > 1 {
			m.opt.Logger.Info("Codex session not learned: several in the window", "chat", meta.ID, "sessions", len(mine))
		}
		return ""
	}
	s := mine[0]
	cwd := sessions.CanonicalOr(meta.Cwd)
	for _, e := range entries {
		o := e.Meta
		if o == nil || o.ID == meta.ID || o.AgentSessionID != "" || sessions.CanonicalOr(o.Cwd) != cwd {
			continue
		}
		if os, ok := m.table().Get(o.Harness); !ok || os.Kind != harness.KindCodex {
			continue
		}
		if !o.Created.IsZero() && s.Started.Before(o.Created.Truncate(time.Millisecond)) {
			continue
		}
		if couldHave(m.runsOf(o.ID), s.Started, !ownKnown) {
			m.opt.Logger.Info("Codex session not learned: another chat could have begun it", "chat", meta.ID, "other", o.ID, "session", s.ID)
			return ""
		}
	}
	return s.ID
}
