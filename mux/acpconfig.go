package mux

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
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
	next, dropped := cleanConfig(next)
	if dropped > 0 {
		c.m.opt.Logger.Warn("dropped modes, options or values of the agent's whose id is not one line of printable text", "chat", c.id, "dropped", dropped)
	}
	changed := !sameConfig(c.session.cfg, next)
	c.session.cfg = next
	c.state.Settings = proto.SettingsOf(chatOptions(next))
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
	if !usableID(string(id)) {
		c.m.opt.Logger.Warn("ignored the agent's current mode: its id is not one line of printable text", "chat", c.id)
		return false
	}
	next := *m
	next.CurrentModeId = id
	c.session.cfg.Modes = &next
	c.state.Settings = proto.SettingsOf(chatOptions(c.session.cfg))
	return true
}

// configChanged tells the chat's listener of a change, and the drawing
// clients (State.Settings changed with it).
func (c *acpChat) configChanged() {
	c.mu.Lock()
	fn := c.session.onChange
	c.mu.Unlock()
	if fn != nil {
		fn()
	}
	c.m.notify(c)
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
// configuration options, and of its title and usage (State.Title,
// State.Usage), all of what its agent says of the session (fn must not
// wait); nil stops.
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
	// What the agent answered, cleaned as what is kept is.
	cleaned, _ := cleanConfig(SessionConfig{ConfigOptions: resp.ConfigOptions})
	if cleaned.ConfigOptions == nil {
		cleaned.ConfigOptions = []acp.SessionConfigOption{}
	}
	return cleaned.ConfigOptions, nil
}

