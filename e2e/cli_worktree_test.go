package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/gitenv"
	"github.com/acpmux/acpmux-tui/proto"
)

// gitWorld gives the test's user the real git (on the CLI's PATH, with an
// identity and no outside config) and a repository with one commit, whose
// working tree is then made dirty: a.txt edited, base-only.txt untracked.
func gitWorld(t *testing.T, c *cli) (repo string, git func(dir string, argv ...string) string) {
	t.Helper()
	path, err := exec.LookPath("git")
	if err != nil {
		t.Fatalf("git is needed: %v", err)
	}
	if err := os.Symlink(path, filepath.Join(c.root, "bin", "git")); err != nil {
		t.Fatal(err)
	}
	gitEnv := append(c.env(), gitenv.Vars...)
	git = func(dir string, argv ...string) string {
		t.Helper()
		cmd := exec.Command(path, append([]string{"-C", dir}, argv...)...)
		cmd.Env = gitEnv
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git -C %s %q: %v\n%s", dir, argv, err, out)
		}
		return string(out)
	}
	repo = c.dir("repo")
	git(repo, "init", "-q", "-b", "main")
	writeText(t, filepath.Join(repo, "a.txt"), "a\n")
	git(repo, "add", "a.txt")
	git(repo, "commit", "-q", "-m", "first")
	writeText(t, filepath.Join(repo, "a.txt"), "the base's own edit\n")
	writeText(t, filepath.Join(repo, "base-only.txt"), "the base's own file\n")
	return repo, git
}

