package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/acpmux/acpmux-tui/internal/capsule"
	"io/fs"
	"os"
	"strings"
	"unicode"

	"github.com/acpmux/acpmux-tui/internal/worktree"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file answers the chat store's methods (protocol_chats.go): what a
// client that holds no store of its own (the TUI) reads and writes. Each
// is a typed handler in one table; like the other handlers, none holds a
// lock of the server's across the store's work.

// methodHandler answers one call's raw params.
type methodHandler func(s *Server, params json.RawMessage) (any, *Error)

// chatMethods is the table of the chat store's methods.
var chatMethods = map[string]methodHandler{
	proto.MethodChat:          handle((*Server).chat),
	proto.MethodDerive:        handle((*Server).derive),
	proto.MethodCapsule:       handle((*Server).capsule),
	proto.MethodRemove:        handle((*Server).remove),
	proto.MethodRemoveMissing: handle((*Server).removeMissing),
	proto.MethodAddFolders:    handle((*Server).addFolders),
	proto.MethodRemoveFolders: handle((*Server).removeFolders),
	proto.MethodValidate:      handle((*Server).validate),
	// The folder picker browses the chat's host (server/listdir.go).
	proto.MethodListDirectory: handle((*Server).listDirectory),
	// The review pane reviews it there too (server/review.go).
	proto.MethodReview:     handle((*Server).review),
	proto.MethodReviewDiff: handle((*Server).reviewDiff),
}

// handle makes a typed handler a methodHandler: it decodes P (refusing
// params of the wrong shape with -32602), calls fn, and encodes its R.
func handle[P, R any](fn func(*Server, P) (R, *Error)) methodHandler {
	return func(s *Server, raw json.RawMessage) (any, *Error) {
		var p P
		if err := decodeParams(raw, &p); err != nil {
			return nil, err
		}
		r, rpcErr := fn(s, p)
		if rpcErr != nil {
			return nil, rpcErr
		}
		return r, nil
	}
}

// needID refuses a call without a chat id.
func needID(id string) *Error {
	if id == "" {
		return errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	}
	return nil
}

// checkCwd refuses a folder given as a chat's own folder that cannot be
// one (sessions.Store.ProjectFolder: not an absolute path of an existing
// directory, or one no chat may have: the agent home, /proc, /sys).
func (s *Server) checkCwd(field, cwd string) *Error {
	if reason := sessions.PathSyntaxProblem(cwd); reason != "" {
		return errorf(proto.CodeInvalidParams, "Invalid params: %s %q: %s", field, clipText(cwd), reason)
	}
	if _, err := s.opt.Store.ProjectFolder(cwd); err != nil {
		pe, _ := sessions.AsProjectError(err)
		return errorf(proto.CodeInvalidParams, "Invalid params: %s %q: %s", field, clipText(cwd), pe.Reason)
	}
	return nil
}

// checkName refuses a name that is not one line of printable text within
// the bound; "" (derive one) passes.
func checkName(name string) *Error {
	if len(name) > sessions.MaxNameBytes || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return errorf(proto.CodeInvalidParams, "Invalid params: name must be one line of printable text, at most %d bytes", sessions.MaxNameBytes)
	}
	return nil
}

// chat answers one chat.
func (s *Server) chat(p proto.IDParams) (proto.ChatJSON, *Error) {
	if err := needID(p.ID); err != nil {
		return proto.ChatJSON{}, err
	}
	m, err := s.opt.Store.Load(p.ID)
	if err != nil {
		return proto.ChatJSON{}, failure(err)
	}
	return s.view(sessions.Entry{ID: m.ID, Meta: m}), nil
}

