package server

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/internal/testharness/gitenv"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// serverGitRepo makes a repository with one commit for a server test, its
// git given an identity and no outside config.
func serverGitRepo(t *testing.T) (repo string, git func(dir string, argv ...string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed: %v", err)
	}
	gitenv.Set(t)
	git = func(dir string, argv ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir}, argv...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %q: %v\n%s", argv, err, out)
		}
		return string(out)
	}
	repo, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	git(repo, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(repo, "add", "a.txt")
	git(repo, "commit", "-q", "-m", "first")
	return repo, git
}

// TestWorktreeChatsThroughTheServer: with worktree = true, a chat the TUI
// asks the server for in a repository runs in a worktree of its own (and
// one outside a repository is plain); a fork of it gets its own worktree
// with the parent's uncommitted work; remove names that work and refuses
// without force, then removes the worktree and keeps the branch.
func TestWorktreeChatsThroughTheServer(t *testing.T) {
	repo, git := serverGitRepo(t)
	r := newRig(t, rigOpt{config: func(c *config.Config) { c.Worktree.Default = true }})
	w := r.dial()
	var c proto.ChatJSON
	w.ok(proto.MethodCreateAndStart, proto.CreateAndStartParams{NewParams: proto.NewParams{Cwd: repo, Name: "srv"}}, &c)
	if c.Worktree == nil || c.Cwd != c.Worktree.Path || c.Worktree.Repo != repo || c.Worktree.Branch != "acpmux/srv-"+c.ID {
		t.Fatalf("created: cwd %s, worktree %+v", c.Cwd, c.Worktree)
	}
	if got := r.waitRecords(1)[0].Cwd; got != c.Worktree.Path {
		t.Errorf("the harness ran in %s, want the worktree %s", got, c.Worktree.Path)
	}
	var plain proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Cwd: t.TempDir()}, &plain)
	if plain.Worktree != nil {
		t.Errorf("a chat outside a repository got a worktree: %+v", plain.Worktree)
	}

	if err := os.WriteFile(filepath.Join(c.Worktree.Path, "new.txt"), []byte("n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var fork proto.ChatJSON
	w.ok(proto.MethodDerive, proto.DeriveParams{ID: c.ID, Origin: sessions.OriginFork}, &fork)
	if fork.Worktree == nil || fork.Worktree.Path == c.Worktree.Path || fork.Worktree.BaseRef != c.Worktree.Branch {
		t.Fatalf("fork: %+v", fork.Worktree)
	}
	if b, err := os.ReadFile(filepath.Join(fork.Worktree.Path, "new.txt")); err != nil || string(b) != "n\n" {
		t.Errorf("the fork's new.txt: %q, %v", b, err)
	}

	var rep proto.RemoveReport
	w.ok(proto.MethodRemove, proto.RemoveParams{ID: c.ID, DryRun: true}, &rep)
	if rep.Worktree != c.Worktree.Path || len(rep.WorktreeWork) != 1 || rep.WorktreeWork[0] != "?? new.txt" {
		t.Fatalf("dry run: %+v", rep)
	}
	e := w.fails(proto.CodeFailed, proto.MethodRemove, proto.RemoveParams{ID: c.ID})
	if !strings.Contains(e.Message, "?? new.txt") {
		t.Fatalf("refusal: %s", e.Message)
	}
	w.ok(proto.MethodRemove, proto.RemoveParams{ID: c.ID, Force: true}, &rep)
	if _, err := os.Stat(c.Worktree.Path); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
	git(repo, "rev-parse", "--verify", "refs/heads/"+c.Worktree.Branch)
	w.ok(proto.MethodRemove, proto.RemoveParams{ID: fork.ID, Force: true, DeleteBranch: true}, &rep)
	if out := git(repo, "branch", "--list", fork.Worktree.Branch); strings.TrimSpace(out) != "" {
		t.Errorf("the fork's branch was kept with deleteBranch: %q", out)
	}
}

// TestWorktreeAskedOfTheServer: the client's worktree param (the TUI's
// dialogs) wins over the config's default both ways: true gives a chat in
// a repository its worktree with worktree = false, and refuses one outside
// a repository; false gives a plain chat; a fork asked for a worktree of a
// plain parent gets one carrying the parent's uncommitted work, and a fork
// of a worktree chat asked for none runs in the parent's folder.
func TestWorktreeAskedOfTheServer(t *testing.T) {
	repo, git := serverGitRepo(t)
	r := newRig(t, rigOpt{})
	w := r.dial()
	yes, no := true, false
	var c proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Cwd: repo, Name: "asked", Worktree: &yes}, &c)
	if c.Worktree == nil || c.Cwd != c.Worktree.Path || c.Worktree.Repo != repo {
		t.Fatalf("asked for a worktree: cwd %s, worktree %+v", c.Cwd, c.Worktree)
	}
	e := w.fails(proto.CodeInvalidParams, proto.MethodNew, proto.NewParams{Cwd: t.TempDir(), Worktree: &yes})
	if !strings.Contains(e.Message, "not inside a git repository") {
		t.Errorf("a worktree outside a repository: %s", e.Message)
	}
	w.fails(proto.CodeInvalidParams, proto.MethodNew, proto.NewParams{Worktree: &yes})

	r2 := newRig(t, rigOpt{config: func(c *config.Config) { c.Worktree.Default = true }})
	w2 := r2.dial()
	var plain proto.ChatJSON
	w2.ok(proto.MethodNew, proto.NewParams{Cwd: repo, Worktree: &no}, &plain)
	if plain.Worktree != nil || plain.Cwd != repo {
		t.Errorf("asked for none with worktree = true: cwd %s, worktree %+v", plain.Cwd, plain.Worktree)
	}

	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var fork proto.ChatJSON
	w2.ok(proto.MethodDerive, proto.DeriveParams{ID: plain.ID, Origin: sessions.OriginFork, Worktree: &yes}, &fork)
	if fork.Worktree == nil || fork.Cwd != fork.Worktree.Path {
		t.Fatalf("a fork asked for a worktree: cwd %s, worktree %+v", fork.Cwd, fork.Worktree)
	}
	if b, err := os.ReadFile(filepath.Join(fork.Worktree.Path, "a.txt")); err != nil || string(b) != "changed\n" {
		t.Errorf("the fork's a.txt: %q, %v (want the parent's uncommitted change)", b, err)
	}
	if st := git(repo, "status", "--porcelain"); st != " M a.txt\n" {
		t.Errorf("the base repository's status: %q", st)
	}
	var flat proto.ChatJSON
	w2.ok(proto.MethodDerive, proto.DeriveParams{ID: fork.ID, Origin: sessions.OriginFork, Worktree: &no}, &flat)
	if flat.Worktree != nil || flat.Cwd != fork.Worktree.Path {
		t.Errorf("a fork of a worktree chat asked for none: cwd %s, worktree %+v", flat.Cwd, flat.Worktree)
	}
}

