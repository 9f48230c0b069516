package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// commitWorld is gitWorld with the base's tracked files clean again (its
// untracked base-only.txt stays: a merge allows it), a bare repository
// made for origin (not yet added), and, with identity, the user's git
// identity in their ~/.gitconfig, which the binary's git reads.
func commitWorld(t *testing.T, c *cli, identity bool) (repo, bare string, git func(dir string, argv ...string) string) {
	t.Helper()
	repo, git = gitWorld(t, c)
	git(repo, "checkout", "-q", "--", "a.txt")
	bare = filepath.Join(c.root, "origin.git")
	git(c.root, "init", "-q", "--bare", bare)
	if identity {
		writeText(t, filepath.Join(c.root, "user", ".gitconfig"), "[user]\n\tname = Chat User\n\temail = chat@example.invalid\n")
	}
	return repo, bare, git
}

// repoState is what says a repository was left as it was: HEAD, the
// status, and whether a merge is under way.
func repoState(t *testing.T, git func(string, ...string) string, dir string) string {
	t.Helper()
	merging := "no merge"
	if _, err := os.Stat(filepath.Join(strings.TrimSpace(git(dir, "rev-parse", "--absolute-git-dir")), "MERGE_HEAD")); err == nil {
		merging = "MERGING"
	}
	return git(dir, "rev-parse", "HEAD") + git(dir, "status", "--porcelain") + merging
}

