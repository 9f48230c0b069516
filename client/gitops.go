package client

import (
	"context"

	"github.com/acpmux/acpmux-tui/proto"
)

// This file is the review pane's git actions on a worktree chat's branch
// as the clients reach them (_acpmux/gitOp): on a connection (`acpmux-tui
// commit|push|merge --host`), on a Remote, and through the Router to the
// chat's host (the TUI's review pane).

// GitOp does action on worktree chat id on the connection's server:
// see proto.MethodGitOp. message is a commit's ("" for the default).
func (c *Conn) GitOp(ctx context.Context, id string, action proto.GitAction, message string) (proto.GitOpResult, error) {
	var res proto.GitOpResult
	err := c.Call(ctx, proto.MethodGitOp, proto.GitOpParams{ID: id, Action: action, Message: message}, &res)
	return res, remoteError(err)
}

// GitOp is Conn.GitOp on the Remote's server.
func (r *Remote) GitOp(id string, action proto.GitAction, message string) (proto.GitOpResult, error) {
	var res proto.GitOpResult
	err := r.call(proto.MethodGitOp, proto.GitOpParams{ID: id, Action: action, Message: message}, &res)
	return res, err
}

// GitOp does action on worktree chat id on its host, whose server runs
// git where the chat's worktree is.
func (rt *Router) GitOp(id string, action proto.GitAction, message string) (proto.GitOpResult, error) {
	r, raw, err := rt.target(id)
	if err != nil {
		return proto.GitOpResult{}, err
	}
	res, err := r.GitOp(raw, action, message)
	return res, rt.older(id, "commit, push or merge a chat's branch", err)
}