// derive makes a fork, side chat or handoff (sessions.Store.Derive, as the
// command line makes them), with the capsule the client built.
func (s *Server) derive(p proto.DeriveParams) (proto.ChatJSON, *Error) {
	var none proto.ChatJSON
	if err := s.checkDerive(p); err != nil {
		return none, err
	}
	if err := checkName(p.Name); err != nil {
		return none, err
	}
	if err := sessions.CheckCapsule(p.Capsule); err != nil {
		return none, errorf(proto.CodeInvalidParams, "Invalid params: capsule: %v", err)
	}
	// A fork of a worktree chat gets a worktree of its own, as the
	// command line's fork does (worktree.ForFork).
	var ask worktree.Ask
	withWorktree := false
	if p.Origin == sessions.OriginFork && p.Cwd == "" {
		parent, err := s.opt.Store.Load(p.ID)
		if err != nil {
			return none, failure(err)
		}
		var rpcErr *Error
		if ask, withWorktree, rpcErr = forkWorktree(parent, p.Worktree); rpcErr != nil {
			return none, rpcErr
		}
	}
	if p.MakeCapsule && p.Capsule == "" {
		text, err := s.capsuleFor(p)
		if err != nil {
			return none, failure(err)
		}
		p.Capsule = text
	}
	m, err := s.opt.Store.Derive(p.ID, sessions.Derivation{Origin: p.Origin, Harness: p.Harness, Cwd: p.Cwd, Name: p.Name, Capsule: p.Capsule})
	if err != nil {
		return none, failure(err)
	}
	if withWorktree {
		if m, err = worktree.Give(s.opt.Store, m, s.worktreesRoot(), ask, s.worktreeSetup()); err != nil {
			return none, failure(err)
		}
	}
	s.opt.Logger.Info("chat derived", "chat", m.ID, "parent", p.ID, "origin", p.Origin, "harness", m.Harness, "capsule", p.Capsule != "")
	return s.view(sessions.Entry{ID: m.ID, Meta: m}), nil
}

// remove deletes a chat (sessions.Store.Remove) after stopping it and
// dropping its screen, as the TUI's D and `acpmux-tui rm` do. A removal
// that will be refused (a broken file, an own folder with files and no
// force) stops nothing.
func (s *Server) remove(p proto.RemoveParams) (proto.RemoveReport, *Error) {
	rep := proto.RemoveReport{ID: p.ID}
	if err := needID(p.ID); err != nil {
		return rep, err
	}
	m, err := s.opt.Store.Load(p.ID)
	if err != nil && errors.Is(err, sessions.ErrNotFound) {
		return rep, failure(err)
	}
	if err == nil && s.opt.Store.NoProject(m) {
		rep.Home = m.Cwd
	}
	if rep.Home != "" {
		des, err := os.ReadDir(rep.Home)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return rep, failure(fmt.Errorf("remove chat %s: look into its own folder: %w", p.ID, err))
		}
		rep.Files = len(des)
	}
	if m != nil && m.Worktree != nil && !m.Worktree.Missing() {
		rep.Worktree, rep.Branch = m.Worktree.Path, m.Worktree.Branch
		work, err := worktree.Check(m.Worktree.Path, m.Worktree.Branch, m.Worktree.Base)
		if err != nil {
			return rep, failure(fmt.Errorf("remove chat %s: %w", p.ID, err))
		}
		rep.WorktreeWork = append(work.Changes, work.Commits...)
		sharers, err := worktree.Sharers(s.opt.Store, m)
		if err != nil {
			return rep, failure(fmt.Errorf("remove chat %s: %w", p.ID, err))
		}
		for _, c := range sharers {
			rep.WorktreeWork = append(rep.WorktreeWork, "chat "+c+" runs in it")
		}
		if !p.DryRun && !p.Force && len(sharers) > 0 {
			return rep, failure(fmt.Errorf("remove chat %s: other chats run in its worktree %s: %s; remove them first, or force", p.ID, m.Worktree.Path, strings.Join(sharers, ", ")))
		}
		if !p.DryRun && !p.Force && !work.Clean() {
			return rep, failure(fmt.Errorf("remove chat %s: its worktree %s (branch %s) has work that would be lost; commit or merge it, or force:\n%s", p.ID, m.Worktree.Path, m.Worktree.Branch, work))
		}
	}
	if p.DryRun {
		return rep, nil
	}
	if m != nil && (p.Force || rep.Files == 0) {
		if _, rpcErr := s.views.forget(proto.ForgetParams{ID: p.ID}); rpcErr != nil {
			return rep, rpcErr
		}
	}
	if m != nil && m.Worktree != nil && (p.Force || rep.Files == 0) {
		w := m.Worktree
		if err := worktree.Remove(w.Repo, w.Path, w.Branch, p.Force, p.DeleteBranch); err != nil {
			return rep, failure(fmt.Errorf("remove chat %s: %w", p.ID, err))
		}
	}
	if err := s.opt.Store.Remove(p.ID, p.Force); err != nil {
		return rep, failure(err)
	}
	rep.Removed = true
	s.opt.Logger.Info("chat removed", "chat", p.ID, "force", p.Force)
	return rep, nil
}

