package review

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// ChatBase is the commit a chat's cwd is compared against by default, and a
// note when it is not what was recorded at the first start: for a worktree
// chat the commit its worktree was made from; for a plain chat
// its baseline's head; a chat that has not started yet is compared against
// HEAD now.
func ChatBase(ctx context.Context, m *sessions.Meta) (string, string) {
	if m.Worktree != nil && m.Worktree.Base != "" {
		// A worktree chat is compared with the commit its branch was made
		// from: everything on the branch, committed or not, is its work.
		return m.Worktree.Base, ""
	}
	if m.Baseline != nil {
		if m.Baseline.Head == "" {
			return "", ""
		}
		return m.Baseline.Head, ""
	}
	head, err := ResolveCommit(ctx, m.Cwd, "HEAD")
	if err != nil {
		return "", "the chat has not started: no baseline recorded"
	}
	return head, "the chat has not started: against HEAD"
}

// ForChat is the review request of chat m against side; parent is m's parent
// chat (nil when it has none or it has gone), used by Side.Parent.
func ForChat(ctx context.Context, m, parent *sessions.Meta, side proto.ReviewSide) (Request, error) {
	base, note := ChatBase(ctx, m)
	switch {
	case side.Parent:
		ref, err := ParentBranch(ctx, parent)
		if err != nil {
			return Request{}, err
		}
		if base, err = ResolveCommit(ctx, m.Cwd, ref); err != nil {
			return Request{}, fmt.Errorf("the parent chat's branch %s: %w", ref, err)
		}
		note = "against the parent chat's branch " + ref
	case side.Ref != "":
		var err error
		if base, err = ResolveCommit(ctx, m.Cwd, side.Ref); err != nil {
			return Request{}, err
		}
		note = "against " + side.Ref
	}
	since := time.Time{}
	if m.Baseline != nil {
		since = m.Baseline.At
	} else {
		// Not started: nothing it did can be newer than now.
		since = time.Now()
	}
	req := Request{Cwd: m.Cwd, Base: base, Since: since, BaseNote: note}
	for _, f := range m.AdditionalDirectories {
		fb, _ := m.Baseline.Folder(f)
		s := since
		if m.Baseline != nil {
			s = m.Baseline.FolderSince(f)
		}
		req.Folders = append(req.Folders, Folder{Path: f, Head: fb.Head, Since: s})
	}
	return req, nil
}

// OfChat is what chat m changed against side: ForChat, then Compute. It
// is what the server answers the review pane and what `diff` prints.
func OfChat(ctx context.Context, m, parent *sessions.Meta, side proto.ReviewSide) ([]proto.ReviewSection, error) {
	req, err := ForChat(ctx, m, parent, side)
	if err != nil {
		return nil, err
	}
	return Compute(ctx, req)
}

// ParentBranch is the branch the parent chat works on: the branch checked
// out in its cwd.
func ParentBranch(ctx context.Context, parent *sessions.Meta) (string, error) {
	if parent == nil {
		return "", fmt.Errorf("the chat has no parent chat")
	}
	if parent.Worktree != nil && parent.Worktree.Branch != "" {
		return parent.Worktree.Branch, nil
	}
	out, err := git(ctx, parent.Cwd, "symbolic-ref", "-q", "--short", "HEAD")
	if err != nil {
		return "", fmt.Errorf("the parent chat %s is on no branch: %w", parent.ID, err)
	}
	return strings.TrimSpace(string(out)), nil
}
