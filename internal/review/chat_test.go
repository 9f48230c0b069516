package review

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// TestForChatSides: a plain chat is compared with its baseline's head; one
// not started with HEAD now, saying so; Side.Ref and Side.Parent move the
// cwd's side (the parent's side is the branch checked out in its folder),
// and the folders keep their baselines.
func TestForChatSides(t *testing.T) {
	root := t.TempDir()
	proj, lib := filepath.Join(root, "proj"), filepath.Join(root, "lib")
	base := repo(t, proj, map[string]string{"a.txt": "a\n"})
	libHead := repo(t, lib, map[string]string{"l.txt": "l\n"})
	run(t, proj, "checkout", "-q", "-b", "feature")
	write(t, filepath.Join(proj, "a.txt"), "a\nfeature\n")
	run(t, proj, "commit", "-qam", "feature")
	tip := run(t, proj, "rev-parse", "HEAD")
	at := time.Now()
	since := at.Add(time.Minute)
	m := &sessions.Meta{ID: "c", Cwd: proj, Parent: "p", AdditionalDirectories: []string{lib},
		Baseline: &sessions.Baseline{At: at, Head: base, Folders: []sessions.FolderBaseline{{Path: lib, Head: libHead, Since: &since}}}}
	parent := &sessions.Meta{ID: "p", Cwd: proj}
	ctx := context.Background()

	req, err := ForChat(ctx, m, nil, proto.ReviewSide{})
	if err != nil || req.Base != base || req.BaseNote != "" || len(req.Folders) != 1 || req.Folders[0].Head != libHead || !req.Folders[0].Since.Equal(since) {
		t.Fatalf("own base: %+v, %v; want base %s and lib at %s since %v", req, err, base, libHead, since)
	}
	req, err = ForChat(ctx, m, parent, proto.ReviewSide{Parent: true})
	if err != nil || req.Base != tip || !strings.Contains(req.BaseNote, "feature") {
		t.Fatalf("parent's branch: %+v, %v; want feature's tip %s", req, err, tip)
	}
	if _, err := ForChat(ctx, m, nil, proto.ReviewSide{Parent: true}); err == nil {
		t.Error("Side.Parent with no parent chat was accepted")
	}
	req, err = ForChat(ctx, m, nil, proto.ReviewSide{Ref: "feature~1"})
	if err != nil || req.Base != base || req.Folders[0].Head != libHead {
		t.Fatalf("a ref: %+v, %v; want %s, the folders kept", req, err, base)
	}
	notStarted := &sessions.Meta{ID: "n", Cwd: proj}
	req, err = ForChat(ctx, notStarted, nil, proto.ReviewSide{})
	if err != nil || req.Base != tip || !strings.Contains(req.BaseNote, "not started") {
		t.Fatalf("not started: %+v, %v; want HEAD %s and a note", req, err, tip)
	}
}

// TestForChatWorktree: a worktree chat is compared with the commit its
// worktree was made from, whatever its baseline says, and a child of a
// worktree chat compares with the parent's worktree branch, not with what
// the parent's folder has checked out.
func TestForChatWorktree(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	base := repo(t, proj, map[string]string{"a.txt": "a\n"})
	run(t, proj, "branch", "acpmux/p-1")
	run(t, proj, "checkout", "-q", "-b", "other")
	write(t, filepath.Join(proj, "a.txt"), "a\nother\n")
	run(t, proj, "commit", "-qam", "other")
	tip := run(t, proj, "rev-parse", "HEAD")
	ctx := context.Background()

	m := &sessions.Meta{ID: "w", Cwd: proj, Parent: "p",
		Baseline: &sessions.Baseline{At: time.Now(), Head: tip},
		Worktree: &sessions.Worktree{Path: proj, Branch: "acpmux/w-2", Base: base, BaseRef: "HEAD", Repo: proj}}
	req, err := ForChat(ctx, m, nil, proto.ReviewSide{})
	if err != nil || req.Base != base {
		t.Fatalf("worktree chat: %+v, %v; want its worktree's base %s, not the baseline's %s", req, err, base, tip)
	}
	parent := &sessions.Meta{ID: "p", Cwd: proj, Worktree: &sessions.Worktree{Path: proj, Branch: "acpmux/p-1", Base: base}}
	req, err = ForChat(ctx, m, parent, proto.ReviewSide{Parent: true})
	if err != nil || req.Base != base || !strings.Contains(req.BaseNote, "acpmux/p-1") {
		t.Fatalf("parent's worktree branch: %+v, %v; want acpmux/p-1 at %s", req, err, base)
	}
}
