package chatsvc

import (
	"errors"
	"fmt"

	"github.com/acpmux/acpmux-tui/internal/worktree"
	"github.com/acpmux/acpmux-tui/sessions"
)

// Check checks a new chat as Create does, and writes nothing: the harness
// (the config's default for none), the project folder, the name, and
// whether it gets a worktree. It returns the chat as Create would make it:
// its harness named, and Worktree set to the decision. A caller that must
// refuse before it commits anything (the mux's pool hands out a
// prewarmed harness only to a chat that will be made) checks first.
func (s *Service) Check(n sessions.NewChat) (sessions.NewChat, error) {
	n, _, err := s.check(n)
	return n, err
}

// Create makes a new chat: its harness (the config's default for none)
// and project folder checked, its folders and files through the shared
// validator (both lists refused at once), and, when it is asked for or
// the config's worktree default applies, a git worktree of its own,
// which it then runs in. Nothing is left of a refused or failed chat: a
// chat asked with a worktree is never left without one.
//
// n.ID, when set, is a home the pool reserved for a prewarmed harness
// (sessions.Store.ReserveHome) that the chat takes; n.AgentSessionID that
// harness's session. Origin and Parent are the caller's (the ACP door's
// chats are "acp").
func (s *Service) Create(n sessions.NewChat) (*sessions.Meta, error) {
	n, ask, err := s.check(n)
	if err != nil {
		return nil, err
	}
	m, err := s.opt.Store.Create(n)
	if err != nil {
		return nil, err
	}
	if *n.Worktree {
		ask.From = m.Cwd // canonical now
		if m, err = s.giveWorktree(m, ask); err != nil {
			return nil, err
		}
	}
	s.opt.Logger.Info("chat created", "chat", m.ID, "harness", m.Harness, "origin", m.Origin, "worktree", m.Worktree != nil, "sandbox", m.Sandbox)
	return m, nil
}

// check is Check, with how the worktree is asked for when it is wanted.
func (s *Service) check(n sessions.NewChat) (sessions.NewChat, worktree.Ask, error) {
	if n.Harness == "" {
		n.Harness = s.table().Default(s.config(), s.opt.Getenv)
	}
	if err := s.checkHarness(n.Harness); err != nil {
		return n, worktree.Ask{}, err
	}
	if n.Cwd != "" {
		if err := s.checkCwd(n.Cwd); err != nil {
			return n, worktree.Ask{}, err
		}
	}
	if err := checkName(n.Name); err != nil {
		return n, worktree.Ask{}, err
	}
	want, err := s.wantsWorktree(n)
	if err != nil {
		return n, worktree.Ask{}, err
	}
	n.Worktree = &want
	sandboxed := s.Sandboxed(n)
	n.Sandbox = &sandboxed
	return n, worktree.Ask{From: n.Cwd, Base: n.WorktreeBase}, nil
}

// Sandboxed decides whether new chat n is sandboxed: as asked (n.Sandbox),
// else as its harness's `sandbox` says, else the config's `sandbox`.
func (s *Service) Sandboxed(n sessions.NewChat) bool {
	if n.Sandbox != nil {
		return *n.Sandbox
	}
	name := n.Harness
	if name == "" {
		name = s.table().Default(s.config(), s.opt.Getenv)
	}
	spec, _ := s.table().Get(name)
	return spec.Sandboxed(s.config())
}

// wantsWorktree decides whether a new chat gets a worktree of its own: as
// asked (n.Worktree), else as the config's worktree default says, for a
// project folder in a git repository. Asked for outright, a chat with no
// project, or one outside a git repository, is refused; by the default,
// that only means no worktree. A base goes with a worktree wanted.
func (s *Service) wantsWorktree(n sessions.NewChat) (bool, error) {
	byDefault := n.Worktree == nil && s.config().Worktree.Default
	if n.WorktreeBase != "" && !byDefault && (n.Worktree == nil || !*n.Worktree) {
		return false, refusef("--base goes with --worktree: worktreeBase, the ref a worktree's branch starts from, needs worktree true")
	}
	switch {
	case n.Worktree != nil && !*n.Worktree:
		return false, nil
	case n.Worktree != nil && n.Cwd == "":
		return false, refusef("worktree: a chat with no project folder has no repository to make a worktree of")
	case n.Worktree != nil:
		if _, err := s.checkRepo(n.Cwd); err != nil {
			return false, err
		}
		return true, nil
	case !byDefault || n.Cwd == "":
		return false, nil
	}
	// The default does not apply outside a repository.
	_, err := s.checkRepo(n.Cwd)
	return err == nil, nil
}

