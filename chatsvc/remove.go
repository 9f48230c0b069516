package chatsvc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/acpmux/acpmux-tui/internal/worktree"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// Remove deletes a chat, as the TUI's delete, `acpmux-tui rm` and
// _acpmux/remove do: its harness stopped and forgotten first (Live.Forget,
// so nothing starts it again), a worktree chat's worktree removed (its
// branch kept unless p.DeleteBranch), then its file, and its own folder
// when it has no project (with the files in it only when p.Force). A
// removal that would lose something is refused unless p.Force, and then
// stops nothing: a home folder with files in it, a worktree with
// uncommitted or unmerged work, or one other chats run in. With p.DryRun
// nothing changes; the report says what the chat's own folder and its
// worktree hold either way.
func (s *Service) Remove(p proto.RemoveParams) (proto.RemoveReport, error) {
	rep := proto.RemoveReport{ID: p.ID}
	m, err := s.opt.Store.Load(p.ID)
	if errors.Is(err, sessions.ErrNotFound) {
		return rep, err
	}
	if err != nil {
		m = nil // a broken file: Store.Remove says what it does with one
	}
	if m != nil && s.opt.Store.NoProject(m) {
		rep.Home = m.Cwd
		des, err := os.ReadDir(rep.Home)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return rep, fmt.Errorf("remove chat %s: look into its own folder: %w", p.ID, err)
		}
		rep.Files = len(des)
	}
	if m != nil && m.Worktree != nil && !m.Worktree.Missing() {
		if err := s.checkWorktreeRemoval(m, p, &rep); err != nil {
			return rep, err
		}
	}
	if p.DryRun {
		return rep, nil
	}
	if m != nil && (p.Force || rep.Files == 0) {
		if s.opt.Live != nil {
			if err := s.opt.Live.Forget(p.ID); err != nil {
				return rep, fmt.Errorf("remove chat %s: %w", p.ID, err)
			}
		}
		if w := m.Worktree; w != nil {
			if err := worktree.Remove(w.Repo, w.Path, w.Branch, p.Force, p.DeleteBranch); err != nil {
				return rep, fmt.Errorf("remove chat %s: %w", p.ID, err)
			}
		}
	}
	if err := s.opt.Store.Remove(p.ID, p.Force); err != nil {
		return rep, err
	}
	rep.Removed = true
	s.opt.Logger.Info("chat removed", "chat", p.ID, "force", p.Force)
	return rep, nil
}

// checkWorktreeRemoval reports in rep what removing chat m's worktree
// would lose, and refuses it unless p.Force (or p.DryRun, which only
// reports). Forced, a worktree git cannot look into is removed all the
// same.
func (s *Service) checkWorktreeRemoval(m *sessions.Meta, p proto.RemoveParams, rep *proto.RemoveReport) error {
	w := m.Worktree
	rep.Worktree, rep.Branch = w.Path, w.Branch
	refuse := !p.DryRun && !p.Force
	work, err := worktree.Check(w.Path, w.Branch, w.Base)
	if err != nil && !p.Force {
		return fmt.Errorf("remove chat %s: %w", m.ID, err)
	}
	rep.WorktreeWork = append(work.Changes, work.Commits...)
	sharers, err := worktree.Sharers(s.opt.Store, m)
	if err != nil && !p.Force {
		return fmt.Errorf("remove chat %s: %w", m.ID, err)
	}
	for _, c := range sharers {
		rep.WorktreeWork = append(rep.WorktreeWork, "chat "+c+" runs in it")
	}
	if refuse && len(sharers) > 0 {
		return fmt.Errorf("remove chat %s: other chats run in its worktree %s: %s; remove them first, or use --force", m.ID, w.Path, strings.Join(sharers, ", "))
	}
	if refuse && !work.Clean() {
		return fmt.Errorf("remove chat %s: its worktree %s (branch %s) has work that would be lost; commit or merge it, or use --force:\n%s", m.ID, w.Path, w.Branch, work)
	}
	return nil
}
