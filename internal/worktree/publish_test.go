package worktree

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// worktreeChat makes a worktree of repo on a branch of its own, as a
// worktree chat has, from HEAD (base "") or from base, and the chat.
func worktreeChat(t *testing.T, repo, base string) *sessions.Meta {
	t.Helper()
	made, err := Add(repo, filepath.Join(t.TempDir(), "wt"), "acpmux/fix-c1", base)
	if err != nil {
		t.Fatal(err)
	}
	return &sessions.Meta{ID: "c1", Name: "fix it", Cwd: made.Path, Worktree: &sessions.Worktree{
		Path: made.Path, Branch: made.Branch, Base: made.Base, BaseRef: made.BaseRef, Repo: made.Repo,
	}}
}

// state is what a test compares to say a repository was left as it was:
// HEAD, the status, and whether a merge is under way.
func state(t *testing.T, dir string) string {
	t.Helper()
	_, merging := Git(dir, "rev-parse", "-q", "--verify", "MERGE_HEAD")
	return run(t, dir, "rev-parse", "HEAD") + run(t, dir, "status", "--porcelain") + map[bool]string{true: "no merge", false: "MERGING"}[merging != nil]
}

func wantRefusal(t *testing.T, err error, words ...string) {
	t.Helper()
	r, ok := AsRefusal(err)
	if !ok {
		t.Fatalf("err = %v, want a refusal saying %q", err, words)
	}
	for _, w := range words {
		if !strings.Contains(r.Reason, w) {
			t.Errorf("refusal %q does not say %q", r.Reason, w)
		}
	}
}

// TestCommitStagesEverything: a commit takes the worktree's changes,
// deletions and untracked files (not ignored ones), as the user's identity,
// with the chat's title (else its name) as the default message; with
// nothing left, the next commit is refused.
func TestCommitStagesEverything(t *testing.T) {
	gitEnvForTest(t)
	repo := newRepo(t)
	write(t, filepath.Join(repo, ".gitignore"), "*.log\n")
	run(t, repo, "add", ".gitignore")
	run(t, repo, "commit", "-q", "-m", "ignore logs")
	m := worktreeChat(t, repo, "")
	w := m.Worktree.Path
	write(t, filepath.Join(w, "a.txt"), "changed\n")
	write(t, filepath.Join(w, "sub", "new.txt"), "new\n")
	write(t, filepath.Join(w, "debug.log"), "ignored\n")
	if err := os.Remove(filepath.Join(w, ".gitignore")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w, ".gitignore"), "*.log\n") // unchanged in the end
	if err := os.Remove(filepath.Join(repo, "a.txt")); err != nil {
		t.Fatal(err) // the base's own change: not the chat's
	}

	m.Title = "Fix the parser\x1b[31m"
	res, err := GitOp(context.Background(), m, proto.GitCommit, "")
	if err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(run(t, w, "rev-parse", "HEAD"))
	if res.Action != proto.GitCommit || res.Commit != head || res.Branch != "acpmux/fix-c1" {
		t.Errorf("result %+v, want the commit %s on the chat's branch", res, head)
	}
	if !strings.Contains(res.Summary, "committed 2 files on acpmux/fix-c1") {
		t.Errorf("summary %q", res.Summary)
	}
	if got := run(t, w, "log", "-1", "--format=%s|%an"); got != "Fix the parser|t\n" {
		t.Errorf("the commit's subject and author: %q", got)
	}
	if got := run(t, w, "status", "--porcelain", "--ignored"); got != "!! debug.log\n" {
		t.Errorf("after the commit the worktree's status is %q, want only the ignored file", got)
	}
	if got := run(t, repo, "status", "--porcelain"); got != " D a.txt\n" {
		t.Errorf("the base repository's status changed: %q", got)
	}

	_, err = GitOp(context.Background(), m, proto.GitCommit, "again")
	wantRefusal(t, err, "nothing to commit", w)
	if !strings.HasPrefix(err.Error(), "commit chat c1: ") {
		t.Errorf("error %q does not name the action and the chat", err)
	}

	// A message given wins; with no title, the name is the default.
	write(t, filepath.Join(w, "b.txt"), "b\n")
	if _, err := Commit(context.Background(), m, "  add b\n\nbecause  "); err != nil {
		t.Fatal(err)
	}
	if got := run(t, w, "log", "-1", "--format=%B"); got != "add b\n\nbecause\n\n" {
		t.Errorf("message %q", got)
	}
	m.Title = ""
	write(t, filepath.Join(w, "c.txt"), "c\n")
	if _, err := Commit(context.Background(), m, ""); err != nil {
		t.Fatal(err)
	}
	if got := run(t, w, "log", "-1", "--format=%s"); got != "fix it\n" {
		t.Errorf("default message with no title %q, want the name", got)
	}
}

