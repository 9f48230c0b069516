package main

import (
	"context"
	"fmt"

	"github.com/coder/acp-go-sdk"
)

// This file is the fake's session modes and its one config option, a
// "model" select, served with ACPMUX_FAKE_MODES=1.

var (
	fakeModes = []acp.SessionMode{
		{Id: "ask", Name: "Ask", Description: acp.Ptr("Asks before it edits")},
		{Id: "code", Name: "Code"},
	}
	fakeModels = []acp.SessionConfigSelectOption{
		{Value: "fast", Name: "Fast"},
		{Value: "smart", Name: "Smart"},
	}
)

const modelOption = "model"

// sessionConfig is the session's modes and options for a setup answer;
// nil and nil without ACPMUX_FAKE_MODES.
func (a *fakeAgent) sessionConfig(ss session) (*acp.SessionModeState, []acp.SessionConfigOption) {
	if !a.cfg.modes {
		return nil, nil
	}
	mode, model := ss.Mode, ss.Model
	if mode == "" {
		mode = string(fakeModes[0].Id)
	}
	if model == "" {
		model = string(fakeModels[0].Value)
	}
	opt := acp.NewSessionConfigOptionSelect(acp.SessionConfigValueId(model),
		acp.SessionConfigSelectOptions{Ungrouped: (*acp.SessionConfigSelectOptionsUngrouped)(&fakeModels)})
	opt.Select.Id, opt.Select.Name = modelOption, "Model"
	return &acp.SessionModeState{AvailableModes: fakeModes, CurrentModeId: acp.SessionModeId(mode)}, []acp.SessionConfigOption{opt}
}

func knownMode(id acp.SessionModeId) bool {
	for _, m := range fakeModes {
		if m.Id == id {
			return true
		}
	}
	return false
}

// SetSessionMode changes the session's mode, then says so in a
// current_mode_update, as an agent may.
func (a *fakeAgent) SetSessionMode(ctx context.Context, p acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	logf("acpfake: session/set_mode %s %s", p.SessionId, p.ModeId)
	if !a.cfg.modes {
		return acp.SetSessionModeResponse{}, methodNotFound(acp.AgentMethodSessionSetMode)
	}
	if _, ok := a.store.get(string(p.SessionId)); !ok {
		return acp.SetSessionModeResponse{}, unknownSession(p.SessionId)
	}
	if !knownMode(p.ModeId) {
		return acp.SetSessionModeResponse{}, &acp.RequestError{Code: codeInvalidParams,
			Message: fmt.Sprintf("unknown mode %q", p.ModeId), Data: map[string]any{"modeId": string(p.ModeId)}}
	}
	if err := a.store.update(string(p.SessionId), func(s *session) { s.Mode = string(p.ModeId) }); err != nil {
		return acp.SetSessionModeResponse{}, err
	}
	if err := a.update(ctx, string(p.SessionId), acp.SessionUpdate{CurrentModeUpdate: &acp.SessionCurrentModeUpdate{CurrentModeId: p.ModeId}}); err != nil {
		return acp.SetSessionModeResponse{}, err
	}
	return acp.SetSessionModeResponse{}, nil
}

// SetSessionConfigOption sets the "model" option and answers every option.
func (a *fakeAgent) SetSessionConfigOption(_ context.Context, p acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	if !a.cfg.modes {
		return acp.SetSessionConfigOptionResponse{}, methodNotFound(acp.AgentMethodSessionSetConfigOption)
	}
	v := p.ValueId
	if v == nil {
		return acp.SetSessionConfigOptionResponse{}, &acp.RequestError{Code: codeInvalidParams, Message: "the model option takes a value id"}
	}
	logf("acpfake: session/set_config_option %s %s=%s", v.SessionId, v.ConfigId, v.Value)
	if _, ok := a.store.get(string(v.SessionId)); !ok {
		return acp.SetSessionConfigOptionResponse{}, unknownSession(v.SessionId)
	}
	known := false
	for _, m := range fakeModels {
		known = known || m.Value == v.Value
	}
	if v.ConfigId != modelOption || !known {
		return acp.SetSessionConfigOptionResponse{}, &acp.RequestError{Code: codeInvalidParams,
			Message: fmt.Sprintf("unknown option %q or value %q", v.ConfigId, v.Value)}
	}
	if err := a.store.update(string(v.SessionId), func(s *session) { s.Model = string(v.Value) }); err != nil {
		return acp.SetSessionConfigOptionResponse{}, err
	}
	ss, _ := a.store.get(string(v.SessionId))
	_, opts := a.sessionConfig(ss)
	return acp.SetSessionConfigOptionResponse{ConfigOptions: opts}, nil
}

// mode is the prompt command "mode ID": the agent changes its own mode.
func (t *turnRun) mode(id string) (acp.StopReason, error) {
	if err := t.a.store.update(t.sid, func(s *session) { s.Mode = id }); err != nil {
		return "", err
	}
	if err := t.send(acp.SessionUpdate{CurrentModeUpdate: &acp.SessionCurrentModeUpdate{CurrentModeId: acp.SessionModeId(id)}}); err != nil {
		return "", err
	}
	return t.stopReason(), t.say("mode: " + id)
}