// removeMissing drops the chat's stored folders and files that fail the
// check of every start, and has a running chat take the change.
func (s *Server) removeMissing(p proto.IDParams) (proto.RemoveMissingResult, *Error) {
	res := proto.RemoveMissingResult{Folders: []proto.FolderProblem{}, Files: []proto.FolderProblem{}}
	if err := needID(p.ID); err != nil {
		return res, err
	}
	m, dropped, err := s.opt.Store.RemoveMissingFolders(p.ID)
	if err != nil {
		return res, failure(err)
	}
	res.Folders = append(res.Folders, dropped...)
	m2, droppedFiles, err := s.opt.Store.RemoveMissingFiles(p.ID)
	if err != nil {
		if len(dropped) > 0 {
			s.tellFolders(p.ID)
			err = fmt.Errorf("%d missing folder(s) removed, but not the files: %w", len(dropped), err)
		}
		return res, failure(err)
	}
	res.Files = append(res.Files, droppedFiles...)
	if m2 != nil {
		m = m2
	}
	if len(dropped)+len(droppedFiles) > 0 {
		if err := s.opt.Mux.FoldersChanged(p.ID); err != nil {
			return res, failure(fmt.Errorf("folders removed, but the harness was not told: %w", err))
		}
		s.opt.Logger.Info("missing folders removed", "chat", p.ID, "folders", len(dropped), "files", len(droppedFiles))
	}
	res.Chat = s.view(sessions.Entry{ID: m.ID, Meta: m})
	return res, nil
}

// tellFolders has a running chat take its stored folders, after a change
// that is reported as failed on the whole; the error is logged.
func (s *Server) tellFolders(id string) {
	if err := s.opt.Mux.FoldersChanged(id); err != nil {
		s.opt.Logger.Warn("folders changed, the harness was not told", "chat", id, "err", err)
	}
}

// addFolders adds folders to a chat (sessions.Store.AddFolders: the shared
// validator passes the whole new list or refuses, changing nothing).
func (s *Server) addFolders(p proto.FoldersParams) (any, *Error) {
	if err := needID(p.ID); err != nil {
		return nil, err
	}
	if p.AdditionalDirectories == nil {
		return nil, errorf(proto.CodeInvalidParams, "Invalid params: additionalDirectories is required (an array)")
	}
	m, err := s.opt.Store.AddFolders(p.ID, p.AdditionalDirectories)
	if err != nil {
		return nil, failure(err)
	}
	s.opt.Logger.Info("chat folders added", "chat", m.ID, "folders", len(m.AdditionalDirectories))
	return s.foldersChanged(m.ID)
}

// removeFolders takes folders out of a chat (sessions.Store.RemoveFolders).
// Each entry must be an absolute path, as everywhere on the socket; a
// folder need not exist to be taken out. More entries than a chat can
// have are refused unread.
func (s *Server) removeFolders(p proto.FoldersParams) (any, *Error) {
	if err := needID(p.ID); err != nil {
		return nil, err
	}
	if p.AdditionalDirectories == nil {
		return nil, errorf(proto.CodeInvalidParams, "Invalid params: additionalDirectories is required (an array)")
	}
	if fe := syntaxRefusal(p.AdditionalDirectories); fe != nil {
		return nil, folderRefusal(fe)
	}
	m, err := s.opt.Store.RemoveFolders(p.ID, p.AdditionalDirectories)
	if err != nil {
		return nil, failure(err)
	}
	s.opt.Logger.Info("chat folders removed", "chat", m.ID, "folders", len(m.AdditionalDirectories))
	return s.foldersChanged(m.ID)
}