// checkRepo refuses a worktree of a folder outside any git repository,
// and tells Out what git will do differently there.
func (s *Service) checkRepo(from string) (worktree.Repo, error) {
	repo, err := worktree.IsRepo(from)
	if err != nil {
		return repo, &Refusal{Reason: fmt.Sprintf("worktree: %v (a worktree is made of the repository the chat's folder is in)", err), Err: err}
	}
	if s.opt.Out == nil {
		return repo, nil
	}
	if repo.Detached {
		fmt.Fprintf(s.opt.Out, "acpmux-tui: note: HEAD is detached in %s; the worktree's branch starts at that commit\n", repo.Toplevel)
	}
	if repo.Submodules {
		fmt.Fprintf(s.opt.Out, "acpmux-tui: note: %s has submodules; git worktree add does not check them out (run git submodule update --init in the worktree, or set [worktree] setup)\n", repo.Toplevel)
	}
	if !repo.Bare {
		if dirty, err := worktree.Dirty(repo.Toplevel); err == nil && dirty {
			fmt.Fprintf(s.opt.Out, "acpmux-tui: note: %s has uncommitted changes; they stay there, the worktree starts from the commit\n", repo.Toplevel)
		}
	}
	return repo, nil
}

// worktreesRoot is where chats' worktrees are made: the config's
// [worktree] dir, else worktrees/ in the agent home.
func (s *Service) worktreesRoot() string {
	if d := s.config().Worktree.Dir; d != "" {
		return d
	}
	return s.opt.Store.WorktreesDir()
}

// giveWorktree makes chat m's worktree as asked and moves the chat into it
// (worktree.Give: on failure the chat is removed again), with the config's
// setup, its output to Out too. git's refusals (no repository, no commit,
// a base that is no commit) are Refusals.
func (s *Service) giveWorktree(m *sessions.Meta, ask worktree.Ask) (*sessions.Meta, error) {
	cfg := s.config().Worktree
	setup := worktree.Setup{Argv: cfg.Setup, Timeout: cfg.Timeout(), Out: s.opt.Out}
	out, err := worktree.Give(s.opt.Store, m, s.worktreesRoot(), ask, setup)
	if err == nil {
		return out, nil
	}
	if errors.Is(err, worktree.ErrNotRepo) || errors.Is(err, worktree.ErrNoCommits) || errors.Is(err, worktree.ErrBadBase) {
		return nil, &Refusal{Reason: err.Error(), Err: err}
	}
	return nil, err
}

// Import makes the chat an import brings (origin import, parent the
// exported chat's id, the folders and files the guard kept; n.ID a home
// reserved for a chat with no project), keeping its harness even when
// this host's table has none of that name (the import notes it), and,
// when its git worktree was kept, that worktree. A failure leaves no
// chat.
func (s *Service) Import(n sessions.NewChat, kept *sessions.Worktree) (*sessions.Meta, error) {
	if n.Origin != sessions.OriginImport {
		return nil, fmt.Errorf("import chat: origin %q, not %q", n.Origin, sessions.OriginImport)
	}
	m, err := s.opt.Store.Create(n)
	if err != nil {
		return nil, err
	}
	if kept != nil {
		w := *kept
		stored, err := s.opt.Store.Update(m.ID, func(c *sessions.Meta) error { c.Worktree = &w; return nil })
		if err != nil {
			_ = s.opt.Store.Remove(m.ID, false)
			return nil, fmt.Errorf("store the chat's worktree: %w", err)
		}
		m = stored
	}
	s.opt.Logger.Info("chat imported", "chat", m.ID, "parent", m.Parent, "harness", m.Harness)
	return m, nil
}
