package sessions

import (
	"fmt"
	"path/filepath"
)

// Derivation describes a chat made from another: a fork, a side chat or a
// handoff.
type Derivation struct {
	// Origin is OriginFork, OriginSide or OriginHandoff.
	Origin string
	// Harness is the new chat's harness; empty keeps the parent's (a
	// handoff names another).
	Harness string
	// Cwd is a project folder for the new chat; empty keeps the parent's
	// project, or gives a chat with no project a fresh home of its own.
	Cwd string
	// Name is the new chat's name; empty derives one from the parent's
	// (Store.DerivedName: "zap · fork", "zap → codex").
	Name string
	// Capsule, when set, is the new chat's first message: what was said
	// in the parent (see internal/capsule), stored with the chat.
	Capsule string
	// MakeCapsule asks the chat service (package chatsvc) to write the
	// capsule itself, from the parent as it is held where the service
	// runs, when Capsule is empty. The store itself writes none.
	MakeCapsule bool
	// Worktree is what a client asks the server of a fork's git worktree:
	// one (true), none (false), or one only when the parent has one (nil).
	// The store itself makes none (internal/worktree.Give does).
	Worktree *bool
	// Sandbox is what a client asks of the new chat's sandbox; nil keeps
	// the parent's (a fork, side chat or handoff of a sandboxed chat is
	// sandboxed).
	Sandbox *bool
}

// Derive creates a chat from parent that carries its folders and files. The new chat's
// own folder is dropped from the list it inherits, and the list goes through
// ValidateFolders again, so a folder that has gone refuses the derivation
// with the reason rather than being dropped.
func (s *Store) Derive(parentID string, d Derivation) (*Meta, error) {
	switch d.Origin {
	case OriginFork, OriginSide, OriginHandoff:
	default:
		return nil, fmt.Errorf("derive chat: unknown origin %q", d.Origin)
	}
	parent, err := s.Load(parentID)
	if err != nil {
		return nil, err
	}
	n := NewChat{Harness: d.Harness, Cwd: d.Cwd, Name: d.Name, Parent: parent.ID, Origin: d.Origin, Capsule: d.Capsule, Sandbox: d.Sandbox}
	if n.Sandbox == nil {
		keep := parent.Sandbox
		n.Sandbox = &keep
	}
	if n.Harness == "" {
		n.Harness = parent.Harness
	}
	if n.Cwd == "" && !s.NoProject(parent) {
		n.Cwd = parent.Cwd
	}
	if n.Name == "" {
		if n.Name, err = s.DerivedName(parent, d.Origin, d.Harness); err != nil {
			return nil, err
		}
	}
	own := ""
	if n.Cwd != "" {
		if c, err := Canonical(n.Cwd); err == nil {
			own = c
		}
	}
	for _, dir := range parent.AdditionalDirectories {
		if own != "" && filepath.Clean(dir) == own {
			continue
		}
		n.AdditionalDirectories = append(n.AdditionalDirectories, dir)
	}
	// Files carry as they are: a file is never the new chat's own folder.
	n.AdditionalFiles = append([]string(nil), parent.AdditionalFiles...)
	m, err := s.Create(n)
	if err != nil {
		return nil, fmt.Errorf("%s of %s: %w", d.Origin, parent.ID, err)
	}
	return m, nil
}
