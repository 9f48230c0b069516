package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/acpmux/acpmux-tui/internal/worktree"
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

// worktreeAsk is how a new chat's worktree was asked for.
type worktreeAsk struct {
	// from is a folder in the repository the worktree is made of.
	from string
	// base is the ref to branch from; empty means HEAD.
	base string
	// baseRef, when set, is what the chat file names as its base ref
	// instead of base (a fork's: the parent's branch).
	baseRef string
	// carry, when set, is a worktree (or working tree) whose uncommitted
	// work the new worktree gets.
	carry string
}

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
// it (cwd and the [worktree] table). On failure the chat just made is
// removed again, with whatever part of the worktree was made.
func (a *app) giveWorktree(m *sessions.Meta, ask worktreeAsk) (*sessions.Meta, error) {
	undo := func() { _ = a.store.Remove(m.ID, false) }
	dest := filepath.Join(a.worktreesRoot(), m.ID)
	made, err := worktree.Add(ask.from, dest, worktree.BranchName(m.Name, m.ID), ask.base)
	if err != nil {
		undo()
		return nil, asWorktreeRefusal(err)
	}
	if ask.baseRef != "" {
		made.BaseRef = ask.baseRef
	}
	if ask.carry != "" {
		if err := worktree.CarryUncommitted(ask.carry, made.Path); err != nil {
			_ = worktree.Remove(made.Repo, made.Path, made.Branch, true, true)
			undo()
			return nil, err
		}
	}
	if len(a.cfg.Worktree.Setup) > 0 {
		a.runSetup(m.ID, made.Path)
	}
	out, err := a.store.Update(m.ID, func(c *sessions.Meta) error {
		c.Cwd = made.Path
		c.Worktree = &sessions.Worktree{Path: made.Path, Branch: made.Branch, Base: made.Base, BaseRef: made.BaseRef, Repo: made.Repo}
		return nil
	})
	if err != nil {
		_ = worktree.Remove(made.Repo, made.Path, made.Branch, true, true)
		undo()
		return nil, fmt.Errorf("chat %s: store its worktree: %w", m.ID, err)
	}
	return out, nil
}

// maxSetupLog bounds what of a setup command's output is kept for the
// chat's screen.
const maxSetupLog = 64 << 10

// runSetup runs [worktree] setup in a fresh worktree, before the chat's
// harness is ever started, within its timeout. Its output goes to this
// process's stderr and to the chat's setup log (Store.SetupLogPath),
// which the chat's first start puts on its screen. A setup that fails is
// said so; the chat is kept, its worktree as setup left it.
func (a *app) runSetup(id, dir string) {
	argv := a.cfg.Worktree.Setup
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.Worktree.Timeout())
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdin = nil
	var log bytes.Buffer
	fmt.Fprintf(&log, "$ %s   (worktree setup in %s)\n", strings.Join(argv, " "), dir)
	w := io.MultiWriter(a.stderr, &limited{buf: &log, left: maxSetupLog})
	cmd.Stdout, cmd.Stderr = w, w
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(w, "worktree setup: stopped after %s (setup_timeout)\n", a.cfg.Worktree.Timeout())
	case err != nil:
		fmt.Fprintf(w, "worktree setup failed: %v\n", err)
	default:
		fmt.Fprintln(w, "worktree setup done")
	}
	if err := os.WriteFile(a.store.SetupLogPath(id), log.Bytes(), 0o600); err != nil {
		fmt.Fprintf(a.stderr, "acpmux-tui: warning: keep worktree setup output for chat %s: %v\n", id, err)
	}
}

// limited writes to buf until left runs out, then drops the rest.
type limited struct {
	buf  *bytes.Buffer
	left int
}

func (l *limited) Write(p []byte) (int, error) {
	n := min(len(p), l.left)
	l.buf.Write(p[:n])
	l.left -= n
	return len(p), nil
}

// worktreeForFork says how a fork of parent gets a worktree: always for a
// parent that has one (from its branch tip, with its uncommitted work),
// when asked (--worktree) for one that has none (from its folder's HEAD,
// with that working tree's uncommitted work). ok is false for none.
func (a *app) worktreeForFork(parent *sessions.Meta, asked, set bool) (ask worktreeAsk, ok bool, err error) {
	if set && !asked {
		return ask, false, nil
	}
	if w := parent.Worktree; w != nil {
		if w.Missing() {
			return ask, false, fmt.Errorf("fork chat %s: its worktree %s is gone (removed by hand); fork with --worktree=false, or remove the chat", parent.ID, w.Path)
		}
		tip, err := worktree.Head(w.Path)
		if err != nil {
			return ask, false, fmt.Errorf("fork chat %s: %w", parent.ID, err)
		}
		return worktreeAsk{from: w.Path, base: tip, baseRef: w.Branch, carry: w.Path}, true, nil
	}
	if !asked {
		return ask, false, nil
	}
	if err := a.checkRepo(parent.Cwd); err != nil {
		return ask, false, err
	}
	repo, _ := worktree.IsRepo(parent.Cwd)
	ask = worktreeAsk{from: parent.Cwd}
	if !repo.Bare {
		ask.carry = repo.Toplevel
	}
	return ask, true, nil
}

// refuseWorktreeRemoval says what removing chat m's worktree would lose,
// as an error, unless force; a worktree whose folder is gone loses nothing
// more.
func refuseWorktreeRemoval(m *sessions.Meta, force bool) error {
	w := m.Worktree
	if w == nil || force || w.Missing() {
		return nil
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
func worktreeRows(row func(k, v string), j *sessions.WorktreeJSON) {
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
	return worktreeAsk{from: from, base: cf.base}, true, nil
}
