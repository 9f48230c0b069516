package acp

import (
	"encoding/json"

	"github.com/acpmux/acpmux-tui/proto"
	sdk "github.com/coder/acp-go-sdk"
)

// This file is the door's side of a session's modes and configuration
// options: the agent's, handed to the client in the answers of
// session/new, load and resume, changed with session/set_mode and
// session/set_config_option (which go to the chat's agent), and told to
// every client of the chat as current_mode_update and config_option_update
// when they change, whoever changed them.

// SessionConfig is a chat's session modes and configuration options as its
// agent last told them, and its title, usage and slash commands
// (session_info_update, usage_update, available_commands_update), which
// the door passes on the same way.
type SessionConfig struct {
	Modes         *sdk.SessionModeState
	ConfigOptions []sdk.SessionConfigOption
	Title         string
	Usage         *proto.Usage
	Commands      []proto.Command
}

// EntrySessionConfig is the mark, in a door client's stream, that the
// chat's modes or options changed; the door sends what changed since it
// last told the client. It is a kind of the door's own, below proto's
// (which count from 0), and never goes on the _acpmux/* wire.
const EntrySessionConfig proto.EntryKind = -1

// sentConfig is what the door last told a client of a session's modes and
// options, as JSON (empty for nothing yet), its title and its usage.
type sentConfig struct {
	modes, options string
	title          string
	usage          *proto.Usage
	commands       string // as JSON, "" for none
}

func configJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// told records cfg's modes and options as what the client has (they are
// in an answer); the title and usage are not in one, and go in updates.
func (st *sessionState) told(cfg SessionConfig) {
	st.cfg.modes, st.cfg.options = configJSON(cfg.Modes), configJSON(cfg.ConfigOptions)
}

// configUpdates are the updates that bring the client from what it was
// told to cfg.
func (st *sessionState) configUpdates(cfg SessionConfig) []sdk.SessionUpdate {
	var out []sdk.SessionUpdate
	if m := configJSON(cfg.Modes); cfg.Modes != nil && m != st.cfg.modes {
		out = append(out, sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: cfg.Modes.CurrentModeId}})
		st.cfg.modes = m
	}
	if o := configJSON(cfg.ConfigOptions); len(cfg.ConfigOptions) > 0 && o != st.cfg.options {
		out = append(out, sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: cfg.ConfigOptions}})
		st.cfg.options = o
	}
	if cfg.Title != st.cfg.title {
		title := cfg.Title // cleaned where it entered (sessions.AgentTitle)
		out = append(out, sdk.SessionUpdate{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{Title: &title}})
		st.cfg.title = title
	}
	if u := cfg.Usage; u != nil && !u.Equal(st.cfg.usage) {
		up := &sdk.SessionUsageUpdate{Used: int(u.Used), Size: int(u.Size)}
		if u.Cost != nil {
			up.Cost = &sdk.Cost{Amount: u.Cost.Amount, Currency: u.Cost.Currency}
		}
		out = append(out, sdk.SessionUpdate{UsageUpdate: up})
		st.cfg.usage = u
	}
	if u, ok := st.commandsUpdate(cfg.Commands); ok {
		out = append(out, u)
	}
	return out
}

// commandsUpdate is the available_commands_update that tells the client
// cmds, when it was told others (or none); ok is false when it has them.
func (st *sessionState) commandsUpdate(cmds []proto.Command) (u sdk.SessionUpdate, ok bool) {
	sent := ""
	if len(cmds) > 0 {
		sent = configJSON(cmds)
	}
	if sent == st.cfg.commands {
		return sdk.SessionUpdate{}, false
	}
	st.cfg.commands = sent
	return sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: availableCommands(cmds)}}, true
}

// availableCommands are commands as ACP writes them (never nil: the
// field is required).
func availableCommands(cmds []proto.Command) []sdk.AvailableCommand {
	out := make([]sdk.AvailableCommand, len(cmds))
	for i, c := range cmds {
		out[i] = sdk.AvailableCommand{Name: c.Name, Description: c.Description}
		if c.Hint != "" {
			out[i].Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: c.Hint}}
		}
	}
	return out
}

// state is the session's state, made on first use; called with mu held.
func (d *Door) stateLocked(id string) *sessionState {
	st := d.sessions[id]
	if st == nil {
		st = &sessionState{tools: map[string]bool{}}
		d.sessions[id] = st
	}
	return st
}

// opened is the chat's modes and options for a session setup answer, noted
// as told. The agent's slash commands, which no answer carries, are sent
// at once as available_commands_update when it has offered any: the
// agent told them once, maybe before this client came, and a composer
// needs them before the first prompt.
func (d *Door) opened(id string) SessionConfig {
	cfg := d.b.SessionConfig(id)
	d.mu.Lock()
	st := d.stateLocked(id)
	st.told(cfg)
	u, send := st.commandsUpdate(cfg.Commands)
	d.mu.Unlock()
	if send {
		_ = d.b.Notify(MethodUpdate, sdk.SessionNotification{SessionId: sdk.SessionId(id), Update: u})
	}
	return cfg
}

// setMode sends session/set_mode to the chat's agent and answers as it
// does; every client of the chat is then told the new mode.
func (d *Door) setMode(p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	if p.SessionId == "" || p.ModeId == "" {
		return sdk.SetSessionModeResponse{}, errorf(CodeInvalidParams, "Invalid params: sessionId and modeId are required")
	}
	if _, err := d.b.Chat(string(p.SessionId)); err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	return sdk.SetSessionModeResponse{}, d.b.SetMode(string(p.SessionId), string(p.ModeId))
}

// setConfigOption sends session/set_config_option to the chat's agent and
// answers with the options the agent answers; every client of the chat is
// then told them.
func (d *Door) setConfigOption(p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	var sid sdk.SessionId
	var cid sdk.SessionConfigId
	switch {
	case p.ValueId != nil:
		sid, cid = p.ValueId.SessionId, p.ValueId.ConfigId
	case p.Boolean != nil:
		sid, cid = p.Boolean.SessionId, p.Boolean.ConfigId
	}
	if sid == "" || cid == "" {
		return sdk.SetSessionConfigOptionResponse{}, errorf(CodeInvalidParams, "Invalid params: sessionId, configId and value are required")
	}
	if _, err := d.b.Chat(string(sid)); err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	opts, err := d.b.SetConfigOption(string(sid), p)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	if opts == nil {
		opts = []sdk.SessionConfigOption{}
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: opts}, nil
}

// unstableOptions are options as session/fork's (unstable) answer types
// them; one that does not convert is left out.
func unstableOptions(in []sdk.SessionConfigOption) []sdk.UnstableSessionConfigOption {
	var out []sdk.UnstableSessionConfigOption
	for _, o := range in {
		b, err := json.Marshal(o)
		if err != nil {
			continue
		}
		var u sdk.UnstableSessionConfigOption
		if json.Unmarshal(b, &u) == nil {
			out = append(out, u)
		}
	}
	return out
}
