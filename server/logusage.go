package server

import (
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/capsule"
	"github.com/acpmux/acpmux-tui/proto"
)

// readUsageFromLog has usageFromLog run for chat id off the hook's call,
// unless a read for it runs already.
func (s *Server) readUsageFromLog(id string) {
	if _, busy := s.usageReads.LoadOrStore(id, struct{}{}); busy {
		return
	}
	go func() {
		defer s.usageReads.Delete(id)
		s.usageFromLog(id)
	}()
}

// usageFromLog reads, at the end of a terminal chat's turn, what its
// harness's session log says of its context (Claude Code's and Codex's
// logs have it; neither has a cost) and keeps it in the chat's file, where
// show, ls, usage and the TUI read it. An ACP chat's agent says its usage
// itself (usage_update).
func (s *Server) usageFromLog(id string) {
	m, err := s.opt.Store.Load(id)
	if err != nil || m.AgentSessionID == "" {
		return
	}
	spec, ok := s.table().Get(m.Harness)
	if !ok || spec.Transport != harness.TransportPty {
		return
	}
	env := capsule.Env(spec, s.opt.Getenv)
	var u *proto.Usage
	switch spec.Kind {
	case harness.KindClaude:
		if path := harness.ClaudeSessionLog(env, m.AgentSessionID); path != "" {
			u, err = capsule.ClaudeUsage(path)
		}
	case harness.KindCodex:
		if path := harness.CodexSessionLog(env, m.AgentSessionID); path != "" {
			u, err = capsule.CodexUsage(path)
		}
	default:
		return
	}
	if err != nil {
		s.opt.Logger.Warn("the session log's usage is refused", "chat", id, "err", err)
		return
	}
	if u == nil {
		return
	}
	if _, err := s.opt.Store.SetUsage(id, u); err != nil {
		s.opt.Logger.Warn("the session log's usage is not stored", "chat", id, "err", err)
	}
}