// TestCommitRefusals: no identity (git's own words), not a worktree chat,
// a worktree gone; and a commit a hook refuses leaves the index as it was.
func TestCommitRefusals(t *testing.T) {
	gitEnvForTest(t)
	repo := newRepo(t)
	m := worktreeChat(t, repo, "")
	w := m.Worktree.Path
	write(t, filepath.Join(w, "a.txt"), "changed\n")
	write(t, filepath.Join(w, "new.txt"), "new\n")
	before := state(t, w)

	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "") // restored at the end
		os.Unsetenv(k)
	}
	_, err := Commit(context.Background(), m, "x")
	wantRefusal(t, err, "no identity to commit as", "identity unknown", "git config --global user.email")
	if after := state(t, w); after != before {
		t.Errorf("a refused commit changed the worktree:\n%s\n%s", before, after)
	}
	gitEnvForTest(t)

	plain := &sessions.Meta{ID: "p1", Name: "plain", Cwd: repo}
	for _, a := range []proto.GitAction{proto.GitCommit, proto.GitPush, proto.GitMerge} {
		_, err := GitOp(context.Background(), plain, a, "")
		wantRefusal(t, err, "not a worktree chat", repo)
	}
	gone := *m
	gone.Worktree = &sessions.Worktree{Path: filepath.Join(t.TempDir(), "gone"), Branch: "b", Base: m.Worktree.Base, Repo: repo}
	_, err = Commit(context.Background(), &gone, "x")
	wantRefusal(t, err, "is gone")

	hook := filepath.Join(repo, ".git", "hooks", "pre-commit")
	write(t, hook, "#!/bin/sh\necho 'no commits today' >&2\nexit 1\n")
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = Commit(context.Background(), m, "x")
	if err == nil || !strings.Contains(err.Error(), "no commits today") {
		t.Fatalf("a commit the hook refuses: %v", err)
	}
	if after := state(t, w); after != before {
		t.Errorf("a failed commit left the worktree changed (staged):\n%s\n%s", before, after)
	}
}

