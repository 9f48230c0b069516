package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/acpmux/acpmux-tui/sessions"
)

// This file holds the run functions of the chat commands new, add-dir,
// rm-dir, fork, side, handoff and rename (rm's is rm_cmd.go, add-file's and
// rm-file's files_cmd.go): each runs over a target (chat_target.go), this
// machine or a host.

// newOptions are new's flags.
type newOptions struct {
	chat   chatFlags
	host   string
	asJSON bool
}

// newRun makes a chat on the target and prints it.
func newRun(a *app, o newOptions) error {
	return a.onTarget(o.host, func(t *target) error {
		m, err := t.create(o.chat)
		if err != nil {
			return err
		}
		return t.print(m, o.asJSON, "")
	})
}

// create makes the chat the flags describe. --worktree with no --cwd here
// is a worktree of the repository the caller is in.
func (t *target) create(cf chatFlags) (*sessions.Meta, error) {
	cwd, err := t.cwd(cf.cwd)
	if err != nil {
		return nil, err
	}
	dirs, err := t.paths("--dir", cf.dirs)
	if err != nil {
		return nil, err
	}
	files, err := t.paths("--file", cf.files)
	if err != nil {
		return nil, err
	}
	n := sessions.NewChat{Name: cf.name, Harness: cf.harness, Cwd: cwd, AdditionalDirectories: dirs, AdditionalFiles: files, WorktreeBase: cf.base}
	if cf.worktree.set {
		n.Worktree = &cf.worktree.v
	}
	if cf.sandbox.set {
		n.Sandbox = &cf.sandbox.v
	}
	if cf.worktree.v && cwd == "" && t.host == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("--worktree: the current folder: %w", err)
		}
		n.Cwd = wd
	}
	// The folders and the files are refused together.
	m, err := t.chats.Create(n)
	if err != nil {
		return nil, err
	}
	t.warnNotInstalled(m.Harness)
	return m, nil
}

// createChat makes the chat the bare command's flags describe, here.
func (a *app) createChat(cf chatFlags) (sessions.Entry, error) {
	var e sessions.Entry
	err := a.onTarget("", func(t *target) error {
		m, err := t.create(cf)
		if err == nil {
			e = sessions.Entry{ID: m.ID, Meta: m}
		}
		return err
	})
	return e, err
}

// foldersOptions are add-dir's and rm-dir's flags.
type foldersOptions struct {
	ref    string
	dirs   []string
	remove bool // rm-dir
	host   string
}

// foldersRun adds folders to a chat or takes them out, and prints the
// chat. A folder the chat already has keeps its place; when every one
// added is there already, nothing is written and nothing told.
func foldersRun(a *app, o foldersOptions) error {
	return a.onTarget(o.host, func(t *target) error {
		e, err := t.chats.Resolve(o.ref)
		if err != nil {
			return err
		}
		flag := "add-dir"
		if o.remove {
			flag = "rm-dir"
		}
		dirs, err := t.paths(flag, o.dirs)
		if err != nil {
			return err
		}
		var m *sessions.Meta
		if o.remove {
			m, err = t.chats.RemoveFolders(e.ID, dirs)
		} else {
			if dirs = t.fresh(e, dirs, "folder"); len(dirs) == 0 {
				return nil
			}
			m, err = t.chats.AddFolders(e.ID, dirs)
		}
		if err = t.untold(err); err != nil {
			return err
		}
		return t.print(m, false, "")
	})
}

// fresh is the paths given that chat e does not have already (what:
// "folder" or "file"); each it has is said on stderr, and when it has
// them all, stdout says nothing changed.
func (t *target) fresh(e sessions.Entry, paths []string, what string) []string {
	if e.Meta == nil {
		return paths
	}
	have := e.Meta.AdditionalDirectories
	if what == "file" {
		have = e.Meta.AdditionalFiles
	}
	var fresh []string
	for _, p := range paths {
		if c, ok := t.same(p, what == "file"); ok && slices.Contains(have, c) {
			fmt.Fprintf(t.a.stderr, "acpmux-tui: chat %s already has %s\n", e.ID, c)
		} else {
			fresh = append(fresh, p)
		}
	}
	if len(fresh) == 0 {
		fmt.Fprintf(t.a.stdout, "chat %s already has every %s given: nothing changed\n", e.ID, what)
	}
	return fresh
}

// deriveOptions are fork's, side's and handoff's flags.
type deriveOptions struct {
	ref string
	// d is the derivation asked: its origin, harness, cwd and worktree.
	d      sessions.Derivation
	host   string
	asJSON bool
	// edit opens the capsule in $EDITOR before the chat is made.
	edit bool
}

// deriveRun makes a fork, side chat or handoff of a chat, on the target:
// it carries the parent's folders and files, and a capsule of what was
// said (a handoff, or a fork its harness cannot make natively), written
// where the parent runs, shown in $EDITOR first with edit. An ACP fork
// asks the agent for session/fork at its first start.
func deriveRun(a *app, o deriveOptions) error {
	if o.edit && strings.TrimSpace(a.getenv("EDITOR")) == "" {
		return errNoEditor
	}
	return a.onTarget(o.host, func(t *target) error {
		e, err := t.chats.Resolve(o.ref)
		if err != nil {
			return err
		}
		if e.Broken != nil {
			return e.Broken
		}
		d := o.d
		if d.Cwd, err = t.cwd(d.Cwd); err != nil {
			return err
		}
		if d.Capsule, err = t.chats.Capsule(e.ID, d); err != nil {
			return err
		}
		if o.edit && d.Capsule != "" {
			if d.Capsule, err = a.editCapsule(d.Capsule); err != nil {
				return err
			}
		}
		m, err := t.chats.Derive(e.ID, d)
		if err != nil {
			return err
		}
		t.warnNotInstalled(m.Harness)
		if d.Capsule != "" && !o.edit {
			t.capsuleStored(m, d.Capsule)
		}
		return t.print(m, o.asJSON, d.Capsule)
	})
}

// renameOptions are rename's arguments.
type renameOptions struct{ ref, name string }

// renameRun gives a chat a new name; a refused name exits 2 and changes
// nothing.
func renameRun(a *app, o renameOptions) error {
	return a.onTarget("", func(t *target) error {
		e, err := t.chats.Resolve(o.ref)
		if err != nil {
			return err
		}
		if e.Broken != nil {
			return e.Broken
		}
		if _, err := t.chats.Rename(e.ID, o.name); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "renamed %s: %q → %q\n", e.ID, e.Meta.Name, o.name)
		return nil
	})
}
