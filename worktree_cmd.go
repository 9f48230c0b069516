package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/acpmux/acpmux-tui/internal/worktree"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// worktreeRefusal is a worktree asked for where none can be made: a folder
// outside any git repository, a repository with no commit, a base that is
// no commit. It exits 2, as other refusals of outside input do.
type worktreeRefusal struct{ err error }

func (r worktreeRefusal) Error() string { return r.err.Error() }
func (r worktreeRefusal) Unwrap() error { return r.err }

// asWorktreeRefusal makes the refusals among worktree.Add's errors a
// worktreeRefusal and leaves git's own failures as they are.
func asWorktreeRefusal(err error) error {
	if errors.Is(err, worktree.ErrNotRepo) || errors.Is(err, worktree.ErrNoCommits) || errors.Is(err, worktree.ErrBadBase) {
		return worktreeRefusal{err}
	}
	return err
}

// worktreesRoot is where chats' worktrees are made: [worktree] dir, else
// worktrees/ in the agent home.
func (a *app) worktreesRoot() string {
	if a.cfg.Worktree.Dir != "" {
		return a.cfg.Worktree.Dir
	}
	return a.store.WorktreesDir()
}

// worktreeAsk is worktree.Ask.
type worktreeAsk = worktree.Ask

// checkRepo refuses, before any chat is made, a worktree asked for outside
// a git repository, and prints notes on what git will do differently there.
func (a *app) checkRepo(from string) error {
	repo, err := worktree.IsRepo(from)
	if err != nil {
		return worktreeRefusal{fmt.Errorf("--worktree: %w (a worktree is made of the repository the chat's folder is in)", err)}
	}
	if repo.Detached {
		fmt.Fprintf(a.stderr, "acpmux-tui: note: HEAD is detached in %s; the worktree's branch starts at that commit\n", repo.Toplevel)
	}
	if repo.Submodules {
		fmt.Fprintf(a.stderr, "acpmux-tui: note: %s has submodules; git worktree add does not check them out (run git submodule update --init in the worktree, or set [worktree] setup)\n", repo.Toplevel)
	}
	if !repo.Bare {
		if dirty, err := worktree.Dirty(repo.Toplevel); err == nil && dirty {
			fmt.Fprintf(a.stderr, "acpmux-tui: note: %s has uncommitted changes; they stay there, the worktree starts from the commit\n", repo.Toplevel)
		}
	}
	return nil
}

// giveWorktree makes chat m's worktree as asked and moves the chat into
// it (worktree.Give), with the config's setup, whose output goes to
// stderr too. A refusal among git's answers exits 2.
func (a *app) giveWorktree(m *sessions.Meta, ask worktreeAsk) (*sessions.Meta, error) {
	setup := worktree.Setup{Argv: a.cfg.Worktree.Setup, Timeout: a.cfg.Worktree.Timeout(), Out: a.stderr}
	out, err := worktree.Give(a.store, m, a.worktreesRoot(), ask, setup)
	if err != nil {
		return nil, asWorktreeRefusal(err)
	}
	return out, nil
}

// worktreeForFork says how a fork of parent gets a worktree: always for a
// parent that has one (from its branch tip, with its uncommitted work),
// when asked (--worktree) for one that has none (from its folder's HEAD,
// with that working tree's uncommitted work). ok is false for none.
func (a *app) worktreeForFork(parent *sessions.Meta, asked, set bool) (ask worktreeAsk, ok bool, err error) {
	if set && !asked {
		return ask, false, nil
	}
	if parent.Worktree != nil {
		ask, ok, err := worktree.ForFork(parent)
		if err != nil {
			err = fmt.Errorf("%w; fork with --worktree=false, or remove the chat", err)
		}
		return ask, ok, err
	}
	if !asked {
		return ask, false, nil
	}
	if err := a.checkRepo(parent.Cwd); err != nil {
		return ask, false, err
	}
	repo, _ := worktree.IsRepo(parent.Cwd)
	ask = worktreeAsk{From: parent.Cwd}
	if !repo.Bare {
		ask.Carry = repo.Toplevel
	}
	return ask, true, nil
}