// TestE2EReviewPaneCommitPushMerge runs the real binary in tmux on a
// worktree chat: in the review pane (d), c commits the worktree's changes
// with the message typed over the default (the chat's name), P pushes the
// branch to origin (a bare repository), m merges it into main in the base
// repository; then a merge that would conflict is refused, naming the
// file, and both repositories are left as they were.
func TestE2EReviewPaneCommitPushMerge(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	repo, bare, git := commitWorld(t, c, true)
	git(repo, "remote", "add", "origin", bare)
	r := c.runIn(repo, nil, "new", "--worktree", "--harness", "shell", "--name", "wt chat", "--json")
	if r.code != 0 {
		t.Fatalf("new --worktree exited %d: %s", r.code, r.stderr)
	}
	var ch proto.ChatJSON
	if err := json.Unmarshal([]byte(r.stdout), &ch); err != nil {
		t.Fatal(err)
	}
	w, branch := ch.Worktree.Path, ch.Worktree.Branch
	writeText(t, filepath.Join(w, "a.txt"), "the chat's a\n")
	writeText(t, filepath.Join(w, "new.txt"), "the chat's new file\n")

	s := startTmux(t, 160, 45, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("wt chat")
	s.keys("d")
	s.waitText("─ review ", "M a.txt  +1 -1", "? new.txt  +1 -0", "c commit")

	// c: the message prompt starts with the chat's name; typed over.
	s.keys("c")
	s.waitText("commit message: wt chat")
	s.keys("C-u")
	s.text("the chat's work")
	s.keys("Enter")
	s.waitText("committed 2 files on " + branch)
	if got := git(w, "log", "-1", "--format=%s|%an"); got != "the chat's work|Chat User\n" {
		t.Errorf("the commit's subject and author: %q", got)
	}
	if got := git(w, "status", "--porcelain"); got != "" {
		t.Errorf("the worktree after the commit: %q", got)
	}
	tip := strings.TrimSpace(git(w, "rev-parse", "HEAD"))

	// P asks, y pushes: origin has the branch, which tracks it now.
	s.keys("P")
	s.waitText("push " + branch + " to its upstream (else origin)? y push")
	s.keys("y")
	s.waitText("pushed " + branch + " to origin/" + branch)
	if got := strings.TrimSpace(git(bare, "rev-parse", "refs/heads/"+branch)); got != tip {
		t.Errorf("origin's %s is %s, want %s", branch, got, tip)
	}

	// m asks, y merges into main, where the base repository is.
	s.keys("m")
	s.waitText("merge " + branch + " into the branch it came from? y merge")
	s.keys("y")
	s.waitText("merged " + branch + " into main in " + repo)
	if got := git(repo, "log", "-1", "--format=%s"); !strings.Contains(got, `Merge chat "wt chat" (`+ch.ID+`): branch `+branch) {
		t.Errorf("the merge commit's subject: %q", got)
	}
	if got := readText(t, filepath.Join(repo, "new.txt")); got != "the chat's new file\n" {
		t.Errorf("main's new.txt after the merge: %q", got)
	}

	// Both sides change a.txt again: the merge is refused, nothing moves.
	writeText(t, filepath.Join(repo, "a.txt"), "main's a again\n")
	git(repo, "commit", "-q", "-am", "main edits a")
	writeText(t, filepath.Join(w, "a.txt"), "the chat's a again\n")
	git(w, "commit", "-q", "-am", "the chat edits a")
	baseBefore, chatBefore := repoState(t, git, repo), repoState(t, git, w)
	s.keys("m")
	s.waitText("merge " + branch + " into the branch it came from?")
	s.keys("y")
	s.waitText("merge chat " + ch.ID + ": merging " + branch + " into main would conflict in a.txt")
	if a, b := repoState(t, git, repo), repoState(t, git, w); a != baseBefore || b != chatBefore {
		t.Errorf("a refused merge changed a repository:\nbase %q\nthen %q\nchat %q\nthen %q", baseBefore, a, chatBefore, b)
	}
	s.keys("Escape")
	s.waitFor("the review pane to close", func(scr string) bool { return !strings.Contains(scr, "─ review ") })
}

// TestCLICommitPushMerge: commit, push and merge from the command line,
// each with its refusals (exit 1, the reason on stderr, nothing changed):
// not a worktree chat, no git identity, nothing to commit, no remote, the
// base branch checked out nowhere or dirty there, a conflict.
func TestCLICommitPushMerge(t *testing.T) {
	c := newCLI(t)
	repo, bare, git := commitWorld(t, c, false)
	fails := func(words string, args ...string) {
		t.Helper()
		r := c.run(args...)
		if r.code != 1 || !strings.Contains(r.stderr, words) {
			t.Errorf("acpmux-tui %q: exit %d, stderr %q; want 1 and %q", args, r.code, r.stderr, words)
		}
	}

	plain := c.chat("new", "--cwd", repo, "--harness", "shell", "--name", "plain", "--json")
	for _, cmd := range []string{"commit", "push", "merge"} {
		fails("not a worktree chat", cmd, plain.ID)
	}
	var ch proto.ChatJSON
	r := c.runIn(repo, nil, "new", "--worktree", "--base", "main", "--harness", "shell", "--name", "cli chat", "--json")
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &ch) != nil {
		t.Fatalf("new --worktree: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	w, branch := ch.Worktree.Path, ch.Worktree.Branch

	fails("nothing to commit: the worktree "+w+" has no changes", "commit", ch.ID, "-m", "x")
	writeText(t, filepath.Join(w, "b.txt"), "b\n")
	fails("git has no identity to commit as: Author identity unknown", "commit", ch.ID)
	if got := git(w, "status", "--porcelain"); got != "?? b.txt\n" {
		t.Errorf("a refused commit changed the worktree: %q", got)
	}
	writeText(t, filepath.Join(c.root, "user", ".gitconfig"), "[user]\n\tname = Chat User\n\temail = chat@example.invalid\n")
	if out := c.ok("commit", "cli chat", "-m", "add b"); out != "committed 1 file on "+branch+" as "+strings.TrimSpace(git(w, "rev-parse", "--short=12", "HEAD"))+": add b\n" {
		t.Errorf("commit printed %q", out)
	}

	fails("has no remote: add one (git -C "+repo+" remote add origin URL)", "push", ch.ID)
	git(repo, "remote", "add", "origin", bare)
	var pushed proto.GitOpResult
	if err := json.Unmarshal([]byte(c.ok("push", ch.ID, "--json")), &pushed); err != nil {
		t.Fatal(err)
	}
	tip := strings.TrimSpace(git(w, "rev-parse", "HEAD"))
	if pushed.Action != proto.GitPush || pushed.Branch != branch || pushed.Commit != tip || pushed.Remote != "origin/"+branch {
		t.Errorf("push --json: %+v", pushed)
	}
	if got := strings.TrimSpace(git(bare, "rev-parse", "refs/heads/"+branch)); got != tip {
		t.Errorf("origin's branch is at %s, want %s", got, tip)
	}

	// The base branch must be checked out, and clean there.
	git(repo, "switch", "-q", "-c", "other")
	fails("main is not checked out in any working tree of "+repo, "merge", ch.ID)
	git(repo, "switch", "-q", "main")
	writeText(t, filepath.Join(repo, "a.txt"), "the base's own edit\n")
	fails(repo+", where main is checked out, has uncommitted changes", "merge", ch.ID)
	git(repo, "checkout", "-q", "--", "a.txt")
	if out := c.ok("merge", ch.ID); !strings.HasPrefix(out, "merged "+branch+" into main in "+repo) {
		t.Errorf("merge printed %q", out)
	}
	fails("nothing to merge: main already has every commit of "+branch, "merge", ch.ID)

	// A conflict: refused, both repositories as they were.
	writeText(t, filepath.Join(repo, "b.txt"), "main's b\n")
	git(repo, "commit", "-q", "-am", "main edits b")
	writeText(t, filepath.Join(w, "b.txt"), "the chat's b\n")
	c.ok("commit", ch.ID, "-m", "the chat edits b")
	baseBefore, chatBefore := repoState(t, git, repo), repoState(t, git, w)
	fails("would conflict in b.txt: nothing was merged", "merge", ch.ID)
	if a, b := repoState(t, git, repo), repoState(t, git, w); a != baseBefore || b != chatBefore {
		t.Errorf("a refused merge changed a repository:\n%q\n%q\n%q\n%q", baseBefore, a, chatBefore, b)
	}
	if r := c.run("commit", ch.ID, "extra"); r.code != 2 || !strings.Contains(r.stderr, "usage: acpmux-tui commit ID [-m MESSAGE]") {
		t.Errorf("commit with two arguments: exit %d, %q", r.code, r.stderr)
	}
}

// TestHostCommitPushMerge: with --host, the host's server does the git
// work where the chat's worktree is (over the real sshd): a push reaches
// origin, and its refusals come back as they are here (exit 1, the
// reason).
func TestHostCommitPushMerge(t *testing.T) {
	r := newHostRig(t)
	repo, bare, git := commitWorld(t, r.cli, false)
	git(repo, "remote", "add", "origin", bare)
	var ch proto.ChatJSON
	if err := json.Unmarshal([]byte(r.ok("new", "--host", "test", "--worktree", "--cwd", repo, "--harness", "shell", "--name", "far wt", "--json")), &ch); err != nil {
		t.Fatal(err)
	}
	if ch.Worktree == nil || !strings.HasPrefix(ch.Worktree.Path, r.remoteHome) {
		t.Fatalf("the host's worktree chat: %+v", ch)
	}
	plain := r.chat("new", "--host", "test", "--cwd", repo, "--harness", "shell", "--name", "far plain", "--json")
	for _, c := range [][]string{
		{"not a worktree chat", "merge", "--host", "test", plain.ID},
		{"nothing to commit: the worktree " + ch.Worktree.Path + " has no changes", "commit", "--host", "test", "far wt", "-m", "x"},
	} {
		if res := r.run(c[1:]...); res.code != 1 || !strings.Contains(res.stderr, c[0]) {
			t.Errorf("acpmux-tui %q: exit %d, stderr %q; want 1 and %q", c[1:], res.code, res.stderr, c[0])
		}
	}
	writeText(t, filepath.Join(ch.Worktree.Path, "far.txt"), "far\n")
	git(ch.Worktree.Path, "add", "far.txt")
	git(ch.Worktree.Path, "commit", "-q", "-m", "far work")
	out := r.ok("push", "--host", "test", ch.ID)
	if !strings.HasPrefix(out, "pushed "+ch.Worktree.Branch+" to origin/"+ch.Worktree.Branch) {
		t.Errorf("push --host printed %q", out)
	}
	if got, want := git(bare, "rev-parse", "refs/heads/"+ch.Worktree.Branch), git(ch.Worktree.Path, "rev-parse", "HEAD"); got != want {
		t.Errorf("origin has %s, want %s", got, want)
	}
}
