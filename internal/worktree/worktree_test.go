package worktree

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/gitenv"
)

// gitEnvForTest gives git a user and no outside config.
func gitEnvForTest(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed: %v", err)
	}
	t.Setenv("HOME", t.TempDir())
	gitenv.Set(t)
}

func run(t *testing.T, dir string, argv ...string) string {
	t.Helper()
	out, err := Git(dir, argv...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// newRepo makes a repository with one commit on main, a.txt holding "a".
func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	run(t, dir, "init", "-q", "-b", "main")
	write(t, filepath.Join(dir, "a.txt"), "a\n")
	run(t, dir, "add", "a.txt")
	run(t, dir, "commit", "-q", "-m", "first")
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestSlugAndBranch(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"fix the parser", "fix-the-parser"},
		{"  Fix: the  Parser!! ", "fix-the-parser"},
		{"", "chat"},
		{"日本", "chat"},
		{"a/b..c", "a-b-c"},
		{strings.Repeat("x", 80), strings.Repeat("x", 40)},
	} {
		if got := Slug(c.name); got != c.want {
			t.Errorf("Slug(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	for _, c := range [][3]string{
		{"fix it", "k3x9q2", "acpmux/fix-it-k3x9q2"},
		{"app k3x9q2", "k3x9q2", "acpmux/app-k3x9q2"},
		{"k3x9q2", "k3x9q2", "acpmux/k3x9q2"},
		{"", "k3x9q2", "acpmux/chat-k3x9q2"},
	} {
		if got := BranchName(c[0], c[1]); got != c[2] {
			t.Errorf("BranchName(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
	for _, n := range []string{"fix it", "", "a..b", "x/y"} {
		b := BranchName(n, "id1")
		if _, err := exec.Command("git", "check-ref-format", "--branch", b).Output(); err != nil {
			t.Errorf("branch %q from %q is not a valid branch name: %v", b, n, err)
		}
	}
}

func TestIsRepo(t *testing.T) {
	gitEnvForTest(t)
	repo := newRepo(t)
	sub := filepath.Join(repo, "sub")
	write(t, filepath.Join(sub, "x"), "x")
	bare := filepath.Join(t.TempDir(), "bare.git")
	run(t, repo, "clone", "-q", "--bare", repo, bare)
	detached := newRepo(t)
	run(t, detached, "checkout", "-q", "--detach")
	plain := t.TempDir()
	for _, c := range []struct {
		name, dir string
		notRepo   bool
		top       string
		bare, det bool
	}{
		{name: "toplevel", dir: repo, top: repo},
		{name: "subfolder", dir: sub, top: repo},
		{name: "bare", dir: bare, bare: true},
		{name: "detached", dir: detached, top: detached, det: true},
		{name: "plain folder", dir: plain, notRepo: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := IsRepo(c.dir)
			if c.notRepo {
				if !errors.Is(err, ErrNotRepo) {
					t.Fatalf("IsRepo(%s) = %v, %v; want ErrNotRepo", c.dir, r, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Bare != c.bare || r.Detached != c.det {
				t.Errorf("IsRepo = %+v", r)
			}
			if c.top != "" && (r.Toplevel != c.top || r.Main != c.top) {
				t.Errorf("Toplevel, Main = %q, %q; want %q", r.Toplevel, r.Main, c.top)
			}
		})
	}
}

func TestAddCheckRemove(t *testing.T) {
	gitEnvForTest(t)
	repo := newRepo(t)
	write(t, filepath.Join(repo, "dirty.txt"), "base's own untracked file\n")
	write(t, filepath.Join(repo, "a.txt"), "base's own edit\n")
	before := run(t, repo, "status", "--porcelain")
	dest := filepath.Join(t.TempDir(), "wt", "c1")

	m, err := Add(filepath.Join(repo), dest, "acpmux/c-1", "")
	if err != nil {
		t.Fatal(err)
	}
	head := strings.TrimSpace(run(t, repo, "rev-parse", "HEAD"))
	if m.Base != head || m.BaseRef != "HEAD" || m.Repo != repo || m.Branch != "acpmux/c-1" {
		t.Errorf("Add = %+v, want base %s repo %s", m, head, repo)
	}
	if got, _ := os.ReadFile(filepath.Join(m.Path, "a.txt")); string(got) != "a\n" {
		t.Errorf("worktree a.txt = %q, want the committed text", got)
	}
	if _, err := os.Stat(filepath.Join(m.Path, "dirty.txt")); err == nil {
		t.Error("the base's untracked file reached the worktree")
	}
	r, err := Check(m.Path, m.Branch, m.Base)
	if err != nil || !r.Clean() {
		t.Fatalf("fresh worktree Check = %+v, %v; want clean", r, err)
	}

	write(t, filepath.Join(m.Path, "new.txt"), "new\n")
	r, _ = Check(m.Path, m.Branch, m.Base)
	if !slices.Contains(r.Changes, "?? new.txt") || len(r.Commits) != 0 {
		t.Errorf("Check after an untracked file = %+v", r)
	}
	if err := Remove(repo, m.Path, m.Branch, false, false); err == nil {
		t.Error("git worktree remove of a dirty worktree succeeded without --force")
	}
	run(t, m.Path, "add", "new.txt")
	run(t, m.Path, "commit", "-q", "-m", "the chat's work")
	r, _ = Check(m.Path, m.Branch, m.Base)
	if len(r.Changes) != 0 || len(r.Commits) != 1 || !strings.HasSuffix(r.Commits[0], " the chat's work") {
		t.Errorf("Check after a commit = %+v, want one commit named", r)
	}
	if !strings.Contains(r.String(), "1 commit(s) on no other branch") {
		t.Errorf("Report.String = %q", r.String())
	}
	run(t, repo, "branch", "keep", m.Branch)
	if r, _ = Check(m.Path, m.Branch, m.Base); !r.Clean() {
		t.Errorf("Check with the commit on another branch = %+v, want clean", r)
	}

	if err := Remove(repo, m.Path, m.Branch, false, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(m.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("worktree folder still there: %v", err)
	}
	if _, err := Git(repo, "rev-parse", "--verify", "refs/heads/"+m.Branch); err != nil {
		t.Errorf("branch gone without deleteBranch: %v", err)
	}
	if after := run(t, repo, "status", "--porcelain"); after != before {
		t.Errorf("base status changed:\nbefore %q\nafter  %q", before, after)
	}
}

func TestAddRefusals(t *testing.T) {
	gitEnvForTest(t)
	repo := newRepo(t)
	empty := t.TempDir()
	run(t, empty, "init", "-q")
	for _, c := range []struct {
		name, dir, base string
		is              error
		says            string
	}{
		{name: "not a repo", dir: t.TempDir(), is: ErrNotRepo},
		{name: "no commits", dir: empty, is: ErrNoCommits},
		{name: "unknown base", dir: repo, base: "nope", says: `base "nope" is not a commit`},
		{name: "option as base", dir: repo, base: "--orphan", says: "does not start with '-'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Add(c.dir, filepath.Join(t.TempDir(), "w"), "acpmux/x-1", c.base)
			if err == nil || (c.is != nil && !errors.Is(err, c.is)) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("Add = %v, want %v / %q", err, c.is, c.says)
			}
		})
	}
}

func TestAddFromBareDetachedAndSubmodules(t *testing.T) {
	gitEnvForTest(t)
	repo := newRepo(t)
	bare := filepath.Join(t.TempDir(), "bare.git")
	run(t, repo, "clone", "-q", "--bare", repo, bare)
	m, err := Add(bare, filepath.Join(t.TempDir(), "w"), "acpmux/b-1", "")
	if err != nil {
		t.Fatalf("worktree of a bare repository: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(m.Path, "a.txt")); string(got) != "a\n" {
		t.Errorf("bare worktree a.txt = %q", got)
	}

	run(t, repo, "checkout", "-q", "--detach")
	m, err = Add(repo, filepath.Join(t.TempDir(), "w"), "acpmux/d-1", "")
	if err != nil {
		t.Fatalf("worktree from a detached HEAD: %v", err)
	}
	if r, _ := Check(m.Path, m.Branch, m.Base); !r.Clean() {
		t.Errorf("worktree from a detached HEAD is not clean: %+v", r)
	}

	withSub := newRepo(t)
	run(t, withSub, "-c", "protocol.file.allow=always", "submodule", "--quiet", "add", repo, "lib")
	run(t, withSub, "commit", "-q", "-m", "sub")
	r, _ := IsRepo(withSub)
	if !r.Submodules {
		t.Errorf("IsRepo did not see the submodule: %+v", r)
	}
	m, err = Add(withSub, filepath.Join(t.TempDir(), "w"), "acpmux/s-1", "")
	if err != nil {
		t.Fatalf("worktree of a repository with submodules: %v", err)
	}
	if _, err := os.Stat(filepath.Join(m.Path, ".gitmodules")); err != nil {
		t.Errorf("worktree lacks .gitmodules: %v", err)
	}
}

func TestCarryUncommitted(t *testing.T) {
	gitEnvForTest(t)
	repo := newRepo(t)
	write(t, filepath.Join(repo, "b.txt"), "b\n")
	run(t, repo, "add", "b.txt")
	run(t, repo, "commit", "-q", "-m", "second")
	write(t, filepath.Join(repo, ".gitignore"), "*.log\n")
	run(t, repo, "add", ".gitignore")
	run(t, repo, "commit", "-q", "-m", "ignore")
	parent, err := Add(repo, filepath.Join(t.TempDir(), "p"), "acpmux/p-1", "")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(parent.Path, "a.txt"), "staged\n")
	run(t, parent.Path, "add", "a.txt")
	write(t, filepath.Join(parent.Path, "b.txt"), "unstaged\n")
	write(t, filepath.Join(parent.Path, "dir", "u.txt"), "untracked\n")
	write(t, filepath.Join(parent.Path, "x.log"), "ignored\n")
	parentStatus := run(t, parent.Path, "status", "--porcelain")

	tip, err := Head(parent.Path)
	if err != nil {
		t.Fatal(err)
	}
	child, err := Add(parent.Path, filepath.Join(t.TempDir(), "c"), "acpmux/c-2", tip)
	if err != nil {
		t.Fatal(err)
	}
	if err := CarryUncommitted(parent.Path, child.Path); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{"a.txt": "staged\n", "b.txt": "unstaged\n", "dir/u.txt": "untracked\n"} {
		if got, err := os.ReadFile(filepath.Join(child.Path, rel)); err != nil || string(got) != want {
			t.Errorf("child %s = %q, %v; want %q", rel, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(child.Path, "x.log")); err == nil {
		t.Error("an ignored file was carried")
	}
	if got := run(t, child.Path, "status", "--porcelain"); got != parentStatus {
		t.Errorf("child status %q, want the parent's %q", got, parentStatus)
	}
	if got := run(t, parent.Path, "status", "--porcelain"); got != parentStatus {
		t.Errorf("parent status changed: %q, was %q", got, parentStatus)
	}
	if child.Repo != repo {
		t.Errorf("child repo %s, want the main working tree %s", child.Repo, repo)
	}
	if child.Base != tip {
		t.Errorf("child base %s, want the parent's tip %s", child.Base, tip)
	}

	clean, err := Add(repo, filepath.Join(t.TempDir(), "k"), "acpmux/k-1", "")
	if err != nil {
		t.Fatal(err)
	}
	other, err := Add(repo, filepath.Join(t.TempDir(), "o"), "acpmux/o-1", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := CarryUncommitted(clean.Path, other.Path); err != nil {
		t.Errorf("carrying from a clean worktree: %v", err)
	}
}

// TestHooksRunAsGitRunsThem: the repository's post-checkout hook runs in
// the new worktree when git worktree add checks it out.
func TestHooksRunAsGitRunsThem(t *testing.T) {
	gitEnvForTest(t)
	repo := newRepo(t)
	hook := filepath.Join(repo, ".git", "hooks", "post-checkout")
	write(t, hook, "#!/bin/sh\necho \"hook ran with $3\" > hook-was-here\n")
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	m, err := Add(repo, filepath.Join(t.TempDir(), "w"), "acpmux/h-1", "")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(m.Path, "hook-was-here")); err != nil || string(got) != "hook ran with 1\n" {
		t.Errorf("post-checkout in the worktree: %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(repo, "hook-was-here")); err == nil {
		t.Error("the hook wrote in the base repository's working tree")
	}
}

func TestRemoveGoneFolderPrunes(t *testing.T) {
	gitEnvForTest(t)
	repo := newRepo(t)
	m, err := Add(repo, filepath.Join(t.TempDir(), "w"), "acpmux/g-1", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(m.Path); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(run(t, repo, "worktree", "list", "--porcelain"), m.Path) {
		t.Fatal("git forgot the worktree before prune")
	}
	if err := Remove(repo, m.Path, m.Branch, false, true); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(run(t, repo, "worktree", "list", "--porcelain"), m.Path) {
		t.Error("git still lists the removed worktree")
	}
	if _, err := Git(repo, "rev-parse", "--verify", "refs/heads/"+m.Branch); err == nil {
		t.Error("branch kept with deleteBranch")
	}
}
