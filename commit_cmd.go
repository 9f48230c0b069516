package main

import (
	"context"
	"fmt"

	"github.com/acpmux/acpmux-tui/internal/worktree"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file is commit, push and merge: the review pane's git actions on a
// worktree chat's branch, from the command line. Here the git work runs in
// this process (as diff's does, with this terminal's environment: its ssh
// agent for a push); with --host, that host's server does it
// (_acpmux/gitOp), as it does for the TUI. Either way the code is
// internal/worktree's GitOp.

// gitOpOptions are the flags of commit, push and merge.
type gitOpOptions struct {
	action  proto.GitAction
	ref     string
	message string
	host    string
	asJSON  bool
}

func cmdCommit(a *app, args []string) error { return gitOpCmd(a, proto.GitCommit, args) }
func cmdPush(a *app, args []string) error   { return gitOpCmd(a, proto.GitPush, args) }
func cmdMerge(a *app, args []string) error  { return gitOpCmd(a, proto.GitMerge, args) }

// gitOpCmd parses the flags of one of the three commands.
func gitOpCmd(a *app, action proto.GitAction, args []string) error {
	fs := newFlags(a, string(action))
	o := gitOpOptions{action: action}
	usage := "usage: acpmux-tui " + string(action) + " ID [--host NAME] [--json]"
	if action == proto.GitCommit {
		fs.StringVar(&o.message, "m", "", "the commit message (default: the chat's title, else its name)")
		usage = "usage: acpmux-tui commit ID [-m MESSAGE] [--host NAME] [--json]"
	}
	host := hostFlag(fs)
	fs.BoolVar(&o.asJSON, "json", false, "print what was done as JSON")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("%s", usage)
	}
	o.ref, o.host = pos[0], *host
	return gitOpRun(a, o)
}

// gitOpRun does the action on the chat, here or on the host, and prints
// what was done: its summary, and a note (uncommitted work left out) on
// stderr.
func gitOpRun(a *app, o gitOpOptions) error {
	var res proto.GitOpResult
	if o.host != "" {
		err := a.onHostChat(o.host, o.ref, func(l *hostLink, id string) error {
			return l.call(proto.MethodGitOp, proto.GitOpParams{ID: id, Action: o.action, Message: o.message}, &res)
		})
		if err != nil {
			return err
		}
	} else {
		e, err := a.resolve(o.ref)
		if err != nil {
			return err
		}
		if e.Broken != nil {
			return fmt.Errorf("%s %s: %w (the file is left as it is: fix or move it by hand)", o.action, e.ID, e.Broken)
		}
		if res, err = worktree.GitOp(context.Background(), e.Meta, o.action, o.message); err != nil {
			return err
		}
	}
	if o.asJSON {
		return a.printJSON(res)
	}
	if res.Note != "" {
		fmt.Fprintf(a.stderr, "acpmux-tui: note: %s\n", res.Note)
	}
	_, err := fmt.Fprintln(a.stdout, res.Summary)
	return err
}
