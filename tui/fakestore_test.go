package tui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/acpmux/acpmux-tui/internal/capsule"
	"github.com/acpmux/acpmux-tui/internal/review"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// errNoStore answers a chat-store call of a fake made without a store (the
// goldens, the benchmarks), which give the model its chats themselves.
var errNoStore = errors.New("the fake server has no chat store")

// The fake's chat store is what the server does with a real one on a temp
// agent home (server/chats.go): the real shared validator with the agent
// home's rule, the real derivations, names and removals; only the wire is
// missing. Each call is recorded: "list", "chat ID", "validate", "derive
// ORIGIN ID", "capsule ORIGIN ID", "review ID", "reviewDiff ID PATH", "remove ID", "removeMissing ID", "addFolders ID",
// "removeFolders ID", "rename ID", "new HARNESS".

// List lists the chats as the server's list does.
func (f *fakeMux) List() ([]sessions.Entry, error) {
	f.call("list")
	if f.store == nil {
		return nil, errNoStore
	}
	return f.store.List()
}

// Chat reads one chat as the server's chat does.
func (f *fakeMux) Chat(id string) (sessions.Entry, error) {
	f.call("chat " + id)
	if f.store == nil {
		return sessions.Entry{}, errNoStore
	}
	m, err := f.store.Load(id)
	if err != nil {
		return sessions.Entry{}, err
	}
	e := sessions.Entry{ID: id, Meta: m, NoProject: f.store.NoProject(m)}
	if f.table != nil {
		// A sandboxed chat's bound, as the server's view computes it.
		spec, _ := f.table.Get(m.Harness)
		e.Bound = spec.SandboxJSON(m, f.store.Home(), os.Environ())
	}
	return e, nil
}

// Create stores a chat without starting it, as the server's new does.
func (f *fakeMux) Create(n sessions.NewChat) (*sessions.Meta, error) {
	f.call("new " + n.Harness)
	f.askWorktree(n.Worktree)
	f.askSandbox(n.Sandbox)
	if f.store == nil {
		return nil, errNoStore
	}
	return f.store.Create(n)
}

// Derive makes a fork, side chat or handoff as the server's derive does.
func (f *fakeMux) Derive(parent string, d sessions.Derivation) (*sessions.Meta, error) {
	f.call("derive " + d.Origin + " " + parent)
	f.askWorktree(d.Worktree)
	f.askSandbox(d.Sandbox)
	if f.store == nil {
		return nil, errNoStore
	}
	return f.store.Derive(parent, d)
}

// Capsule writes the capsule of a derivation as the server's capsule does
// (chatsvc.Service.Capsule): from the fake's transcripts and screens, with the
// harness table the rig gave it, in an empty environment, so that no
// session log of the machine running the tests is read.
func (f *fakeMux) Capsule(parent string, d sessions.Derivation) (string, error) {
	f.call("capsule " + d.Origin + " " + parent)
	if f.capsuleErr != nil {
		return "", f.capsuleErr
	}
	if f.store == nil || f.table == nil {
		return "", errNoStore
	}
	m, err := f.store.Load(parent)
	if err != nil {
		return "", err
	}
	spec, ok := f.table.Get(m.Harness)
	if !ok {
		return "", nil
	}
	p := capsule.Parent{Meta: m, Spec: spec, Env: capsule.Env(spec, func(string) string { return "" })}
	p.Transcript = f.Transcript(parent)
	p.Lines = f.History(parent, capsule.HistoryBytes)
	noProject := d.Cwd == "" && f.store.NoProject(m)
	return capsule.ForDerivation(p, d.Origin, d.Harness, d.Cwd, noProject), nil
}

// Review reviews the chat as the server's review does (server/review.go):
// the chat and its parent as stored, in the real repositories the test
// made.
func (f *fakeMux) Review(id string, side proto.ReviewSide) ([]proto.ReviewSection, error) {
	f.call("review " + id)
	if f.store == nil {
		return nil, errNoStore
	}
	m, err := f.store.Load(id)
	if err != nil {
		return nil, err
	}
	var parent *sessions.Meta
	if m.Parent != "" {
		parent, _ = f.store.Load(m.Parent)
	}
	return review.OfChat(context.Background(), m, parent, side)
}

