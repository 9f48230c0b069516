package mux

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	acp "github.com/coder/acp-go-sdk"
)

// This file keeps what an ACP chat's agent says of its session's modes and
// configuration options (the modes and configOptions of its session/new,
// load, resume and fork answers, and its current_mode_update and
// config_option_update notifications), and forwards session/set_mode and
// session/set_config_option to it. The door hands them to its clients.

// SessionConfig is an ACP chat's session modes and configuration options as
// its agent last told them; both are empty for an agent that has none.
type SessionConfig struct {
	// Modes are the modes and the current one; nil when the agent has none.
	Modes *acp.SessionModeState
	// ConfigOptions are the options and their current values.
	ConfigOptions []acp.SessionConfigOption
}

// maxConfigBytes bounds what one chat keeps of its agent's modes and
// options (their JSON): they come from the agent, and reach every client.
const maxConfigBytes = 256 << 10

// sessionConfig is what an acpChat keeps, under its mu.
type sessionConfig struct {
	cfg      SessionConfig
	onChange func() // hears each change (OnSessionConfig); must not wait
}

// keepSessionConfigLocked records the modes and options of a session setup
// answer: an agent that answers none has none. It reports a change.
func (c *acpChat) keepSessionConfigLocked(modes *acp.SessionModeState, opts []acp.SessionConfigOption) bool {
	next := SessionConfig{Modes: modes, ConfigOptions: opts}
	if b, err := json.Marshal(next); err != nil || len(b) > maxConfigBytes {
		c.m.opt.Logger.Warn("dropped the agent's session modes and options: over the limit or not encodable", "chat", c.id, "max", maxConfigBytes)
		next = SessionConfig{}
	}
	changed := !sameConfig(c.session.cfg, next)
	c.session.cfg = next
	return changed
}

func sameConfig(a, b SessionConfig) bool {
	ja, erra := json.Marshal(a)
	jb, errb := json.Marshal(b)
	return erra == nil && errb == nil && string(ja) == string(jb)
}

// configUpdateLocked applies a current_mode_update or config_option_update
// from the agent; it reports whether it was one and changed anything.
func (c *acpChat) configUpdateLocked(u acp.SessionUpdate) bool {
	switch {
	case u.CurrentModeUpdate != nil:
		return c.setModeLocked(u.CurrentModeUpdate.CurrentModeId)
	case u.ConfigOptionUpdate != nil:
		cfg := c.session.cfg
		return c.keepSessionConfigLocked(cfg.Modes, u.ConfigOptionUpdate.ConfigOptions)
	}
	return false
}

// setModeLocked makes id the current mode; a chat whose agent listed no
// modes keeps none.
func (c *acpChat) setModeLocked(id acp.SessionModeId) bool {
	m := c.session.cfg.Modes
	if m == nil || m.CurrentModeId == id {
		return false
	}
	next := *m
	next.CurrentModeId = id
	c.session.cfg.Modes = &next
	return true
}

// configChanged tells the chat's listener of a change.
func (c *acpChat) configChanged() {
	c.mu.Lock()
	fn := c.session.onChange
	c.mu.Unlock()
	if fn != nil {
		fn()
	}
}

// SessionConfig returns the modes and configuration options an ACP chat's
// agent last told; the zero value for a chat that has none or is no ACP
// chat.
func (m *Mux) SessionConfig(id string) SessionConfig {
	c, err := m.existing(id)
	if err != nil {
		return SessionConfig{}
	}
	a, ok := c.(*acpChat)
	if !ok {
		return SessionConfig{}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	cfg := a.session.cfg
	if cfg.Modes != nil {
		modes := *cfg.Modes
		modes.AvailableModes = append([]acp.SessionMode(nil), modes.AvailableModes...)
		cfg.Modes = &modes
	}
	cfg.ConfigOptions = append([]acp.SessionConfigOption(nil), cfg.ConfigOptions...)
	return cfg
}

// OnSessionConfig sets fn to hear each change of an ACP chat's modes or
// configuration options (fn must not wait); nil stops.
func (m *Mux) OnSessionConfig(id string, fn func()) error {
	c, err := m.acpChat(id)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.session.onChange = fn
	c.mu.Unlock()
	return nil
}

// SetMode sends session/set_mode to the chat's agent (starting it first if
// needed) and, once the agent has accepted it, makes modeID the chat's
// current mode. An agent's refusal is returned as it answered (an
// *acp.RequestError), so a client hears what the agent said.
func (m *Mux) SetMode(ctx context.Context, id, modeID string) error {
	c, err := m.acpChat(id)
	if err != nil {
		return err
	}
	p, err := c.ready(ctx)
	if err != nil {
		return err
	}
	if _, err := p.conn.SetSessionMode(ctx, acp.SetSessionModeRequest{SessionId: p.sessionID, ModeId: acp.SessionModeId(modeID)}); err != nil {
		return agentAnswer("session/set_mode", err)
	}
	c.mu.Lock()
	changed := c.proc == p && c.setModeLocked(acp.SessionModeId(modeID))
	c.mu.Unlock()
	if changed {
		c.configChanged()
	}
	return nil
}

// SetConfigOption sends session/set_config_option to the chat's agent
// (req's session id is replaced by the agent's) and returns the options
// the agent answers, which become the chat's. An agent's refusal is
// returned as it answered (an *acp.RequestError).
func (m *Mux) SetConfigOption(ctx context.Context, id string, req acp.SetSessionConfigOptionRequest) ([]acp.SessionConfigOption, error) {
	c, err := m.acpChat(id)
	if err != nil {
		return nil, err
	}
	p, err := c.ready(ctx)
	if err != nil {
		return nil, err
	}
	switch {
	case req.ValueId != nil:
		v := *req.ValueId
		v.SessionId = p.sessionID
		req.ValueId = &v
	case req.Boolean != nil:
		v := *req.Boolean
		v.SessionId = p.sessionID
		req.Boolean = &v
	default:
		return nil, errors.New("session/set_config_option: neither a value id nor a boolean value")
	}
	resp, err := p.conn.SetSessionConfigOption(ctx, req)
	if err != nil {
		return nil, agentAnswer("session/set_config_option", err)
	}
	c.mu.Lock()
	changed := false
	if c.proc == p {
		changed = c.keepSessionConfigLocked(c.session.cfg.Modes, resp.ConfigOptions)
	}
	c.mu.Unlock()
	if changed {
		c.configChanged()
	}
	if resp.ConfigOptions == nil {
		resp.ConfigOptions = []acp.SessionConfigOption{}
	}
	return resp.ConfigOptions, nil
}

// agentAnswer keeps the agent's own error answer as it is (a client is to
// hear it), and says what was being done for any other failure.
func agentAnswer(method string, err error) error {
	var re *acp.RequestError
	if errors.As(err, &re) {
		return re
	}
	return fmt.Errorf("%s: %w", method, err)
}

// keepSessionConfig records the modes and options of a session setup that
// succeeded (err nil), and tells the listener of a change.
func (c *acpChat) keepSessionConfig(err error, modes *acp.SessionModeState, opts []acp.SessionConfigOption) {
	if err != nil {
		return
	}
	c.mu.Lock()
	changed := c.keepSessionConfigLocked(modes, opts)
	c.mu.Unlock()
	if changed {
		c.configChanged()
	}
}
