package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	sdk "github.com/coder/acp-go-sdk"
)

// TestDoorForkOfAWorktreeChatAsTheCLIs: an ACP client's session/fork of a
// worktree chat is the fork `acpmux-tui fork` makes of it: a worktree of
// its own (not the parent's), on its own branch from the parent's tip, and
// a capsule of what was said in the parent, kept with the chat.
func TestDoorForkOfAWorktreeChatAsTheCLIs(t *testing.T) {
	c := doorCLI(t)
	repo, _ := gitWorld(t, c)
	r := c.runIn(repo, nil, "new", "--worktree", "--harness", "fake", "--name", "parent", "--json")
	if r.code != 0 {
		t.Fatalf("new --worktree exited %d: %s", r.code, r.stderr)
	}
	var parent proto.ChatJSON
	if err := json.Unmarshal([]byte(r.stdout), &parent); err != nil {
		t.Fatal(err)
	}
	if parent.Worktree == nil {
		t.Fatalf("no worktree: %s", r.stdout)
	}
	// Something said, for the capsules to carry.
	c.ok("prompt", parent.ID, "remember the parser")

	store, err := sessions.OpenStore(c.home)
	if err != nil {
		t.Fatal(err)
	}
	// check is what both forks must be.
	check := func(how, id string) {
		t.Helper()
		m, err := store.Load(id)
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		w := m.Worktree
		if m.Origin != sessions.OriginFork || m.Parent != parent.ID {
			t.Errorf("%s: origin %q of %q, want fork of %s", how, m.Origin, m.Parent, parent.ID)
		}
		if w == nil || w.Path == parent.Worktree.Path || m.Cwd != w.Path || w.Path != filepath.Join(c.home, "worktrees", id) ||
			w.BaseRef != parent.Worktree.Branch || w.Branch == parent.Worktree.Branch {
			t.Errorf("%s: worktree %+v (cwd %s); want its own, from the parent's branch %s (the parent's is %s)", how, w, m.Cwd, parent.Worktree.Branch, parent.Worktree.Path)
		}
		text, _, err := store.Capsule(id)
		if err != nil || !m.Capsule || !strings.Contains(text, "remember the parser") {
			t.Errorf("%s: capsule %q (marked %v, err %v), want one that carries what the parent was told", how, text, m.Capsule, err)
		}
	}

	cli := c.chat("fork", parent.ID, "--json")
	check("fork on the command line", cli.ID)

	// No schema check: this test is of what the fork is, and runs without
	// the real peers' schema installed.
	d := c.openDoor(t, nil, "--harness", "fake")
	d.initialize(t)
	fork, err := d.UnstableForkSession(doorCtx(t), sdk.UnstableForkSessionRequest{SessionId: sdk.SessionId(parent.ID), Cwd: parent.Cwd, McpServers: []sdk.UnstableMcpServer{}})
	if err != nil {
		t.Fatalf("session/fork: %v\nstderr: %s", err, d.stderr.String())
	}
	check("session/fork through the door", string(fork.SessionId))
}