func writeText(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWorktreeChatLifecycle: new --worktree makes a worktree on its own
// branch from HEAD and the chat lives there; a fork gets its own from the
// parent's tip with the parent's uncommitted work; rm refuses while work
// would be lost, naming it, then --force removes the worktree and keeps
// the branch; a worktree removed by hand shows as missing and is pruned;
// the base repository's status never changes.
func TestWorktreeChatLifecycle(t *testing.T) {
	c := newCLI(t)
	repo, git := gitWorld(t, c)
	before := git(repo, "status", "--porcelain")
	head := strings.TrimSpace(git(repo, "rev-parse", "HEAD"))

	r := c.runIn(repo, nil, "new", "--worktree", "--harness", "shell", "--name", "fix the parser", "--json")
	if r.code != 0 {
		t.Fatalf("new --worktree exited %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "has uncommitted changes; they stay there") {
		t.Errorf("no note about the dirty base: %q", r.stderr)
	}
	var parent proto.ChatJSON
	if err := json.Unmarshal([]byte(r.stdout), &parent); err != nil {
		t.Fatal(err)
	}
	w := parent.Worktree
	if w == nil {
		t.Fatalf("no worktree in %s", r.stdout)
	}
	wantPath := filepath.Join(c.home, "worktrees", parent.ID)
	if w.Path != wantPath || parent.Cwd != wantPath || w.Branch != "acpmux/fix-the-parser-"+parent.ID ||
		w.Base != head || w.BaseRef != "HEAD" || w.Repo != repo || w.Missing {
		t.Fatalf("worktree %+v, cwd %s; want %s on acpmux/fix-the-parser-%s from %s of %s", w, parent.Cwd, wantPath, parent.ID, head, repo)
	}
	if got := readText(t, filepath.Join(w.Path, "a.txt")); got != "a\n" {
		t.Errorf("the worktree's a.txt is %q, want the committed text", got)
	}
	show := c.ok("show", parent.ID)
	for _, row := range [][2]string{{"worktree", w.Path}, {"branch", w.Branch}, {"base", head[:12] + " (HEAD)"}, {"repo", repo}} {
		if !hasRow(show, row[0], row[1]) {
			t.Errorf("show lacks %s %s:\n%s", row[0], row[1], show)
		}
	}

	// The parent's uncommitted work: staged, unstaged, untracked.
	writeText(t, filepath.Join(w.Path, "a.txt"), "staged\n")
	git(w.Path, "add", "a.txt")
	writeText(t, filepath.Join(w.Path, "b.txt"), "untracked\n")
	writeText(t, filepath.Join(w.Path, "a.txt"), "staged then edited\n")
	git(w.Path, "commit", "-q", "--allow-empty", "-m", "the chat's commit")
	tip := strings.TrimSpace(git(w.Path, "rev-parse", "HEAD"))
	parentStatus := git(w.Path, "status", "--porcelain")

	fork := c.chat("fork", parent.ID, "--json")
	fw := fork.Worktree
	if fw == nil || fw.Path == w.Path || fork.Cwd != fw.Path || fw.Base != tip || fw.BaseRef != w.Branch || fw.Repo != repo {
		t.Fatalf("fork's worktree %+v (cwd %s); want its own, from %s (%s) of %s", fw, fork.Cwd, tip, w.Branch, repo)
	}
	if got := readText(t, filepath.Join(fw.Path, "a.txt")); got != "staged then edited\n" {
		t.Errorf("fork's a.txt = %q", got)
	}
	if got := readText(t, filepath.Join(fw.Path, "b.txt")); got != "untracked\n" {
		t.Errorf("fork's b.txt = %q", got)
	}
	if got := git(fw.Path, "status", "--porcelain"); got != parentStatus {
		t.Errorf("fork's status %q, want the parent's %q", got, parentStatus)
	}
	if got := git(w.Path, "status", "--porcelain"); got != parentStatus {
		t.Errorf("forking changed the parent's status: %q, was %q", got, parentStatus)
	}

	// rm refuses, naming what would be lost, and changes nothing. The
	// commit before the fork is on the fork's branch too; one after it is
	// on no other.
	git(w.Path, "commit", "-q", "--allow-empty", "-m", "after the fork")
	r = c.run("rm", parent.ID)
	if r.code == 0 || !strings.Contains(r.stderr, "?? b.txt") || !strings.Contains(r.stderr, "1 commit(s) on no other branch") ||
		!strings.Contains(r.stderr, "after the fork") || strings.Contains(r.stderr, "the chat's commit") || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("rm of a dirty worktree chat: exit %d, %q", r.code, r.stderr)
	}
	if _, err := os.Stat(w.Path); err != nil {
		t.Fatalf("a refused rm touched the worktree: %v", err)
	}
	if len(c.ls()) != 2 {
		t.Fatal("a refused rm removed the chat")
	}
	c.ok("rm", "--force", parent.ID)
	if _, err := os.Stat(w.Path); !os.IsNotExist(err) {
		t.Errorf("rm --force left the worktree: %v", err)
	}
	if strings.Contains(git(repo, "worktree", "list"), w.Path) {
		t.Error("git still lists the removed worktree")
	}
	git(repo, "rev-parse", "--verify", "refs/heads/"+w.Branch) // kept

	// A worktree removed by hand: missing, and pruned.
	if err := os.RemoveAll(fw.Path); err != nil {
		t.Fatal(err)
	}
	if got := c.chat("show", fork.ID, "--json"); got.Worktree == nil || !got.Worktree.Missing {
		t.Fatalf("show of a chat whose worktree is gone: %+v", got.Worktree)
	}
	if !strings.Contains(c.ok("show", fork.ID), "(missing: removed by hand)") {
		t.Error("show's text does not say the worktree is missing")
	}
	if strings.Contains(git(repo, "worktree", "list"), fw.Path) {
		t.Error("the worktree removed by hand was not pruned")
	}
	c.ok("rm", "--delete-branch", fork.ID)
	if strings.Contains(git(repo, "branch", "--list", fw.Branch), fw.Branch) {
		t.Error("rm --delete-branch kept the branch")
	}

	if after := git(repo, "status", "--porcelain"); after != before {
		t.Errorf("the base repository's status changed:\nbefore %q\nafter  %q", before, after)
	}
}

// TestWorktreeRefusalsAndDefault: --worktree outside a repository and a
// --base that is no commit exit 2 and make nothing; worktree = true in the
// config gives a chat in a repository a worktree and leaves one elsewhere
// plain; --base starts the branch there; --worktree=false opts out.
func TestWorktreeRefusalsAndDefault(t *testing.T) {
	c := newCLI(t)
	repo, git := gitWorld(t, c)
	plain := c.dir("plain")
	for _, tc := range []struct {
		dir  string
		args []string
		says string
	}{
		{plain, []string{"new", "--worktree", "--harness", "shell"}, "not inside a git repository"},
		{repo, []string{"new", "--worktree", "--base", "no-such-ref", "--harness", "shell"}, `base "no-such-ref" is not a commit`},
		{repo, []string{"new", "--base", "main", "--harness", "shell"}, "--base goes with --worktree"},
	} {
		r := c.runIn(tc.dir, nil, tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.says) {
			t.Errorf("%q in %s: exit %d, %q; want 2 and %q", tc.args, tc.dir, r.code, r.stderr, tc.says)
		}
	}
	if n := len(c.ls()); n != 0 {
		t.Fatalf("refusals left %d chats", n)
	}
	if des, _ := os.ReadDir(filepath.Join(c.home, "worktrees")); len(des) != 0 {
		t.Fatalf("refusals left worktrees: %v", des)
	}

	git(repo, "commit", "-q", "-am", "second")
	first := strings.TrimSpace(git(repo, "rev-parse", "HEAD~1"))
	wtDir := c.dir("trees")
	cfg := fmt.Sprintf("[worktree]\ndefault = true\ndir = %q\n", wtDir)
	if err := os.WriteFile(c.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	j := c.chatIn(repo, "new", "--cwd", repo, "--harness", "shell", "--base", "HEAD~1", "--json")
	if j.Worktree == nil || j.Worktree.Path != filepath.Join(wtDir, j.ID) || j.Worktree.Base != first || j.Worktree.BaseRef != "HEAD~1" {
		t.Fatalf("default worktree: %+v, want one in %s from %s", j.Worktree, wtDir, first)
	}
	if j = c.chatIn(plain, "new", "--cwd", plain, "--harness", "shell", "--json"); j.Worktree != nil || j.Cwd != plain {
		t.Errorf("the default outside a repository: %+v in %s", j.Worktree, j.Cwd)
	}
	if j = c.chatIn(repo, "new", "--cwd", repo, "--worktree=false", "--harness", "shell", "--json"); j.Worktree != nil || j.Cwd != repo {
		t.Errorf("--worktree=false: %+v in %s", j.Worktree, j.Cwd)
	}

	// fork --worktree of a plain chat in a repository: a worktree from
	// HEAD with the working tree's uncommitted work, the base untouched.
	before := git(repo, "status", "--porcelain")
	f := c.chat("fork", j.ID, "--worktree", "--json")
	if f.Worktree == nil || f.Worktree.Repo != repo || f.Cwd != f.Worktree.Path {
		t.Fatalf("fork --worktree of a plain chat: %+v", f.Worktree)
	}
	if got := readText(t, filepath.Join(f.Worktree.Path, "base-only.txt")); got != "the base's own file\n" {
		t.Errorf("the fork's copy of the untracked file: %q", got)
	}
	if after := git(repo, "status", "--porcelain"); after != before {
		t.Errorf("fork --worktree changed the base's status: %q, was %q", after, before)
	}
	// A fork of it with --worktree=false shares its folder.
	g := c.chat("fork", f.ID, "--worktree=false", "--json")
	if g.Worktree != nil || g.Cwd != f.Worktree.Path {
		t.Errorf("fork --worktree=false: %+v in %s", g.Worktree, g.Cwd)
	}
	// rm of the worktree's owner refuses while another chat runs in it.
	git(f.Worktree.Path, "add", "-A")
	git(f.Worktree.Path, "stash", "-q")
	r := c.run("rm", f.ID)
	if r.code == 0 || !strings.Contains(r.stderr, "other chats run in its worktree") || !strings.Contains(r.stderr, g.ID) {
		t.Errorf("rm of a worktree another chat runs in: exit %d, %q", r.code, r.stderr)
	}
	c.ok("rm", g.ID)
	c.ok("rm", f.ID)
	if _, err := os.Stat(f.Worktree.Path); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
}
