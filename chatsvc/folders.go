package chatsvc

import (
	"fmt"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is a chat's folders and files, its name, and the shared
// validator as callers outside the store reach it. Each change is stored
// first, through the validator, and then told to the chat's running
// harness (Live.FoldersChanged): a change that could not be told stands,
// with an *UntoldError that says so.

// Rename gives a chat a new name (sessions.Store.Rename: checked, written
// atomically under the store's lock); a refused name changes nothing.
func (s *Service) Rename(id, name string) (*sessions.Meta, error) {
	m, err := s.opt.Store.Rename(id, name)
	if err != nil {
		return nil, err
	}
	s.opt.Logger.Info("chat renamed", "chat", m.ID)
	return m, nil
}

// AddFolders adds folders to a chat: the shared validator passes the whole
// new list or refuses it, changing nothing; a folder the chat has keeps
// its place.
func (s *Service) AddFolders(id string, dirs []string) (*sessions.Meta, error) {
	m, err := s.opt.Store.AddFolders(id, dirs)
	return s.stored(m, err, "folders")
}

// RemoveFolders takes folders out of a chat. Each entry must be an
// absolute path (a folder need not exist to be taken out); more entries
// than a chat can have are refused unread, and one the chat does not have
// is an error that changes nothing.
func (s *Service) RemoveFolders(id string, dirs []string) (*sessions.Meta, error) {
	if fe := syntaxRefusal(dirs); fe != nil {
		return nil, fe
	}
	m, err := s.opt.Store.RemoveFolders(id, dirs)
	return s.stored(m, err, "folders")
}

// SetFolders replaces a chat's folders with dirs, after the shared
// validator has passed all of it; a refusal stores nothing.
func (s *Service) SetFolders(id string, dirs []string) (*sessions.Meta, error) {
	m, err := s.opt.Store.Update(id, func(m *sessions.Meta) error {
		canonical, err := s.opt.Store.ValidateFolders(m.Cwd, dirs)
		if err != nil {
			return err
		}
		m.AdditionalDirectories = canonical
		return nil
	})
	return s.stored(m, err, "folders")
}

// AddFiles adds single files to a chat, as AddFolders adds folders.
func (s *Service) AddFiles(id string, files []string) (*sessions.Meta, error) {
	m, err := s.opt.Store.AddFiles(id, files)
	return s.stored(m, err, "files")
}

// RemoveFiles takes single files out of a chat, as RemoveFolders takes
// folders out; a file that has gone can still be named.
func (s *Service) RemoveFiles(id string, files []string) (*sessions.Meta, error) {
	m, err := s.opt.Store.RemoveFiles(id, files)
	return s.stored(m, err, "files")
}

// SetFiles replaces a chat's single files with files, after the shared
// validator has passed all of it; a refusal stores nothing.
func (s *Service) SetFiles(id string, files []string) (*sessions.Meta, error) {
	m, err := s.opt.Store.SetFiles(id, files)
	return s.stored(m, err, "files")
}

// Missing is what RemoveMissing dropped of a chat, and the chat then.
type Missing struct {
	Chat    *sessions.Meta
	Folders []proto.FolderProblem
	Files   []proto.FolderProblem
}

// RemoveMissing drops the chat's stored folders and files that fail the
// check of every start (the one-key fix of a refused start), and tells a
// running chat. Folders dropped and files not is an error that says so.
func (s *Service) RemoveMissing(id string) (Missing, error) {
	var res Missing
	m, dropped, err := s.opt.Store.RemoveMissingFolders(id)
	if err != nil {
		return res, err
	}
	res.Chat, res.Folders = m, dropped
	m2, droppedFiles, err := s.opt.Store.RemoveMissingFiles(id)
	if err != nil {
		if len(dropped) > 0 {
			s.tell(id)
			err = fmt.Errorf("%d missing folder(s) removed, but not the files: %w", len(dropped), err)
		}
		return res, err
	}
	res.Files = droppedFiles
	if m2 != nil {
		res.Chat = m2
	}
	if len(dropped)+len(droppedFiles) > 0 {
		s.opt.Logger.Info("missing folders removed", "chat", id, "folders", len(dropped), "files", len(droppedFiles))
		if s.opt.Live != nil {
			if err := s.opt.Live.FoldersChanged(id); err != nil {
				return res, &UntoldError{ID: id, What: "folders and files", Err: err}
			}
		}
	}
	return res, nil
}

// Validate runs lists through the shared validator with the agent home's
// rule and returns their canonical forms, or the refusal that names every
// bad entry of both; nothing is stored.
func (s *Service) Validate(cwd string, dirs, files []string) ([]string, []string, error) {
	if cwd != "" {
		if reason := sessions.PathSyntaxProblem(cwd); reason != "" {
			return nil, nil, refusef("cwd %q: %s", clip(cwd), reason)
		}
	}
	return s.opt.Store.ValidateLists(cwd, dirs, files)
}

// CheckNoRepeats refuses, for a protocol that takes no repeated entry (the
// ACP door's), folders of which one is the same folder as an earlier one,
// besides what the shared validator refuses; cwd is the chat's folder. A
// cwd that is no folder is left to the caller's own check.
func (s *Service) CheckNoRepeats(cwd string, dirs []string) error {
	c, err := sessions.Canonical(cwd)
	if err != nil {
		return nil
	}
	_, err = s.opt.Store.ValidateFoldersNoRepeats(c, dirs)
	return err
}

// stored logs a change of a chat's lists and tells its running harness.
func (s *Service) stored(m *sessions.Meta, err error, what string) (*sessions.Meta, error) {
	if err != nil {
		return nil, err
	}
	s.opt.Logger.Info("chat "+what+" changed", "chat", m.ID, "folders", len(m.AdditionalDirectories), "files", len(m.AdditionalFiles))
	if s.opt.Live != nil {
		if err := s.opt.Live.FoldersChanged(m.ID); err != nil {
			return m, &UntoldError{ID: m.ID, What: what, Err: err}
		}
	}
	return m, nil
}

// tell tells a running chat its lists changed, after a change reported as
// failed on the whole; a failure to tell is logged.
func (s *Service) tell(id string) {
	if s.opt.Live == nil {
		return
	}
	if err := s.opt.Live.FoldersChanged(id); err != nil {
		s.opt.Logger.Warn("folders changed, the harness was not told", "chat", id, "err", err)
	}
}

// syntaxRefusal is the shared validator's refusal of the entries of a list
// of folders to take out that are no paths at all (empty, relative, with a
// NUL), or of a list longer than a chat's, or nil.
func syntaxRefusal(paths []string) *sessions.FolderError {
	fe := &sessions.FolderError{Count: len(paths)}
	if len(paths) > sessions.MaxFolders {
		fe.TooMany = true
		return fe
	}
	for i, p := range paths {
		if reason := sessions.PathSyntaxProblem(p); reason != "" {
			fe.Problems = append(fe.Problems, proto.FolderProblem{Index: i, Path: p, Reason: reason})
		}
	}
	if len(fe.Problems) == 0 {
		return nil
	}
	return fe
}