// TestChatCarriesItsBaseline: once a chat's first start has recorded its
// baseline, the server's answer for it (_acpmux/chat and _acpmux/list)
// carries it, so a client reviews the chat without reading its file: the
// HEAD of its folder and the instant, read back to the nanosecond.
func TestChatCarriesItsBaseline(t *testing.T) {
	repo, git := serverGitRepo(t)
	head := strings.TrimSpace(git(repo, "rev-parse", "HEAD"))
	r := newRig(t, rigOpt{})
	w := r.dial()
	var c proto.ChatJSON
	w.ok(proto.MethodCreateAndStart, proto.CreateAndStartParams{NewParams: proto.NewParams{Cwd: repo}}, &c)
	r.waitRecords(1)
	var got proto.ChatJSON
	waitFor(t, "the chat's baseline in the server's answer", func() bool {
		w.ok(proto.MethodChat, proto.IDParams{ID: c.ID}, &got)
		return got.Baseline != nil
	})
	stored, err := r.store.Load(c.ID)
	if err != nil || stored.Baseline == nil {
		t.Fatalf("the chat file's baseline: %v, %v", stored, err)
	}
	b := sessions.BaselineFromJSON(got.Baseline)
	if b == nil || b.Head != head || !b.At.Equal(stored.Baseline.At) {
		t.Fatalf("answered baseline %+v, stored %+v (head %s)", got.Baseline, stored.Baseline, head)
	}
	var list proto.ListResult
	w.ok(proto.MethodList, struct{}{}, &list)
	if len(list.Chats) != 1 || list.Chats[0].Baseline == nil || list.Chats[0].Baseline.Head != head {
		t.Fatalf("the list's chat: %+v", list.Chats)
	}
}
