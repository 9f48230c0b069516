package server

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file answers an ACP chat's session mode and configuration options
// for the _acpmux/* clients (the TUI's chooser, `acpmux-tui set`): read as
// the agent last said them, and set through the agent (session/set_mode,
// session/set_config_option), as the ACP door sets them for its clients.
// The option and value a client names are matched here, once, for every
// client (proto.FindOption, FindValue).

// chatOptions answers MethodOptions: what the chat's agent last said of
// its mode and options; nothing is started.
func (s *Server) chatOptions(p proto.IDParams) (proto.OptionsResult, *Error) {
	if p.ID == "" {
		return proto.OptionsResult{}, errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	}
	opts, running, err := s.opt.Mux.Options(p.ID)
	if err != nil {
		return proto.OptionsResult{}, optionsFailure(p.ID, err)
	}
	return optionsResult(opts, running), nil
}

// setOption answers MethodSetOption: the chat's agent started unless it
// runs, the option and value matched against what it offers (an unknown
// one refused naming the choices), then set through the agent, whose
// refusal is answered with its message (the mux cleaned it).
func (s *Server) setOption(p proto.SetOptionParams) (proto.OptionsResult, *Error) {
	var none proto.OptionsResult
	if p.ID == "" || p.Option == "" || p.Value == "" {
		return none, errorf(proto.CodeInvalidParams, "Invalid params: id, option and value are required")
	}
	if _, _, err := s.opt.Mux.Options(p.ID); err != nil {
		return none, optionsFailure(p.ID, err)
	}
	if _, rpcErr := s.feedFor(p.ID); rpcErr != nil {
		return none, rpcErr
	}
	if rpcErr := s.refuseWhenClosing(); rpcErr != nil {
		return none, rpcErr
	}
	s.track(p.ID)
	ctx := context.Background()
	err := s.opt.Mux.WaitReady(ctx, p.ID)
	s.poke()
	if err != nil {
		return none, failure(fmt.Errorf("start chat %s: %w", p.ID, err))
	}
	opts, _, err := s.opt.Mux.Options(p.ID)
	if err != nil {
		return none, optionsFailure(p.ID, err)
	}
	opt, err := proto.FindOption(opts, p.Option)
	if err != nil {
		return none, refused(fmt.Sprintf("chat %s: %v", p.ID, err))
	}
	v, err := opt.FindValue(p.Value)
	if err != nil {
		return none, refused(fmt.Sprintf("chat %s: %v", p.ID, err))
	}
	switch opt.Kind {
	case proto.OptionMode:
		err = s.opt.Mux.SetMode(ctx, p.ID, v.ID)
	case proto.OptionBoolean:
		_, err = s.opt.Mux.SetConfigOption(ctx, p.ID, sdk.SetSessionConfigOptionRequest{
			Boolean: &sdk.SetSessionConfigOptionBoolean{ConfigId: sdk.SessionConfigId(opt.ID), Type: "boolean", Value: v.ID == "true"}})
	default:
		_, err = s.opt.Mux.SetConfigOption(ctx, p.ID, sdk.SetSessionConfigOptionRequest{
			ValueId: &sdk.SetSessionConfigOptionValueId{ConfigId: sdk.SessionConfigId(opt.ID), Value: sdk.SessionConfigValueId(v.ID)}})
	}
	s.poke()
	if err != nil {
		var re *sdk.RequestError
		if errors.As(err, &re) {
			return none, &Error{Code: proto.CodeFailed, Message: fmt.Sprintf("the agent refused %s %s: %s", opt.Name, v.Name, re.Message),
				Data: map[string]any{"agentCode": re.Code}}
		}
		return none, failure(err)
	}
	opts, running, err := s.opt.Mux.Options(p.ID)
	if err != nil {
		return none, optionsFailure(p.ID, err)
	}
	return optionsResult(opts, running), nil
}

// optionsFailure answers an error of Mux.Options: a chat that does not
// speak ACP is refused (-32602), the rest as failure says.
func optionsFailure(id string, err error) *Error {
	if errors.Is(err, mux.ErrNotACP) {
		return refused(fmt.Sprintf("chat %s has no modes or options: %v", id, mux.ErrNotACP))
	}
	return failure(err)
}

// optionsResult is the answer, with an empty list rather than none.
func optionsResult(opts []proto.ChatOption, running bool) proto.OptionsResult {
	if opts == nil {
		opts = []proto.ChatOption{}
	}
	return proto.OptionsResult{Running: running, Options: opts}
}