// TestPush: to a bare repository as origin, the branch's upstream set by
// the first push and used by the next; no remote, or none called origin,
// is refused naming what there is.
func TestPush(t *testing.T) {
	gitEnvForTest(t)
	repo := newRepo(t)
	m := worktreeChat(t, repo, "")
	w := m.Worktree.Path
	write(t, filepath.Join(w, "a.txt"), "work\n")
	if _, err := Commit(context.Background(), m, "work"); err != nil {
		t.Fatal(err)
	}

	_, err := Push(context.Background(), m)
	wantRefusal(t, err, "has no remote", "remote add origin")
	other := filepath.Join(t.TempDir(), "other.git")
	run(t, repo, "init", "-q", "--bare", other)
	run(t, repo, "remote", "add", "upstream", other)
	_, err = Push(context.Background(), m)
	wantRefusal(t, err, "no remote named origin", "upstream")

	bare := filepath.Join(t.TempDir(), "origin.git")
	run(t, repo, "init", "-q", "--bare", bare)
	run(t, repo, "remote", "add", "origin", bare)
	write(t, filepath.Join(w, "later.txt"), "not committed\n")
	res, err := GitOp(context.Background(), m, proto.GitPush, "")
	if err != nil {
		t.Fatal(err)
	}
	tip := strings.TrimSpace(run(t, w, "rev-parse", "HEAD"))
	if got := strings.TrimSpace(run(t, bare, "rev-parse", "refs/heads/acpmux/fix-c1")); got != tip {
		t.Errorf("origin has %s, want %s", got, tip)
	}
	if res.Remote != "origin/acpmux/fix-c1" || res.Commit != tip || !strings.Contains(res.Summary, "its upstream now") {
		t.Errorf("result %+v", res)
	}
	if !strings.Contains(res.Note, "1 uncommitted change in") {
		t.Errorf("note %q, want the uncommitted file named as left out", res.Note)
	}
	if got := run(t, w, "rev-parse", "--abbrev-ref", "@{upstream}"); got != "origin/acpmux/fix-c1\n" {
		t.Errorf("upstream %q", got)
	}

	// The next push goes to the upstream, here renamed on the remote side.
	run(t, w, "config", "branch.acpmux/fix-c1.remote", "upstream")
	run(t, w, "config", "branch.acpmux/fix-c1.merge", "refs/heads/elsewhere")
	res, err = Push(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(run(t, other, "rev-parse", "refs/heads/elsewhere")); got != tip || res.Remote != "upstream/elsewhere" {
		t.Errorf("the push to the upstream: %s there, result %+v", got, res)
	}
	res, err = Push(context.Background(), m)
	if err != nil || !strings.Contains(res.Summary, "up to date") {
		t.Errorf("a push with nothing new: %+v, %v", res, err)
	}
}

// TestMerge: the chat's branch merged (--no-ff) into the branch checked
// out where the worktree came from, its message naming the chat; each
// refusal leaves both repositories as they were.
func TestMerge(t *testing.T) {
	gitEnvForTest(t)
	repo := newRepo(t)
	m := worktreeChat(t, repo, "")
	w := m.Worktree.Path

	_, err := Merge(context.Background(), m)
	wantRefusal(t, err, "nothing to merge", "main already has every commit")

	write(t, filepath.Join(w, "b.txt"), "b\n")
	if _, err := Commit(context.Background(), m, "add b"); err != nil {
		t.Fatal(err)
	}
	// The base's working tree must be clean (untracked files aside).
	write(t, filepath.Join(repo, "a.txt"), "edited in the base\n")
	before := state(t, repo)
	_, err = Merge(context.Background(), m)
	wantRefusal(t, err, repo, "has uncommitted changes")
	if after := state(t, repo); after != before {
		t.Errorf("a refused merge changed the base:\n%s\n%s", before, after)
	}
	run(t, repo, "checkout", "-q", "--", "a.txt")
	write(t, filepath.Join(repo, "junk.txt"), "untracked\n")

	// Made from HEAD: the branch checked out there must hold the base.
	run(t, repo, "switch", "-q", "--orphan", "elsewhere")
	run(t, repo, "commit", "-q", "--allow-empty", "-m", "unrelated")
	_, err = Merge(context.Background(), m)
	wantRefusal(t, err, "elsewhere, checked out there now, does not hold that commit")
	run(t, repo, "switch", "-q", "main")

	res, err := GitOp(context.Background(), m, proto.GitMerge, "")
	if err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(run(t, repo, "rev-parse", "HEAD"))
	if res.Into != "main" || res.Where != repo || res.Commit != head || !strings.Contains(res.Summary, "merged acpmux/fix-c1 into main") {
		t.Errorf("result %+v", res)
	}
	if got := run(t, repo, "log", "-1", "--format=%p|%s"); len(strings.Fields(strings.Split(got, "|")[0])) != 2 || !strings.Contains(got, `|Merge chat "fix it" (c1): branch acpmux/fix-c1`) {
		t.Errorf("the merge commit (parents|subject): %q", got)
	}
	if got := run(t, repo, "status", "--porcelain"); got != "?? junk.txt\n" {
		t.Errorf("the base after the merge: %q", got)
	}
}

// TestMergeRefusals: a conflict (git merge-tree says so first), a base
// branch checked out nowhere, a base that is no local branch; and a merge
// that fails on the way (a hook) is aborted. Both repositories are left
// as they were each time.
func TestMergeRefusals(t *testing.T) {
	gitEnvForTest(t)
	repo := newRepo(t)
	m := worktreeChat(t, repo, "main")
	w := m.Worktree.Path
	write(t, filepath.Join(w, "a.txt"), "the chat's a\n")
	if _, err := Commit(context.Background(), m, "chat edits a"); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(repo, "a.txt"), "the base's a\n")
	run(t, repo, "commit", "-q", "-am", "base edits a")
	baseBefore, chatBefore := state(t, repo), state(t, w)
	_, err := Merge(context.Background(), m)
	wantRefusal(t, err, "would conflict in a.txt", "nothing was merged")
	if a, b := state(t, repo), state(t, w); a != baseBefore || b != chatBefore {
		t.Errorf("a refused merge changed a repository:\n%s\n%s\n%s\n%s", baseBefore, a, chatBefore, b)
	}

	// The same conflict found by the merge itself (as with a git whose
	// merge-tree cannot tell) is aborted.
	res, err := mergeFallback(t, m)
	if err == nil || !strings.Contains(err.Error(), "the merge was aborted") {
		t.Fatalf("a merge that conflicts on the way: %+v, %v", res, err)
	}
	if a := state(t, repo); a != baseBefore {
		t.Errorf("an aborted merge left the base changed:\n%s\n%s", baseBefore, a)
	}

	run(t, repo, "switch", "-q", "-c", "other")
	_, err = Merge(context.Background(), m)
	wantRefusal(t, err, "main is not checked out in any working tree", "git -C "+repo+" switch main")

	m.Worktree.BaseRef = "v1"
	run(t, repo, "tag", "v1", m.Worktree.Base)
	_, err = Merge(context.Background(), m)
	wantRefusal(t, err, "its base v1 is not a local branch")
}

