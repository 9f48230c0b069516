package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIImportOfAWorktreeChat: a worktree chat exported and imported into
// another agent home on the same machine, its worktree under a --root,
// keeps its worktree (cwd and [worktree]) and says so (never started, it
// had no baseline to speak of); imported where the worktree is gone (removed
// with git worktree remove, as on another host), it runs in the worktree's
// repository, the [worktree] dropped with a line of the report.
func TestCLIImportOfAWorktreeChat(t *testing.T) {
	c1, c2, c3 := newCLI(t), newCLI(t), newCLI(t)
	repo, git := gitWorld(t, c1)
	for _, c := range []*cli{c2, c3} {
		path, _ := exec.LookPath("git")
		if err := os.Symlink(path, filepath.Join(c.root, "bin", "git")); err != nil {
			t.Fatal(err)
		}
	}
	chat := c1.chat("new", "--worktree", "--cwd", repo, "--harness", "shell", "--name", "wt", "--json")
	w := chat.Worktree
	if w == nil {
		t.Fatalf("no worktree: %+v", chat)
	}
	bundle := filepath.Join(c1.root, "wt.acpmux.tgz")
	c1.ok("export", chat.ID, "-o", bundle)

	rep := c2.importJSON(bundle, "--root", c1.root)
	list := c2.ls()
	if len(list) != 1 || list[0].Worktree == nil || list[0].Worktree.Path != w.Path || list[0].Worktree.Branch != w.Branch || list[0].Cwd != w.Path {
		t.Fatalf("imported where the worktree is: %+v", list)
	}
	if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, "is here: the chat runs in it") || strings.Contains(notes, "review baseline") {
		t.Errorf("report notes: %q", rep.Notes)
	}

	git(repo, "worktree", "remove", "--force", w.Path)
	rep = c3.importJSON(bundle, "--root", c1.root)
	list = c3.ls()
	if len(list) != 1 || list[0].Worktree != nil || list[0].Cwd != repo {
		t.Fatalf("imported where the worktree is gone: %+v", list)
	}
	if notes := strings.Join(rep.Notes, "\n"); !strings.Contains(notes, "dropped") || !strings.Contains(notes, "runs in the worktree's repository") {
		t.Errorf("report notes: %q", rep.Notes)
	}
}
