package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestGitOpThroughTheServer: _acpmux/gitOp commits a worktree chat's work
// where its worktree is, with the chat's name as the default message, and
// answers what it did; a chat that is not a worktree chat and a worktree
// with nothing to commit are refused (-32000, the reason); a bad action,
// a message too long, no id and an unknown chat are the params' errors.
func TestGitOpThroughTheServer(t *testing.T) {
	repo, git := serverGitRepo(t)
	r := newRig(t, rigOpt{})
	w := r.dial()
	yes := true
	var c, plain proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Cwd: repo, Name: "git op", Worktree: &yes}, &c)
	w.ok(proto.MethodNew, proto.NewParams{Cwd: repo, Name: "plain"}, &plain)
	if err := os.WriteFile(filepath.Join(c.Worktree.Path, "new.txt"), []byte("n\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	var res proto.GitOpResult
	w.ok(proto.MethodGitOp, proto.GitOpParams{ID: c.ID, Action: proto.GitCommit}, &res)
	head := strings.TrimSpace(git(c.Worktree.Path, "rev-parse", "HEAD"))
	if res.Action != proto.GitCommit || res.Commit != head || res.Branch != c.Worktree.Branch ||
		!strings.HasPrefix(res.Summary, "committed 1 file on "+c.Worktree.Branch) {
		t.Errorf("result %+v, want the commit %s", res, head)
	}
	if got := git(c.Worktree.Path, "log", "-1", "--format=%s"); got != "git op\n" {
		t.Errorf("default message %q, want the chat's name", got)
	}

	e := w.fails(proto.CodeFailed, proto.MethodGitOp, proto.GitOpParams{ID: c.ID, Action: proto.GitCommit, Message: "again"})
	if !strings.Contains(e.Message, "commit chat "+c.ID+": nothing to commit") {
		t.Errorf("nothing to commit: %s", e.Message)
	}
	e = w.fails(proto.CodeFailed, proto.MethodGitOp, proto.GitOpParams{ID: plain.ID, Action: proto.GitMerge})
	if !strings.Contains(e.Message, "not a worktree chat") {
		t.Errorf("a plain chat: %s", e.Message)
	}
	e = w.fails(proto.CodeInvalidParams, proto.MethodGitOp, proto.GitOpParams{ID: c.ID, Action: "rebase"})
	if !strings.Contains(e.Message, `not "rebase"`) {
		t.Errorf("a bad action: %s", e.Message)
	}
	w.fails(proto.CodeInvalidParams, proto.MethodGitOp, proto.GitOpParams{ID: c.ID, Action: proto.GitCommit, Message: strings.Repeat("x", proto.MaxCommitMessage+1)})
	w.fails(proto.CodeInvalidParams, proto.MethodGitOp, proto.GitOpParams{Action: proto.GitPush})
	w.fails(proto.CodeChatNotFound, proto.MethodGitOp, proto.GitOpParams{ID: "nosuchchat", Action: proto.GitPush})
}