// refuseWorktreeRemoval says what removing chat m's worktree would lose,
// as an error, unless force; a worktree whose folder is gone loses nothing
// more.
func (a *app) refuseWorktreeRemoval(m *sessions.Meta, force bool) error {
	w := m.Worktree
	if w == nil || force || w.Missing() {
		return nil
	}
	sharers, err := worktree.Sharers(a.store, m)
	if err != nil {
		return fmt.Errorf("remove chat %s: %w", m.ID, err)
	}
	if len(sharers) > 0 {
		return fmt.Errorf("remove chat %s: other chats run in its worktree %s: %s; remove them first, or use --force", m.ID, w.Path, strings.Join(sharers, ", "))
	}
	r, err := worktree.Check(w.Path, w.Branch, w.Base)
	if err != nil {
		return fmt.Errorf("remove chat %s: %w", m.ID, err)
	}
	if r.Clean() {
		return nil
	}
	return fmt.Errorf("remove chat %s: its worktree %s (branch %s) has work that would be lost; commit or merge it, or use --force:\n%s", m.ID, w.Path, w.Branch, r)
}

// removeWorktree removes chat m's worktree (git worktree remove, --force
// when forced; a folder already gone is pruned), keeping its branch
// unless deleteBranch.
func removeWorktree(m *sessions.Meta, force, deleteBranch bool) error {
	w := m.Worktree
	if w == nil {
		return nil
	}
	if err := worktree.Remove(w.Repo, w.Path, w.Branch, force, deleteBranch); err != nil {
		return fmt.Errorf("remove chat %s: %w", m.ID, err)
	}
	return nil
}

// pruneMissing runs git worktree prune for a chat whose worktree folder
// was removed by hand, so git forgets it too; a failure is only logged
// on stderr, the chat shows as missing either way.
func (a *app) pruneMissing(m *sessions.Meta) {
	if m == nil || m.Worktree == nil || !m.Worktree.Missing() {
		return
	}
	if err := worktree.Prune(m.Worktree.Repo); err != nil {
		fmt.Fprintf(a.stderr, "acpmux-tui: warning: chat %s: %v\n", m.ID, err)
	}
}

// worktreeRows adds a worktree chat's rows to show's table.
func worktreeRows(row func(k, v string), j *proto.WorktreeJSON) {
	if j == nil {
		return
	}
	path := j.Path
	if j.Missing {
		path += "  (missing: removed by hand)"
	}
	row("worktree", path)
	row("branch", j.Branch)
	base := j.Base
	if len(base) > 12 {
		base = base[:12]
	}
	if j.BaseRef != "" && j.BaseRef != j.Base {
		base += " (" + j.BaseRef + ")"
	}
	row("base", base)
	row("repo", j.Repo)
}

// worktreeForNew says whether a new chat gets a worktree: --worktree, or
// the config's default when the flag is not given. Asked for by the flag,
// a folder outside a git repository is refused; by the config's default
// it only means no worktree. With no --cwd the worktree is of the
// repository the caller is in, and *cwd is set to that folder.
func (a *app) worktreeForNew(cf chatFlags, cwd *string) (worktreeAsk, bool, error) {
	want := a.cfg.Worktree.Default
	if cf.worktree.set {
		want = cf.worktree.v
	}
	if cf.base != "" && !want {
		return worktreeAsk{}, false, usagef("--base goes with --worktree")
	}
	if !want {
		return worktreeAsk{}, false, nil
	}
	from := *cwd
	if from == "" {
		if !cf.worktree.set {
			return worktreeAsk{}, false, nil // a chat with no project
		}
		wd, err := os.Getwd()
		if err != nil {
			return worktreeAsk{}, false, fmt.Errorf("--worktree: the current folder: %w", err)
		}
		from = wd
	}
	if !cf.worktree.set {
		if _, err := worktree.IsRepo(from); err != nil {
			return worktreeAsk{}, false, nil
		}
	}
	if err := a.checkRepo(from); err != nil {
		return worktreeAsk{}, false, err
	}
	*cwd = from
	return worktreeAsk{From: from, Base: cf.base}, true, nil
}
