package mux

import (
	"context"
	"slices"
	"time"

	"github.com/acpmux/acpmux-tui/acp/agent"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	acp "github.com/coder/acp-go-sdk"
)

// agentSide is an ACP chat as its agent's connection sees it
// (agent.Chat): the agent's updates go into the chat's transcript and
// session config, its permission requests into the chat's queue of cards.
type agentSide struct{ *acpChat }

var _ agent.Chat = agentSide{}

// Update applies a session/update: modes and options to the session's
// config, the rest to the transcript, then streams it to the observer.
func (s agentSide) Update(n acp.SessionNotification) {
	c := s.acpChat
	u := n.Update
	if u.SessionInfoUpdate != nil {
		s.retitle(u.SessionInfoUpdate.Title)
		return
	}
	if u.UsageUpdate != nil {
		s.setUsage(u.UsageUpdate)
		return
	}
	if u.AvailableCommandsUpdate != nil {
		s.setCommands(u.AvailableCommandsUpdate.AvailableCommands)
		return
	}
	var entry *proto.Entry
	cfgChanged := false
	c.mu.Lock()
	if u.CurrentModeUpdate != nil || u.ConfigOptionUpdate != nil {
		cfgChanged = c.configUpdateLocked(u)
	} else {
		entry = c.log.Apply(u)
	}
	observer := c.observer
	c.mu.Unlock()
	if cfgChanged {
		c.configChanged()
	}
	if entry != nil && observer != nil {
		entry.At = time.Now()
		observer(*entry)
	}
	if cfgChanged {
		c.m.notify(c)
		return
	}
	// What the agent says, streamed: the output of the chat.
	c.m.notifyOutput(c)
}

// retitle keeps the title the agent gave its session (session_info_update),
// cleaned and bounded (sessions.AgentTitle), in the chat's state (Title:
// an ACP chat has no terminal title) and in its file, written only when it
// changed. A null title (the SDK reads it as absent) changes nothing; an
// empty one clears it.
func (s agentSide) retitle(title *string) {
	if title == nil {
		return
	}
	c := s.acpChat
	t := sessions.AgentTitle(*title)
	c.mu.Lock()
	same := c.state.Title == t
	c.state.Title = t
	c.mu.Unlock()
	if same {
		return
	}
	if _, err := c.m.opt.Store.SetTitle(c.id, t); err != nil {
		c.m.opt.Logger.Warn("the agent's title is not stored", "chat", c.id, "err", err)
	}
	c.configChanged() // the door tells its clients (session_info_update)
}

// setUsage keeps the context window and cost the agent says
// (usage_update) in the chat's state and its file (written only when it
// changed). One that fails checkUsage is logged and dropped: the usage
// said before stays, the chat goes on.
func (s agentSide) setUsage(u *acp.SessionUsageUpdate) {
	c := s.acpChat
	usage, err := checkUsage(u)
	if err != nil {
		c.m.opt.Logger.Warn("the agent's usage_update is refused", "chat", c.id, "err", err)
		return
	}
	c.mu.Lock()
	same := c.state.Usage.Equal(usage)
	if !same {
		c.state.Usage = usage
	}
	c.mu.Unlock()
	if same {
		return
	}
	if _, err := c.m.opt.Store.SetUsage(c.id, usage); err != nil {
		c.m.opt.Logger.Warn("the agent's usage is not stored", "chat", c.id, "err", err)
	}
	c.configChanged() // the door tells its clients (usage_update)
}

// setCommands keeps the slash commands the agent offers
// (available_commands_update), cleaned and bounded (agent.Commands), in the
// chat's state, which the drawing clients and the door (as
// available_commands_update) are told when they changed.
func (s agentSide) setCommands(in []acp.AvailableCommand) {
	c := s.acpChat
	cmds := agent.Commands(in)
	c.mu.Lock()
	same := slices.Equal(c.state.Commands, cmds) && (c.state.Commands == nil) == (cmds == nil)
	c.state.Commands = cmds
	c.mu.Unlock()
	if !same {
		c.configChanged()
	}
}

// Ask queues a card and waits for the user's answer (or the chat's policy,
// or the turn's cancel, or ctx's end). A request that comes while the user
// is cancelling the turn is answered "cancelled" at once.
func (s agentSide) Ask(ctx context.Context, perm proto.Permission) string {
	c := s.acpChat
	card := &permissionCard{Permission: perm, answer: make(chan string, 1)}
	c.mu.Lock()
	policy, cancelling, queued, onCard := c.permit, c.log.Cancelled, false, c.onCard
	if policy == nil && !cancelling {
		queued = c.queueCardLocked(card)
	}
	c.mu.Unlock()
	var resolved func()
	if queued && onCard != nil {
		resolved = onCard(perm) // a client may answer the card too (the ACP door)
	}
	var choice string
	switch {
	case policy != nil:
		choice = policy(perm)
	case queued:
		c.m.notify(c)
		select {
		case choice = <-card.answer:
		case <-ctx.Done():
		}
		c.mu.Lock()
		c.dropCardLocked(card)
		c.mu.Unlock()
		if resolved != nil {
			resolved()
		}
		c.m.notify(c)
	case !cancelling:
		c.m.opt.Logger.Warn("too many permission requests at once: cancelled one", "chat", c.id, "title", perm.Title, "max", maxPendingPermissions)
	}
	return choice
}

// Wrote notes a file the agent wrote: the files a chat wrote are what a
// handoff capsule lists.
func (s agentSide) Wrote(path string) {
	c := s.acpChat
	c.mu.Lock()
	c.log.Wrote(path)
	c.mu.Unlock()
	c.m.notify(c)
}

// TerminalOutput keeps a door client's terminal output in the tool calls
// that show the terminal, and streams the call that changed.
func (s agentSide) TerminalOutput(terminalID, output string) {
	c := s.acpChat
	c.mu.Lock()
	entry := c.log.TerminalOutput(terminalID, output)
	observer := c.observer
	c.mu.Unlock()
	if entry == nil {
		return
	}
	if observer != nil {
		observer(*entry)
	}
	c.m.notifyOutput(c)
}

// Forwarder is the chat's Forwarder when it would take method now.
func (s agentSide) Forwarder(method string) agent.Forwarder {
	c := s.acpChat
	c.mu.Lock()
	f := c.forward
	c.mu.Unlock()
	if f == nil || !f.Takes(method) {
		return nil
	}
	return f
}
