package client

import (
	"context"

	"github.com/acpmux/acpmux-tui/proto"
)

// This file is an ACP chat's mode and options as the clients reach them
// (_acpmux/options, _acpmux/setOption): on a connection (`acpmux-tui
// set`), on a Remote, and through the Router to the chat's host (the TUI's
// chooser).

// ChatOptions is what chat id's agent last said of its mode and options;
// nothing is started.
func (c *Conn) ChatOptions(ctx context.Context, id string) (proto.OptionsResult, error) {
	var res proto.OptionsResult
	err := c.Call(ctx, proto.MethodOptions, proto.IDParams{ID: id}, &res)
	return res, remoteError(err)
}

// SetOption has chat id's agent (started unless it runs) set option to
// value (each an id or a name) and answers the options then. An option or
// value the agent does not offer is a *Refusal; the agent's refusal is an
// error with its message.
func (c *Conn) SetOption(ctx context.Context, id, option, value string) (proto.OptionsResult, error) {
	var res proto.OptionsResult
	err := c.Call(ctx, proto.MethodSetOption, proto.SetOptionParams{ID: id, Option: option, Value: value}, &res)
	return res, remoteError(err)
}

// ChatOptions is Conn.ChatOptions on the Remote's server.
func (r *Remote) ChatOptions(id string) (proto.OptionsResult, error) {
	var res proto.OptionsResult
	err := r.call(proto.MethodOptions, proto.IDParams{ID: id}, &res)
	return res, err
}

// SetOption is Conn.SetOption on the Remote's server.
func (r *Remote) SetOption(id, option, value string) (proto.OptionsResult, error) {
	var res proto.OptionsResult
	err := r.call(proto.MethodSetOption, proto.SetOptionParams{ID: id, Option: option, Value: value}, &res)
	return res, err
}

// ChatOptions is an ACP chat's mode and options, from its host.
func (rt *Router) ChatOptions(id string) (proto.OptionsResult, error) {
	r, raw, err := rt.target(id)
	if err != nil {
		return proto.OptionsResult{}, err
	}
	res, err := r.ChatOptions(raw)
	return res, rt.older(id, "show a chat's modes and options", err)
}

// SetOption sets an ACP chat's mode or option on its host.
func (rt *Router) SetOption(id, option, value string) (proto.OptionsResult, error) {
	r, raw, err := rt.target(id)
	if err != nil {
		return proto.OptionsResult{}, err
	}
	res, err := r.SetOption(raw, option, value)
	return res, rt.older(id, "set a chat's mode or options", err)
}
