package client

import (
	"context"

	"github.com/acpmux/acpmux-tui/proto"
)

// This file is signing in to an ACP chat's agent as the clients reach it
// (_acpmux/signIn): on a connection (`acpmux-tui sign-in`), on a Remote,
// and through the Router to the chat's host (the TUI's dialog).

// SignIn takes sign-in method (an id; "" for the only one) of failed ACP
// chat id: see proto.MethodSignIn. A chat with no such offer is a
// *Refusal.
func (c *Conn) SignIn(ctx context.Context, id, method string) (proto.SignInResult, error) {
	var res proto.SignInResult
	err := c.Call(ctx, proto.MethodSignIn, proto.SignInParams{ID: id, Method: method}, &res)
	return res, remoteError(err)
}

// SignIn is Conn.SignIn on the Remote's server.
func (r *Remote) SignIn(id, method string) (proto.SignInResult, error) {
	var res proto.SignInResult
	err := r.call(proto.MethodSignIn, proto.SignInParams{ID: id, Method: method}, &res)
	return res, err
}

// SignIn signs an ACP chat in on its host; a terminal chat it makes is
// named as the Router names that host's chats.
func (rt *Router) SignIn(id, method string) (proto.SignInResult, error) {
	r, raw, err := rt.target(id)
	if err != nil {
		return proto.SignInResult{}, err
	}
	res, err := r.SignIn(raw, method)
	if host, _ := SplitID(id); err == nil && res.Terminal != "" && host != "" {
		res.Terminal = QualifyID(host, res.Terminal)
	}
	return res, rt.older(id, "sign in to a chat's agent", err)
}