// ReviewDiff is one file's diff, as the server's reviewDiff gives it.
func (f *fakeMux) ReviewDiff(id string, s proto.ReviewSection, file proto.ReviewFile) (proto.ReviewDiff, error) {
	f.call("reviewDiff " + id + " " + file.Path)
	return review.FileDiff(context.Background(), s, file, review.DefaultMaxDiffBytes)
}

// Rename renames as the server's rename does.
func (f *fakeMux) Rename(id, name string) (*sessions.Meta, error) {
	f.call("rename " + id)
	if f.store == nil {
		return nil, errNoStore
	}
	return f.store.Rename(id, name)
}

// Validate runs the lists through the real shared validator, with the
// agent home's rule, as the server's validate does.
func (f *fakeMux) Validate(cwd string, dirs, files []string) ([]string, []string, error) {
	f.call("validate")
	if f.store == nil {
		// No agent home to refuse: the validator's other rules.
		okDirs, derr := sessions.ValidateFolders(cwd, dirs)
		okFiles, ferr := sessions.ValidateFiles(cwd, files)
		if derr != nil || ferr != nil {
			dfe, _ := sessions.AsFolderError(derr)
			ffe, _ := sessions.AsFolderError(ferr)
			return nil, nil, sessions.JoinRefusals(dfe, ffe)
		}
		return okDirs, okFiles, nil
	}
	return f.store.ValidateLists(cwd, dirs, files)
}

// AddFolders adds folders and tells the harness, as the server does.
func (f *fakeMux) AddFolders(id string, dirs []string) (*sessions.Meta, error) {
	f.call("addFolders " + id)
	if f.store == nil {
		return nil, errNoStore
	}
	m, err := f.store.AddFolders(id, dirs)
	if err != nil {
		return nil, err
	}
	return m, f.FoldersChanged(id)
}

// RemoveFolders takes folders out and tells the harness, as the server
// does.
func (f *fakeMux) RemoveFolders(id string, dirs []string) (*sessions.Meta, error) {
	f.call("removeFolders " + id)
	if f.store == nil {
		return nil, errNoStore
	}
	m, err := f.store.RemoveFolders(id, dirs)
	if err != nil {
		return nil, err
	}
	return m, f.FoldersChanged(id)
}

// RemoveMissing drops what has gone and tells the harness when it dropped
// any, as the server does.
func (f *fakeMux) RemoveMissing(id string) (proto.RemoveMissingResult, error) {
	f.call("removeMissing " + id)
	res := proto.RemoveMissingResult{Folders: []proto.FolderProblem{}, Files: []proto.FolderProblem{}}
	if f.store == nil {
		return res, errNoStore
	}
	_, dropped, err := f.store.RemoveMissingFolders(id)
	if err != nil {
		return res, err
	}
	_, droppedFiles, err := f.store.RemoveMissingFiles(id)
	if err != nil {
		return res, err
	}
	res.Folders, res.Files = append(res.Folders, dropped...), append(res.Files, droppedFiles...)
	if len(dropped)+len(droppedFiles) > 0 {
		if err := f.FoldersChanged(id); err != nil {
			return res, err
		}
	}
	return res, nil
}

// Remove stops and forgets the chat and deletes it as the server's remove
// does: its own folder looked into first, a removal that will be refused
// stopping nothing.
func (f *fakeMux) Remove(id string, force, dryRun bool) (proto.RemoveReport, error) {
	f.call(fmt.Sprintf("remove %s force=%v dry=%v", id, force, dryRun))
	rep := proto.RemoveReport{ID: id}
	if f.store == nil && dryRun {
		return rep, nil // no store, no folder to look into
	}
	if f.store == nil {
		return rep, errNoStore
	}
	m, err := f.store.Load(id)
	if errors.Is(err, sessions.ErrNotFound) {
		return rep, err
	}
	if err == nil && f.store.NoProject(m) {
		rep.Home = m.Cwd
		des, err := os.ReadDir(rep.Home)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return rep, err
		}
		rep.Files = len(des)
	}
	if dryRun {
		return rep, nil
	}
	if m != nil && (force || rep.Files == 0) {
		f.Forget(id)
	}
	if err := f.store.Remove(id, force); err != nil {
		return rep, err
	}
	rep.Removed = true
	return rep, nil
}
