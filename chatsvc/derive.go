package chatsvc

import (
	"fmt"

	"github.com/acpmux/acpmux-tui/internal/capsule"
	"github.com/acpmux/acpmux-tui/internal/worktree"
	"github.com/acpmux/acpmux-tui/sessions"
)

// Derive makes a fork, side chat or handoff of chat parent, with its
// folders and files (its own folder dropped from them) and a name derived
// from its parent's unless d names one (sessions.Store.Derive). A fork
// made in the parent's project gets a worktree of its own when the parent
// has one (from its branch tip, with its uncommitted work), or when asked
// (d.Worktree) for one that has none (from its folder's HEAD, with that
// working tree's uncommitted work); d.Worktree false shares the parent's
// folder. Its first message is d.Capsule, or with d.MakeCapsule the
// capsule the service writes from the parent (Capsule). Nothing is
// started.
func (s *Service) Derive(parent string, d sessions.Derivation) (*sessions.Meta, error) {
	if err := s.checkDerive(d); err != nil {
		return nil, err
	}
	if err := checkName(d.Name); err != nil {
		return nil, err
	}
	if err := sessions.CheckCapsule(d.Capsule); err != nil {
		return nil, &Refusal{Reason: fmt.Sprintf("capsule: %v", err), Err: err}
	}
	p, err := s.opt.Store.Load(parent)
	if err != nil {
		return nil, err
	}
	ask, withWorktree := worktree.Ask{}, false
	if d.Origin == sessions.OriginFork && d.Cwd == "" {
		if ask, withWorktree, err = s.forkWorktree(p, d.Worktree); err != nil {
			return nil, err
		}
	}
	if d.MakeCapsule && d.Capsule == "" {
		d.Capsule = s.capsuleOf(p, d)
	}
	m, err := s.opt.Store.Derive(p.ID, d)
	if err != nil {
		return nil, err
	}
	if withWorktree {
		if m, err = s.giveWorktree(m, ask); err != nil {
			return nil, err
		}
	}
	s.opt.Logger.Info("chat derived", "chat", m.ID, "parent", p.ID, "origin", d.Origin, "harness", m.Harness,
		"capsule", d.Capsule != "", "worktree", withWorktree, "sandbox", m.Sandbox)
	return m, nil
}

// Capsule is the capsule derivation d of chat parent would carry, written
// from the parent as it is held here: its file, its harness in the table
// in effect, its transcript or screen from Live, its harness's session
// log in this environment (capsule.ForDerivation). It is "" for none: a
// side chat, and a fork its harness makes natively, carry none. Nothing is
// made.
func (s *Service) Capsule(parent string, d sessions.Derivation) (string, error) {
	if err := s.checkDerive(d); err != nil {
		return "", err
	}
	p, err := s.opt.Store.Load(parent)
	if err != nil {
		return "", err
	}
	return s.capsuleOf(p, d), nil
}

// capsuleOf writes the capsule of derivation d of parent; Live is asked
// what was said only when there is a capsule to write.
func (s *Service) capsuleOf(parent *sessions.Meta, d sessions.Derivation) string {
	spec, ok := s.table().Get(parent.Harness)
	if !ok {
		return ""
	}
	switch native, _ := spec.NativeFork(); {
	case d.Origin == sessions.OriginFork && native, d.Origin == sessions.OriginSide:
		return ""
	}
	p := capsule.Parent{Meta: parent, Spec: spec, Env: capsule.Env(spec, s.opt.Getenv)}
	if s.opt.Live != nil {
		p.Transcript, p.Lines = s.opt.Live.Said(parent.ID, capsule.HistoryBytes)
	}
	noProject := d.Cwd == "" && s.opt.Store.NoProject(parent)
	return capsule.ForDerivation(p, d.Origin, d.Harness, d.Cwd, noProject)
}

// checkDerive refuses a derivation of no known origin, of an unknown
// harness, a handoff to no harness, a folder that cannot be a chat's, or
// a worktree asked of a fork given a folder of its own.
func (s *Service) checkDerive(d sessions.Derivation) error {
	switch d.Origin {
	case sessions.OriginFork, sessions.OriginSide:
	case sessions.OriginHandoff:
		if d.Harness == "" {
			return refusef("a handoff needs the harness to hand off to")
		}
	default:
		return refusef("origin must be %q, %q or %q, not %q",
			sessions.OriginFork, sessions.OriginSide, sessions.OriginHandoff, clip(d.Origin))
	}
	if d.Harness != "" {
		if err := s.checkHarness(d.Harness); err != nil {
			return err
		}
	}
	if d.Cwd != "" {
		if err := s.checkCwd(d.Cwd); err != nil {
			return err
		}
		if d.Origin == sessions.OriginFork && d.Worktree != nil && *d.Worktree {
			return refusef("a fork's worktree and a cwd of its own do not go together (the worktree is the fork's folder)")
		}
	}
	return nil
}

// forkWorktree says how a fork of parent in its project gets a worktree:
// asked is the caller's wish, nil for "as the parent". A parent with a
// worktree gives its fork one from its branch tip with its uncommitted
// work (worktree.ForFork); asked for a parent without one, the fork's is
// made from its folder's HEAD, carrying that working tree's uncommitted
// work. ok is false for none.
func (s *Service) forkWorktree(parent *sessions.Meta, asked *bool) (ask worktree.Ask, ok bool, err error) {
	if asked != nil && !*asked {
		return ask, false, nil
	}
	if parent.Worktree != nil {
		ask, ok, err := worktree.ForFork(parent)
		if err != nil {
			err = fmt.Errorf("%w; fork with --worktree=false, or remove the chat", err)
		}
		return ask, ok, err
	}
	if asked == nil {
		return ask, false, nil
	}
	repo, err := s.checkRepo(parent.Cwd)
	if err != nil {
		return ask, false, err
	}
	ask = worktree.Ask{From: parent.Cwd}
	if !repo.Bare {
		ask.Carry = repo.Toplevel
	}
	return ask, true, nil
}
