package main

import (
	"fmt"

	"github.com/acpmux/acpmux-tui/internal/worktree"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is what the commands show of a worktree chat. Making and
// removing worktrees is the chat service's (package chatsvc).

// pruneMissing runs git worktree prune for a chat whose worktree folder
// was removed by hand, so git forgets it too; a failure is only logged
// on stderr, the chat shows as missing either way.
func (a *app) pruneMissing(m *sessions.Meta) {
	if m == nil || m.Worktree == nil || !m.Worktree.Missing() {
		return
	}
	if err := worktree.Prune(m.Worktree.Repo); err != nil {
		fmt.Fprintf(a.stderr, "acpmux-tui: warning: chat %s: %v\n", m.ID, err)
	}
}

// worktreeRows adds a worktree chat's rows to show's table.
func worktreeRows(row func(k, v string), j *proto.WorktreeJSON) {
	if j == nil {
		return
	}
	path := j.Path
	if j.Missing {
		path += "  (missing: removed by hand)"
	}
	row("worktree", path)
	row("branch", j.Branch)
	base := j.Base
	if len(base) > 12 {
		base = base[:12]
	}
	if j.BaseRef != "" && j.BaseRef != j.Base {
		base += " (" + j.BaseRef + ")"
	}
	row("base", base)
	row("repo", j.Repo)
}