// mergeFallback runs Merge with a git whose merge-tree is too old to
// answer: a wrapper first on PATH that fails `git merge-tree` as git
// before 2.38 does.
func mergeFallback(t *testing.T, m *sessions.Meta) (proto.GitOpResult, error) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	write(t, filepath.Join(bin, "git"), "#!/bin/sh\nfor a; do [ \"$a\" = merge-tree ] && { echo 'usage: git merge-tree' >&2; exit 129; }; done\nexec "+real+" \"$@\"\n")
	if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := os.Getenv("PATH")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+path)
	defer os.Setenv("PATH", path)
	return Merge(context.Background(), m)
}

// TestGitCallsEndAtTheirDeadline: a commit whose hook hangs (with a child
// of its own) ends when its context does, the hook's whole process group
// with it, and the index is put back as it was.
func TestGitCallsEndAtTheirDeadline(t *testing.T) {
	gitEnvForTest(t)
	repo := newRepo(t)
	m := worktreeChat(t, repo, "")
	w := m.Worktree.Path
	write(t, filepath.Join(w, "new.txt"), "new\n")
	before := state(t, w)
	pidFile := filepath.Join(t.TempDir(), "pid")
	hook := filepath.Join(repo, ".git", "hooks", "pre-commit")
	write(t, hook, "#!/bin/sh\nsleep 1000 &\necho $! > "+pidFile+".tmp\nmv "+pidFile+".tmp "+pidFile+"\nwait\n")
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Commit(ctx, m, "x")
		done <- err
	}()
	var pid int
	wait.Until(t, "the hook to start its child", func() bool {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	cancel()
	var err error
	wait.Until(t, "the commit to end", func() bool {
		select {
		case err = <-done:
			return true
		default:
			return false
		}
	})
	if err == nil || !strings.Contains(err.Error(), "stopped after its deadline") {
		t.Errorf("a commit whose hook hangs: %v", err)
	}
	wait.Until(t, "the hook's child to be killed", func() bool {
		return syscall.Kill(pid, 0) != nil
	})
	if after := state(t, w); after != before {
		t.Errorf("a stopped commit left the worktree changed:\n%s\n%s", before, after)
	}
}
