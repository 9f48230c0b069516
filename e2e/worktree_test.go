package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestE2EWorktreeChatRunsInItsWorktree: the launch flags with --worktree,
// run in a repository, make a worktree chat whose harness (a fake that
// records its cwd) runs in the worktree, after [worktree] setup, whose
// output is on the chat's screen; the summary shows the branch, the base,
// the repository and which folder is a git repository. D on it names the
// worktree's uncommitted work and, answered, removes the worktree, its
// branch kept. The base repository's status never changes.
func TestE2EWorktreeChatRunsInItsWorktree(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	repo, git := gitWorld(t, c)
	before := git(repo, "status", "--porcelain")
	libRepo := c.dir("lib-repo")
	git(libRepo, "init", "-q")
	notes := c.dir("notes")
	fake := buildFakeHarness(t)
	rec := filepath.Join(c.root, "fake-record.jsonl")
	cfg := fmt.Sprintf("[harness.claude]\ncommand = %q\nenv = { ACPMUX_FAKE_RECORD = %q }\n\n"+
		"[worktree]\nsetup = [\"/bin/sh\", \"-c\", \"echo setup-ran-in ${PWD##*/}\"]\nsetup_timeout = \"1m\"\n", fake, rec)
	if err := os.WriteFile(c.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startTmuxIn(t, repo, 160, 50, append(c.env(), "TERM=xterm-256color"),
		[]string{binary, "--worktree", "--harness", "claude", "--name", "wt chat", "--dir", libRepo, "--dir", notes})
	s.waitText("ready>", "keys go to claude")
	list := c.ls()
	if len(list) != 1 || list[0].Worktree == nil {
		t.Fatalf("chats: %+v", list)
	}
	w := list[0].Worktree
	recs := readRecords(t, rec)
	if len(recs) != 1 || recs[0].Cwd != w.Path {
		t.Fatalf("the harness ran in %+v, want %s", recs, w.Path)
	}
	s.waitText("setup-ran-in "+list[0].ID, "acpmux/wt-chat-"+list[0].ID, "from "+w.Base[:12]+" (HEAD)", libRepo+" · git")
	if scr := s.screen(); strings.Contains(scr, notes+" · git") {
		t.Errorf("a folder that is no repository is shown as one:\n%s", scr)
	}

	// f and enter fork it (through the server): the fork gets its own worktree
	// from the parent's tip, with the parent's uncommitted file, and its
	// harness runs there.
	writeText(t, filepath.Join(w.Path, "agent-wrote.txt"), "work\n")
	s.keys("C-]")
	s.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to claude") })
	s.keys("f")
	// The fork dialog asks, its worktree on for a worktree chat's fork.
	s.waitText(`fork "wt chat"`, "worktree  yes", "starts at the parent's branch tip")
	s.keys("Enter")
	s.waitFor("the fork's harness to start", func(string) bool { return len(readRecords(t, rec)) == 2 })
	var fork *proto.ChatJSON
	for _, ch := range c.ls() {
		if ch.Origin == "fork" {
			fork = &ch
		}
	}
	if fork == nil || fork.Worktree == nil || fork.Worktree.Path == w.Path || fork.Worktree.Base != w.Base || fork.Worktree.BaseRef != w.Branch {
		t.Fatalf("the fork: %+v", fork)
	}
	fw := fork.Worktree
	if got := readRecords(t, rec)[1].Cwd; got != fw.Path {
		t.Errorf("the fork's harness ran in %s, want %s", got, fw.Path)
	}
	if got := readText(t, filepath.Join(fw.Path, "agent-wrote.txt")); got != "work\n" {
		t.Errorf("the fork's copy of the parent's untracked file: %q", got)
	}
	s.waitText("wt chat · fork", "acpmux/wt-chat-fork-"+fork.ID)
	if strings.Contains(s.screen(), "keys go to claude") {
		s.keys("C-]")
		s.waitFor("the fork to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to claude") })
	}

	// D on the fork names its uncommitted work; y removes its worktree.
	s.keys("D")
	s.waitText(`Delete "wt chat · fork"`, "git worktree remove", "work that would be lost (1)", "?? agent-wrote.txt", "y delete, losing that work")
	s.keys("y")
	s.waitText("deleted wt chat · fork")
	if _, err := os.Stat(fw.Path); !os.IsNotExist(err) {
		t.Errorf("the fork's worktree is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.Path, "agent-wrote.txt")); err != nil {
		t.Errorf("deleting the fork touched the parent's worktree: %v", err)
	}
	git(repo, "rev-parse", "--verify", "refs/heads/"+fw.Branch) // kept
	if after := git(repo, "status", "--porcelain"); after != before {
		t.Errorf("the base repository's status changed:\nbefore %q\nafter  %q", before, after)
	}
	s.keys("q")
}
