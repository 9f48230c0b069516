package worktree

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/sessions"
)

// Ask is how a chat's worktree is asked for.
type Ask struct {
	// From is a folder in the repository the worktree is made of.
	From string
	// Base is the ref to branch from; empty means HEAD.
	Base string
	// BaseRef, when set, is what the chat file names as the base ref
	// instead of Base (a fork's: the parent's branch).
	BaseRef string
	// Carry, when set, is a working tree whose uncommitted work the new
	// worktree gets (CarryUncommitted).
	Carry string
}

// Setup is the config's [worktree] setup: Argv run in each fresh worktree
// within Timeout, its output also copied to Out (when set).
type Setup struct {
	Argv    []string
	Timeout time.Duration
	Out     io.Writer
}

// ForFork is how a fork of parent gets its worktree: from the parent's
// branch tip, with its uncommitted work. ok is false for a parent with no
// worktree; a parent whose worktree has gone is an error.
func ForFork(parent *sessions.Meta) (ask Ask, ok bool, err error) {
	w := parent.Worktree
	if w == nil {
		return ask, false, nil
	}
	if w.Missing() {
		return ask, false, fmt.Errorf("fork chat %s: its worktree %s is gone (removed by hand)", parent.ID, w.Path)
	}
	tip, err := Head(w.Path)
	if err != nil {
		return ask, false, fmt.Errorf("fork chat %s: %w", parent.ID, err)
	}
	return Ask{From: w.Path, Base: tip, BaseRef: w.Branch, Carry: w.Path}, true, nil
}

// Give makes chat m's worktree, as asked, in root/<id>, runs setup there,
// and moves the chat into it (its cwd and [worktree] table) in store. On
// failure the chat is removed from store again, with whatever part of
// the worktree was made: a chat asked for with a worktree is never left
// without one.
func Give(store *sessions.Store, m *sessions.Meta, root string, ask Ask, setup Setup) (*sessions.Meta, error) {
	undo := func() { _ = store.Remove(m.ID, false) }
	made, err := Add(ask.From, filepath.Join(root, m.ID), BranchName(m.Name, m.ID), ask.Base)
	if err != nil {
		undo()
		return nil, err
	}
	if ask.BaseRef != "" {
		made.BaseRef = ask.BaseRef
	}
	if ask.Carry != "" {
		if err := CarryUncommitted(ask.Carry, made.Path); err != nil {
			_ = Remove(made.Repo, made.Path, made.Branch, true, true)
			undo()
			return nil, err
		}
	}
	if len(setup.Argv) > 0 {
		out := runSetup(setup, made.Path)
		if err := os.WriteFile(store.SetupLogPath(m.ID), out, 0o600); err != nil && setup.Out != nil {
			fmt.Fprintf(setup.Out, "acpmux-tui: warning: keep worktree setup output for chat %s: %v\n", m.ID, err)
		}
	}
	stored, err := store.Update(m.ID, func(c *sessions.Meta) error {
		c.Cwd = made.Path
		c.Worktree = &sessions.Worktree{Path: made.Path, Branch: made.Branch, Base: made.Base, BaseRef: made.BaseRef, Repo: made.Repo}
		return nil
	})
	if err != nil {
		_ = Remove(made.Repo, made.Path, made.Branch, true, true)
		undo()
		return nil, fmt.Errorf("chat %s: store its worktree: %w", m.ID, err)
	}
	return stored, nil
}

// maxSetupLog bounds what of a setup command's output is kept for the
// chat's screen.
const maxSetupLog = 64 << 10

// runSetup runs setup in dir, with no stdin, within its timeout, and
// returns what it printed (bounded), with a first line naming it and a
// last saying how it ended. A setup that fails is said so; the worktree
// stays as setup left it.
func runSetup(setup Setup, dir string) []byte {
	ctx, cancel := context.WithTimeout(context.Background(), setup.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, setup.Argv[0], setup.Argv[1:]...)
	cmd.Dir = dir
	var log bytes.Buffer
	var w io.Writer = &limited{buf: &log, left: maxSetupLog}
	if setup.Out != nil {
		w = io.MultiWriter(setup.Out, w)
	}
	fmt.Fprintf(w, "$ %s   (worktree setup in %s)\n", strings.Join(setup.Argv, " "), dir)
	cmd.Stdout, cmd.Stderr = w, w
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(w, "worktree setup: stopped after %s (setup_timeout)\n", setup.Timeout)
	case err != nil:
		fmt.Fprintf(w, "worktree setup failed: %v\n", err)
	default:
		fmt.Fprintln(w, "worktree setup done")
	}
	return log.Bytes()
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

// Sharers are the other chats that run in chat m's worktree (a side chat
// or a handoff of it, or a fork made with --worktree=false), as
// "<id> (<name>)": removing the worktree would take their folder away.
func Sharers(store *sessions.Store, m *sessions.Meta) ([]string, error) {
	if m.Worktree == nil {
		return nil, nil
	}
	list, err := store.List()
	if err != nil {
		return nil, fmt.Errorf("look for chats in worktree %s: %w", m.Worktree.Path, err)
	}
	var out []string
	for _, e := range list {
		if e.Meta != nil && e.ID != m.ID && e.Meta.Worktree == nil && filepath.Clean(e.Meta.Cwd) == filepath.Clean(m.Worktree.Path) {
			out = append(out, fmt.Sprintf("%s (%s)", e.ID, e.Meta.Name))
		}
	}
	return out, nil
}
