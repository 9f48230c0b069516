package server

import (
	"github.com/acpmux/acpmux-tui/internal/worktree"
	"github.com/acpmux/acpmux-tui/sessions"
)

// worktreesRoot is where the server makes chats' worktrees: [worktree]
// dir, else worktrees/ in the agent home.
func (s *Server) worktreesRoot() string {
	if d := s.config().Worktree.Dir; d != "" {
		return d
	}
	return s.opt.Store.WorktreesDir()
}

// worktreeSetup is the config's [worktree] setup, its output kept for the
// chat's screen only (the server has no terminal of its own).
func (s *Server) worktreeSetup() worktree.Setup {
	cfg := s.config().Worktree
	return worktree.Setup{Argv: cfg.Setup, Timeout: cfg.Timeout()}
}

// wantsWorktree reports whether a chat a client asks the server for (the
// TUI's new-chat dialog, _acpmux/new) gets a worktree of its own: with
// worktree = true in the config, when its project folder is in a git
// repository, as `acpmux-tui new` does with that default.
func (s *Server) wantsWorktree(n sessions.NewChat) bool {
	if !s.config().Worktree.Default || n.Cwd == "" {
		return false
	}
	_, err := worktree.IsRepo(n.Cwd)
	return err == nil
}

// createInWorktree creates the chat and gives it its worktree
// (worktree.Give: on failure nothing is left).
func (s *Server) createInWorktree(n sessions.NewChat) (*sessions.Meta, error) {
	m, err := s.opt.Store.Create(n)
	if err != nil {
		return nil, err
	}
	return worktree.Give(s.opt.Store, m, s.worktreesRoot(), worktree.Ask{From: m.Cwd}, s.worktreeSetup())
}
