package main

import (
	"context"
	"fmt"
	"os"

	"github.com/coder/acp-go-sdk"
)

// This file is the fake's session modes and its one config option, a
// "model" select, served with ACPMUX_FAKE_MODES=1. With
// ACPMUX_FAKE_REFUSE=1 too, it offers one more mode ("yolo") and one more
// model ("slow", whose name carries an escape sequence) and refuses to set
// either, each with a message that carries escape sequences too.

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

// The mode and the model the fake offers and refuses with
// ACPMUX_FAKE_REFUSE=1, and its refusals.
var (
	refusedMode  = acp.SessionMode{Id: "yolo", Name: "Yolo"}
	refusedModel = acp.SessionConfigSelectOption{Value: "slow", Name: "Slow\x1b[5m"}
)

const (
	refusedModeMessage  = "\x1b[31myolo mode is off by policy\x1b[0m"
	refusedModelMessage = "slow is not on your plan\x1b]0;pwned\x07"
)

// refusing reports whether the fake offers what it refuses.
func refusing() bool { return os.Getenv("ACPMUX_FAKE_REFUSE") == "1" }

// offeredModes are the modes the fake lists.
func offeredModes() []acp.SessionMode {
	if refusing() {
		return append(append([]acp.SessionMode(nil), fakeModes...), refusedMode)
	}
	return fakeModes
}

// offeredModels are the models the fake lists.
func offeredModels() []acp.SessionConfigSelectOption {
	if refusing() {
		return append(append([]acp.SessionConfigSelectOption(nil), fakeModels...), refusedModel)
	}
	return fakeModels
}

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
	models := offeredModels()
	opt := acp.NewSessionConfigOptionSelect(acp.SessionConfigValueId(model),
		acp.SessionConfigSelectOptions{Ungrouped: (*acp.SessionConfigSelectOptionsUngrouped)(&models)})
	opt.Select.Id, opt.Select.Name = modelOption, "Model"
	return &acp.SessionModeState{AvailableModes: offeredModes(), CurrentModeId: acp.SessionModeId(mode)}, []acp.SessionConfigOption{opt}
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
	if refusing() && p.ModeId == refusedMode.Id {
		return acp.SetSessionModeResponse{}, &acp.RequestError{Code: -32000, Message: refusedModeMessage}
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
	if refusing() && v.ConfigId == modelOption && v.Value == refusedModel.Value {
		return acp.SetSessionConfigOptionResponse{}, &acp.RequestError{Code: -32000, Message: refusedModelMessage}
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