// agentAnswer keeps the agent's own error answer (a client is to hear
// it), its message cleaned (sessions.AgentTitle), and says what was being
// done for any other failure.
func agentAnswer(method string, err error) error {
	var re *acp.RequestError
	if errors.As(err, &re) {
		cleaned := *re
		cleaned.Message = sessions.AgentTitle(re.Message)
		return &cleaned
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

// ErrNotACP is the error of Options for a chat whose harness does not
// speak ACP: it has no session modes or options.
var ErrNotACP = errors.New("its harness does not speak ACP, which alone has modes and options")

// Options returns an ACP chat's session mode and configuration options as
// its agent last told them (proto.ChatOption), and whether its agent runs;
// nothing is started. A chat that does not speak ACP is an error wrapping
// ErrNotACP.
func (m *Mux) Options(id string) ([]proto.ChatOption, bool, error) {
	c, err := m.chat(id)
	if err != nil {
		return nil, false, err
	}
	a, ok := c.(*acpChat)
	if !ok {
		return nil, false, fmt.Errorf("chat %s: %w", id, ErrNotACP)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return chatOptions(a.session.cfg), a.state.Status.Live(), nil
}

// maxIDBytes bounds an id of a mode, an option or a value: ids go back to
// the agent as they came, so one that is not plain is refused, not cut.
const maxIDBytes = 256

// usableID reports whether an id the agent gave can be kept: not empty,
// at most maxIDBytes, valid UTF-8 with no control or bidirectional
// character (it is shown, and sent back as it is).
func usableID(id string) bool {
	if id == "" || len(id) > maxIDBytes || !utf8.ValidString(id) {
		return false
	}
	for _, r := range id {
		if unicode.IsControl(r) || plaintext.IsBidi(r) {
			return false
		}
	}
	return true
}

// cleanConfig is cfg fit to keep and show: every name and description
// cleaned (sessions.AgentTitle: no escapes, controls or bidirectional
// characters, one bounded line), and every mode, option or value whose id
// (or current value's id) is not usable left out; dropped counts them.
func cleanConfig(cfg SessionConfig) (SessionConfig, int) {
	dropped := 0
	var out SessionConfig
	if m := cfg.Modes; m != nil {
		if !usableID(string(m.CurrentModeId)) {
			dropped++
		} else {
			modes := *m
			modes.AvailableModes = nil
			for _, md := range m.AvailableModes {
				if !usableID(string(md.Id)) {
					dropped++
					continue
				}
				md.Name = sessions.AgentTitle(md.Name)
				md.Description = cleanText(md.Description)
				modes.AvailableModes = append(modes.AvailableModes, md)
			}
			out.Modes = &modes
		}
	}
	for _, o := range cfg.ConfigOptions {
		switch {
		case o.Select != nil && usableID(string(o.Select.Id)) && usableID(string(o.Select.CurrentValue)):
			sel := *o.Select
			sel.Name = sessions.AgentTitle(sel.Name)
			sel.Description = cleanText(sel.Description)
			if sel.Category != nil {
				cat := acp.SessionConfigOptionCategory(sessions.AgentTitle(string(*sel.Category)))
				sel.Category = &cat
			}
			sel.Options, dropped = cleanSelectOptions(sel.Options, dropped)
			out.ConfigOptions = append(out.ConfigOptions, acp.SessionConfigOption{Select: &sel})
		case o.Boolean != nil && usableID(string(o.Boolean.Id)):
			b := *o.Boolean
			b.Name = sessions.AgentTitle(b.Name)
			b.Description = cleanText(b.Description)
			if b.Category != nil {
				cat := acp.SessionConfigOptionCategory(sessions.AgentTitle(string(*b.Category)))
				b.Category = &cat
			}
			out.ConfigOptions = append(out.ConfigOptions, acp.SessionConfigOption{Boolean: &b})
		default:
			dropped++
		}
	}
	return out, dropped
}

// cleanSelectOptions is cleanConfig of a select option's values.
func cleanSelectOptions(in acp.SessionConfigSelectOptions, dropped int) (acp.SessionConfigSelectOptions, int) {
	values := func(vs []acp.SessionConfigSelectOption) []acp.SessionConfigSelectOption {
		out := []acp.SessionConfigSelectOption{}
		for _, v := range vs {
			if !usableID(string(v.Value)) {
				dropped++
				continue
			}
			v.Name = sessions.AgentTitle(v.Name)
			v.Description = cleanText(v.Description)
			out = append(out, v)
		}
		return out
	}
	var out acp.SessionConfigSelectOptions
	if in.Ungrouped != nil {
		u := acp.SessionConfigSelectOptionsUngrouped(values(*in.Ungrouped))
		out.Ungrouped = &u
	}
	if in.Grouped != nil {
		g := acp.SessionConfigSelectOptionsGrouped{}
		for _, grp := range *in.Grouped {
			grp.Name = sessions.AgentTitle(grp.Name)
			grp.Options = values(grp.Options)
			g = append(g, grp)
		}
		out.Grouped = &g
	}
	return out, dropped
}

// cleanText is sessions.AgentTitle of an optional text.
func cleanText(s *string) *string {
	if s == nil {
		return nil
	}
	t := sessions.AgentTitle(*s)
	return &t
}

// chatOptions is cfg (cleaned) as the socket carries it: the session mode
// first, unless an option of category "mode" stands for it (ACP:
// configuration options supersede modes), then each option in the agent's
// order.
func chatOptions(cfg SessionConfig) []proto.ChatOption {
	var out []proto.ChatOption
	modeOption := false
	for _, o := range cfg.ConfigOptions {
		if o.Select != nil && o.Select.Category != nil && *o.Select.Category == acp.SessionConfigOptionCategoryMode {
			modeOption = true
		}
	}
	if m := cfg.Modes; m != nil && !modeOption && len(m.AvailableModes) > 0 {
		mode := proto.ChatOption{ID: proto.ModeOptionID, Name: "Mode", Kind: proto.OptionMode, Current: string(m.CurrentModeId)}
		for _, md := range m.AvailableModes {
			mode.Values = append(mode.Values, proto.OptionValue{ID: string(md.Id), Name: md.Name, Description: deref(md.Description)})
		}
		out = append(out, mode)
	}
	for _, o := range cfg.ConfigOptions {
		switch {
		case o.Select != nil:
			sel := o.Select
			opt := proto.ChatOption{ID: string(sel.Id), Name: sel.Name, Kind: proto.OptionSelect, Description: deref(sel.Description), Current: string(sel.CurrentValue)}
			if sel.Category != nil {
				opt.Category = string(*sel.Category)
			}
			if sel.Options.Ungrouped != nil {
				for _, v := range *sel.Options.Ungrouped {
					opt.Values = append(opt.Values, proto.OptionValue{ID: string(v.Value), Name: v.Name, Description: deref(v.Description)})
				}
			}
			if sel.Options.Grouped != nil {
				for _, g := range *sel.Options.Grouped {
					for _, v := range g.Options {
						opt.Values = append(opt.Values, proto.OptionValue{ID: string(v.Value), Name: v.Name, Description: deref(v.Description), Group: g.Name})
					}
				}
			}
			out = append(out, opt)
		case o.Boolean != nil:
			b := o.Boolean
			opt := proto.ChatOption{ID: string(b.Id), Name: b.Name, Kind: proto.OptionBoolean, Description: deref(b.Description), Current: fmt.Sprint(b.CurrentValue),
				Values: []proto.OptionValue{{ID: "true", Name: "on"}, {ID: "false", Name: "off"}}}
			if b.Category != nil {
				opt.Category = string(*b.Category)
			}
			out = append(out, opt)
		}
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
