package server

import (
	"github.com/acpmux/acpmux-tui/internal/worktree"
	"github.com/acpmux/acpmux-tui/proto"
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
// TUI's new-chat dialog, _acpmux/new) gets a worktree of its own: as the
// client asked (n.Worktree), else with worktree = true in the config when
// its project folder is in a git repository, as `acpmux-tui new` does with
// that default. Asked for outright, a chat with no project or one outside
// a git repository is refused, as `new --worktree` refuses it.
func (s *Server) wantsWorktree(n sessions.NewChat) (bool, *Error) {
	if n.WorktreeBase != "" && (n.Worktree == nil || !*n.Worktree) {
		return false, errorf(proto.CodeInvalidParams, "Invalid params: worktreeBase goes with worktree true (the ref a worktree's branch starts from)")
	}
	if n.Worktree != nil {
		if !*n.Worktree {
			return false, nil
		}
		if n.Cwd == "" {
			return false, errorf(proto.CodeInvalidParams, "Invalid params: worktree: a chat with no project folder has no repository to make a worktree of")
		}
		if _, err := worktree.IsRepo(n.Cwd); err != nil {
			return false, errorf(proto.CodeInvalidParams, "Invalid params: worktree: %v (a worktree is made of the repository the chat's folder is in)", err)
		}
		return true, nil
	}
	if !s.config().Worktree.Default || n.Cwd == "" {
		return false, nil
	}
	_, err := worktree.IsRepo(n.Cwd)
	return err == nil, nil
}

// forkWorktree says how a fork of parent gets a worktree (as `fork` does,
// worktree_cmd.go's worktreeForFork): asked is the client's wish, nil for
// "as the parent": a parent with a worktree gives its fork one from its
// branch tip with its uncommitted work; asked for a parent without one,
// the fork's worktree is made from its folder's HEAD, carrying that
// working tree's uncommitted work.
func forkWorktree(parent *sessions.Meta, asked *bool) (worktree.Ask, bool, *Error) {
	if asked != nil && !*asked {
		return worktree.Ask{}, false, nil
	}
	if parent.Worktree != nil {
		ask, ok, err := worktree.ForFork(parent)
		if err != nil {
			return ask, false, failure(err)
		}
		return ask, ok, nil
	}
	if asked == nil {
		return worktree.Ask{}, false, nil
	}
	repo, err := worktree.IsRepo(parent.Cwd)
	if err != nil {
		return worktree.Ask{}, false, errorf(proto.CodeInvalidParams, "Invalid params: worktree: %v (a worktree is made of the repository the chat's folder is in)", err)
	}
	ask := worktree.Ask{From: parent.Cwd}
	if !repo.Bare {
		ask.Carry = repo.Toplevel
	}
	return ask, true, nil
}

// createInWorktree creates the chat and gives it its worktree
// (worktree.Give: on failure nothing is left).
func (s *Server) createInWorktree(n sessions.NewChat) (*sessions.Meta, error) {
	m, err := s.opt.Store.Create(n)
	if err != nil {
		return nil, err
	}
	return worktree.Give(s.opt.Store, m, s.worktreesRoot(), worktree.Ask{From: m.Cwd, Base: n.WorktreeBase}, s.worktreeSetup())
}
