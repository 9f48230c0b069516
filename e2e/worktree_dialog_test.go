package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2ENewChatDialogWorktree: in the TUI, the new-chat dialog on a
// project in a repository, its worktree turned on with ctrl+g, makes a
// chat whose harness runs in a git worktree of that repository (git
// worktree list shows it) on the chat's own branch; the base repository's
// status is unchanged.
func TestE2ENewChatDialogWorktree(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	repo, git := gitWorld(t, c)
	writeText(t, filepath.Join(repo, "dirty.txt"), "not committed\n")
	before := git(repo, "status", "--porcelain")
	fake := buildFakeHarness(t)
	rec := filepath.Join(c.root, "fake-record.jsonl")
	cfg := fmt.Sprintf("default_harness = \"claude\"\n\n[harness.claude]\ncommand = %q\nenv = { ACPMUX_FAKE_RECORD = %q }\n", fake, rec)
	if err := os.WriteFile(c.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startTmuxIn(t, repo, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("No chats yet", "press n for a new chat")
	s.keys("n")
	s.waitText("new chat", "worktree  no  ctrl+g turns it on")
	s.keys("Tab")
	s.text(repo)
	s.keys("C-g")
	s.waitText("worktree  yes · a worktree of the project's repository")
	s.keys("C-s")
	s.waitFor("the chat's harness to start", func(string) bool { return len(readRecords(t, rec)) == 1 })
	list := c.ls()
	if len(list) != 1 || list[0].Worktree == nil {
		t.Fatalf("chats: %+v", list)
	}
	w := list[0].Worktree
	if w.Repo != repo || list[0].Cwd != w.Path || !strings.HasPrefix(w.Branch, "acpmux/") {
		t.Fatalf("the chat: cwd %s, worktree %+v", list[0].Cwd, w)
	}
	if got := readRecords(t, rec)[0].Cwd; got != w.Path {
		t.Errorf("the harness ran in %s, want the worktree %s", got, w.Path)
	}
	if wl := git(repo, "worktree", "list", "--porcelain"); !strings.Contains(wl, "worktree "+w.Path+"\n") || !strings.Contains(wl, "branch refs/heads/"+w.Branch+"\n") {
		t.Errorf("git worktree list does not show %s on %s:\n%s", w.Path, w.Branch, wl)
	}
	if _, err := os.Stat(filepath.Join(w.Path, "dirty.txt")); !os.IsNotExist(err) {
		t.Errorf("the base repository's uncommitted file is in the new worktree: %v", err)
	}
	s.waitText(w.Branch)
	if after := git(repo, "status", "--porcelain"); after != before {
		t.Errorf("the base repository's status changed:\nbefore %q\nafter  %q", before, after)
	}
	s.keys("C-]")
	s.keys("q")
}