// syntaxRefusal is the shared validator's refusal of the entries of a list
// of folders to take out that are no paths at all (empty, relative, with a
// NUL), or of a list longer than a chat's, or nil.
func syntaxRefusal(dirs []string) *sessions.FolderError {
	fe := &sessions.FolderError{Count: len(dirs)}
	if len(dirs) > sessions.MaxFolders {
		fe.TooMany = true
		return fe
	}
	for i, d := range dirs {
		if reason := sessions.PathSyntaxProblem(d); reason != "" {
			fe.Problems = append(fe.Problems, proto.FolderProblem{Index: i, Path: d, Reason: reason})
		}
	}
	if len(fe.Problems) == 0 {
		return nil
	}
	return fe
}

// validate runs lists through the shared validator with the agent home's
// rule and answers their canonical forms; nothing is stored.
func (s *Server) validate(p proto.ValidateParams) (proto.ValidateResult, *Error) {
	res := proto.ValidateResult{AdditionalDirectories: []string{}, AdditionalFiles: []string{}}
	if p.Cwd != "" {
		if reason := sessions.PathSyntaxProblem(p.Cwd); reason != "" {
			return res, errorf(proto.CodeInvalidParams, "Invalid params: cwd %q: %s", clipText(p.Cwd), reason)
		}
	}
	dirs, files, err := s.opt.Store.ValidateLists(p.Cwd, p.AdditionalDirectories, p.AdditionalFiles)
	if err != nil {
		return res, failure(err)
	}
	res.AdditionalDirectories = append(res.AdditionalDirectories, dirs...)
	res.AdditionalFiles = append(res.AdditionalFiles, files...)
	return res, nil
}

// checkDerive refuses a derivation's params that name no chat, no known
// origin or harness, or a bad cwd (derive and capsule).
func (s *Server) checkDerive(p proto.DeriveParams) *Error {
	if err := needID(p.ID); err != nil {
		return err
	}
	switch p.Origin {
	case sessions.OriginFork, sessions.OriginSide:
	case sessions.OriginHandoff:
		if p.Harness == "" {
			return errorf(proto.CodeInvalidParams, "Invalid params: a handoff needs the harness to hand off to")
		}
	default:
		return errorf(proto.CodeInvalidParams, "Invalid params: origin must be %q, %q or %q, not %q",
			sessions.OriginFork, sessions.OriginSide, sessions.OriginHandoff, clipText(p.Origin))
	}
	if p.Harness != "" {
		if _, ok := s.table().Get(p.Harness); !ok {
			return errorf(proto.CodeInvalidParams, "Invalid params: unknown harness %q (known: %s)", clipText(p.Harness), strings.Join(s.table().Names(), ", "))
		}
	}
	if p.Cwd != "" {
		if err := s.checkCwd("cwd", p.Cwd); err != nil {
			return err
		}
	}
	return nil
}

// capsule answers _acpmux/capsule: the capsule a derivation would carry,
// written here from the chat as this server runs it, for a client to show
// and edit before it derives (a client on another machine: --host, the
// TUI's remote chats). "" when it would carry none.
func (s *Server) capsule(p proto.DeriveParams) (proto.CapsuleResult, *Error) {
	if err := s.checkDerive(p); err != nil {
		return proto.CapsuleResult{}, err
	}
	text, err := s.capsuleFor(p)
	if err != nil {
		return proto.CapsuleResult{}, failure(err)
	}
	return proto.CapsuleResult{Text: text}, nil
}

// capsuleFor writes the capsule of a derivation from the parent as this
// server holds it: its file, its harness in this host's table, and its
// transcript or screen from the mux (capsule.ForDerivation, as a client on
// this machine writes it). A fork the harness makes natively, and a side
// chat, have none.
func (s *Server) capsuleFor(p proto.DeriveParams) (string, error) {
	parent, err := s.opt.Store.Load(p.ID)
	if err != nil {
		return "", err
	}
	spec, ok := s.table().Get(parent.Harness)
	if !ok {
		return "", nil
	}
	c := capsule.Parent{Meta: parent, Spec: spec, Env: capsule.Env(spec, s.opt.Getenv)}
	c.Transcript = s.opt.Mux.Transcript(p.ID)
	c.Lines = s.opt.Mux.History(p.ID, capsule.HistoryBytes)
	noProject := p.Cwd == "" && s.opt.Store.NoProject(parent)
	return capsule.ForDerivation(c, p.Origin, p.Harness, p.Cwd, noProject), nil
}
