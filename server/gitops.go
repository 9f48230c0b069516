package server

import (
	"context"

	"github.com/acpmux/acpmux-tui/internal/worktree"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file answers _acpmux/gitOp: the review pane's commit, push and
// merge of a worktree chat's branch (proto/gitops.go), done here, on the
// host where the chat's worktree is, for every client (the TUI,
// `acpmux-tui commit|push|merge --host`). The git work, its deadlines and
// its refusals are internal/worktree's; git runs in the call's goroutine,
// with no lock of the server's held.

// gitOp answers MethodGitOp: the action on the chat as stored. A refusal
// or a failure is CodeFailed with the reason; the repositories are left as
// they were.
func (s *Server) gitOp(p proto.GitOpParams) (proto.GitOpResult, *Error) {
	var none proto.GitOpResult
	if err := needID(p.ID); err != nil {
		return none, err
	}
	if !p.Action.Valid() {
		return none, errorf(proto.CodeInvalidParams, "Invalid params: action must be %q, %q or %q, not %q",
			proto.GitCommit, proto.GitPush, proto.GitMerge, clipText(string(p.Action)))
	}
	if len(p.Message) > proto.MaxCommitMessage {
		return none, errorf(proto.CodeInvalidParams, "Invalid params: the commit message has %d bytes, more than %d", len(p.Message), proto.MaxCommitMessage)
	}
	m, err := s.opt.Store.Load(p.ID)
	if err != nil {
		return none, failure(err)
	}
	res, err := worktree.GitOp(context.Background(), m, p.Action, p.Message)
	if err != nil {
		s.opt.Logger.Info("git action refused or failed", "chat", p.ID, "action", p.Action, "err", err)
		return none, failure(err)
	}
	s.opt.Logger.Info("git action", "chat", p.ID, "action", p.Action, "commit", res.Commit, "into", res.Into, "remote", res.Remote)
	return res, nil
}
