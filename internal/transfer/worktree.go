package transfer

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/acpmux/acpmux-tui/internal/worktree"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is what an import does with the exported chat's [worktree] and
// [baseline]. The imported chat is a new chat; what the user expects of it:
//
//   - Its worktree is kept only where it is: the folder exists here, inside
//     a root, and git says it is that worktree, on that branch (the same
//     host, or a shared disk). The chat then runs in it and owns it as the
//     exported one did (rm asks the same questions; while the exported
//     chat is in the same agent home, rm names it as another chat in the
//     worktree; another agent home's chats it cannot see).
//   - Elsewhere the worktree is dropped, with a note: the chat runs in the
//     worktree's repository when that is here and inside a root (its
//     branch is not checked out for it), else the import is refused as for
//     any folder that is not here.
//   - The baseline is never carried: it is the exporting host's HEADs and
//     mtimes. The imported chat's review starts at its first start here.

// importCwd is the imported chat's folder and the worktree it keeps (nil
// for none), with the notes to add to the report.
func importCwd(store *sessions.Store, roots []string, m *sessions.Meta) (cwd string, keep *sessions.Worktree, notes []string, err error) {
	w := m.Worktree
	if w == nil || m.Cwd != w.Path {
		cwd, err = guardCwd(store, roots, m.Cwd)
		return cwd, nil, nil, err
	}
	c, why := guardPath(roots, w.Path, false)
	if why == "" {
		if home := store.Home(); (c == home || within(home, c)) && !within(store.WorktreesDir(), c) {
			why = "is inside the agent home"
		} else if err := worktreeHere(c, w.Branch); err != nil {
			why = fmt.Sprintf("is not that worktree here (%v)", err)
		}
	}
	if why == "" {
		kept := *w
		kept.Path = c
		return c, &kept, []string{fmt.Sprintf("its git worktree %s (branch %s) is here: the chat runs in it and owns it, as the exported chat did", quote(c), quote(w.Branch))}, nil
	}
	notes = append(notes, fmt.Sprintf("its git worktree %s (branch %s) %s: dropped", quote(w.Path), quote(w.Branch), why))
	cwd, err = guardCwd(store, roots, w.Repo)
	if err != nil {
		return "", nil, nil, refusef("the chat's git worktree %s is not here, and its repository %s cannot stand in for it: %v", quote(w.Path), quote(w.Repo), err)
	}
	notes = append(notes, fmt.Sprintf("the chat runs in the worktree's repository %s, on whatever is checked out there (branch %s is not checked out for it; fork it with --worktree for a worktree of its own)", quote(cwd), quote(w.Branch)))
	return cwd, nil, notes, nil
}

// worktreeHere checks that dir is the top of a git worktree with branch
// checked out.
func worktreeHere(dir, branch string) error {
	repo, err := worktree.IsRepo(dir)
	if err != nil {
		return err
	}
	top, err := filepath.EvalSymlinks(repo.Toplevel)
	if err != nil || top != dir || repo.Bare {
		return fmt.Errorf("%s is not the top of a working tree", dir)
	}
	head, err := worktree.Git(dir, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return fmt.Errorf("no branch is checked out in %s", dir)
	}
	if got := strings.TrimSpace(head); got != branch {
		return fmt.Errorf("%s has branch %s checked out, not %s", dir, got, branch)
	}
	return nil
}

// baselineNote is the report's line for a bundle whose chat had a
// baseline: it is not carried.
func baselineNote(m *sessions.Meta) []string {
	if m.Baseline == nil {
		return nil
	}
	return []string{"its review baseline (the exporting host's) is not carried: the chat's review starts at its first start here"}
}
