package server

import (
	"github.com/acpmux/acpmux-tui/chatsvc"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file answers the methods that make and change chats: each checks
// the shape of its params (an id, a list that must be an array) and calls
// the chat service (package chatsvc), which holds every rule of them, as
// the command line and the ACP door call it; failure turns the service's
// refusals into -32602. Like the other handlers, none holds a lock of the
// server's across the service's work.

// liveChats is the chat service's Live: the chats the server's mux runs.
type liveChats struct{ s *Server }

func (l liveChats) Said(id string, maxBytes int) ([]proto.Entry, []string) {
	return l.s.opt.Mux.Transcript(id), l.s.opt.Mux.History(id, maxBytes)
}

func (l liveChats) FoldersChanged(id string) error { return l.s.opt.Mux.FoldersChanged(id) }

// Forget stops the chat and drops its screen, as _acpmux/forget does.
func (l liveChats) Forget(id string) error {
	_, rpcErr := l.s.views.forget(proto.ForgetParams{ID: id})
	return fail(rpcErr)
}

// newChatService is the server's chat service: the store, the config and
// harness table in effect at each call, the mux for what runs.
func newChatService(s *Server) *chatsvc.Service {
	return chatsvc.New(chatsvc.Options{
		Store: s.opt.Store, Config: s.config, Table: s.table, Getenv: s.opt.Getenv,
		Live: liveChats{s}, Logger: s.opt.Logger,
	})
}

// needID refuses a call without a chat id.
func needID(id string) *Error {
	if id == "" {
		return errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	}
	return nil
}

// viewOf answers a chat the service made or changed, as the store has it.
func (s *Server) viewOf(m *sessions.Meta, err error) (proto.ChatJSON, *Error) {
	if err != nil {
		return proto.ChatJSON{}, failure(err)
	}
	return s.view(sessions.Entry{ID: m.ID, Meta: m}), nil
}

// newChatOf is the chat _acpmux/new and _acpmux/createAndStart ask for.
func newChatOf(p proto.NewParams) sessions.NewChat {
	return sessions.NewChat{Name: p.Name, Harness: p.Harness, Cwd: p.Cwd, AdditionalDirectories: p.AdditionalDirectories,
		AdditionalFiles: p.AdditionalFiles, Worktree: p.Worktree, WorktreeBase: p.WorktreeBase, Sandbox: p.Sandbox}
}

// newChat answers MethodNew: a chat made, not started.
func (s *Server) newChat(c *conn, p proto.NewParams) (proto.ChatJSON, *Error) {
	var err *Error
	if p.Sandbox, err = s.webSandbox(c, p.Sandbox); err != nil {
		return proto.ChatJSON{}, err
	}
	return s.viewOf(s.chats.Create(newChatOf(p)))
}

// webSandbox is the sandbox a chat made by connection c gets, asked for
// as asked: a web caller's is on while `[web] sandbox` is (the default),
// and a web caller cannot turn it off; anyone else's is as asked.
func (s *Server) webSandbox(c *conn, asked *bool) (*bool, *Error) {
	if c == nil || !c.web.Load() || !s.config().Web.Sandboxed() {
		return asked, nil
	}
	if asked != nil && !*asked {
		return nil, errorf(proto.CodeInvalidParams, "a chat made over the web door is sandboxed ([web] sandbox in the config): the web cannot turn that off")
	}
	on := true
	return &on, nil
}

// chat answers MethodChat: one chat.
func (s *Server) chat(p proto.IDParams) (proto.ChatJSON, *Error) {
	if err := needID(p.ID); err != nil {
		return proto.ChatJSON{}, err
	}
	return s.viewOf(s.opt.Store.Load(p.ID))
}

// derivationOf is the derivation _acpmux/derive and _acpmux/capsule ask
// for.
func derivationOf(p proto.DeriveParams) sessions.Derivation {
	return sessions.Derivation{Origin: p.Origin, Harness: p.Harness, Cwd: p.Cwd, Name: p.Name, Capsule: p.Capsule,
		Worktree: p.Worktree, MakeCapsule: p.MakeCapsule, Sandbox: p.Sandbox}
}

// derive answers MethodDerive: a fork, side chat or handoff, with the
// capsule the client built, or with makeCapsule the one the service
// writes here.
func (s *Server) derive(c *conn, p proto.DeriveParams) (proto.ChatJSON, *Error) {
	if err := needID(p.ID); err != nil {
		return proto.ChatJSON{}, err
	}
	var err *Error
	if p.Sandbox, err = s.webSandbox(c, p.Sandbox); err != nil {
		return proto.ChatJSON{}, err
	}
	return s.viewOf(s.chats.Derive(p.ID, derivationOf(p)))
}

// capsule answers MethodCapsule: the capsule a derivation would carry,
// written here from the chat as this server runs it, for a client to show
// and edit before it derives (a client on another machine: --host, the
// TUI's remote chats). "" when it would carry none.
func (s *Server) capsule(p proto.DeriveParams) (proto.CapsuleResult, *Error) {
	if err := needID(p.ID); err != nil {
		return proto.CapsuleResult{}, err
	}
	text, err := s.chats.Capsule(p.ID, derivationOf(p))
	if err != nil {
		return proto.CapsuleResult{}, failure(err)
	}
	return proto.CapsuleResult{Text: text}, nil
}

// remove answers MethodRemove (chatsvc.Service.Remove): the chat stopped,
// its screen dropped, its worktree, file and own folder removed.
func (s *Server) remove(p proto.RemoveParams) (proto.RemoveReport, *Error) {
	if err := needID(p.ID); err != nil {
		return proto.RemoveReport{ID: p.ID}, err
	}
	rep, err := s.chats.Remove(p)
	if err != nil {
		return rep, failure(err)
	}
	return rep, nil
}

// rename answers MethodRename: the chat as it is then.
func (s *Server) rename(p proto.RenameParams) (proto.ChatJSON, *Error) {
	if err := needID(p.ID); err != nil {
		return proto.ChatJSON{}, err
	}
	return s.viewOf(s.chats.Rename(p.ID, p.Name))
}

// setDirectories answers MethodSetDirectories: the chat's folders replaced
// with the list given, all of it through the shared validator first. The
// list is stored at once; a running harness takes it at the end of its
// turn.
func (s *Server) setDirectories(p proto.SetDirectoriesParams) (proto.ChatJSON, *Error) {
	if err := needID(p.ID); err != nil {
		return proto.ChatJSON{}, err
	}
	if p.AdditionalDirectories == nil {
		return proto.ChatJSON{}, errorf(proto.CodeInvalidParams, "Invalid params: additionalDirectories is required (an array; [] clears the list)")
	}
	return s.viewOf(s.chats.SetFolders(p.ID, *p.AdditionalDirectories))
}

// setFiles answers MethodSetFiles: the chat's single files replaced, as
// setDirectories replaces its folders.
func (s *Server) setFiles(p proto.SetFilesParams) (proto.ChatJSON, *Error) {
	if err := needID(p.ID); err != nil {
		return proto.ChatJSON{}, err
	}
	if p.AdditionalFiles == nil {
		return proto.ChatJSON{}, errorf(proto.CodeInvalidParams, "Invalid params: additionalFiles is required (an array; [] clears the list)")
	}
	return s.viewOf(s.chats.SetFiles(p.ID, *p.AdditionalFiles))
}

// addFolders answers MethodAddFolders: folders added to a chat, the whole
// new list through the shared validator.
func (s *Server) addFolders(p proto.FoldersParams) (proto.ChatJSON, *Error) {
	if err := needID(p.ID); err != nil {
		return proto.ChatJSON{}, err
	}
	if p.AdditionalDirectories == nil {
		return proto.ChatJSON{}, errorf(proto.CodeInvalidParams, "Invalid params: additionalDirectories is required (an array)")
	}
	return s.viewOf(s.chats.AddFolders(p.ID, p.AdditionalDirectories))
}

// removeFolders answers MethodRemoveFolders: folders taken out of a chat.
func (s *Server) removeFolders(p proto.FoldersParams) (proto.ChatJSON, *Error) {
	if err := needID(p.ID); err != nil {
		return proto.ChatJSON{}, err
	}
	if p.AdditionalDirectories == nil {
		return proto.ChatJSON{}, errorf(proto.CodeInvalidParams, "Invalid params: additionalDirectories is required (an array)")
	}
	return s.viewOf(s.chats.RemoveFolders(p.ID, p.AdditionalDirectories))
}

// foldersChanged answers MethodFoldersChanged: a running chat takes its
// stored folders and files at the end of its turn (mux.FoldersChanged);
// the chat as it is then.
func (s *Server) foldersChanged(p proto.ChatParams) (proto.ChatJSON, *Error) {
	if err := needID(p.ID); err != nil {
		return proto.ChatJSON{}, err
	}
	if err := s.opt.Mux.FoldersChanged(p.ID); err != nil {
		return proto.ChatJSON{}, failure(err)
	}
	return s.viewOf(s.opt.Store.Load(p.ID))
}

// removeMissing answers MethodRemoveMissing: the chat's stored folders and
// files that fail the check of every start dropped, and which.
func (s *Server) removeMissing(p proto.IDParams) (proto.RemoveMissingResult, *Error) {
	res := proto.RemoveMissingResult{Folders: []proto.FolderProblem{}, Files: []proto.FolderProblem{}}
	if err := needID(p.ID); err != nil {
		return res, err
	}
	gone, err := s.chats.RemoveMissing(p.ID)
	if err != nil {
		return res, failure(err)
	}
	s.opt.Mux.FoldersFixed(p.ID)
	res.Folders = append(res.Folders, gone.Folders...)
	res.Files = append(res.Files, gone.Files...)
	res.Chat = s.view(sessions.Entry{ID: gone.Chat.ID, Meta: gone.Chat})
	return res, nil
}

// validate answers MethodValidate: the lists through the shared validator
// with the agent home's rule, in their canonical forms; nothing is stored.
func (s *Server) validate(p proto.ValidateParams) (proto.ValidateResult, *Error) {
	res := proto.ValidateResult{AdditionalDirectories: []string{}, AdditionalFiles: []string{}}
	dirs, files, err := s.chats.Validate(p.Cwd, p.AdditionalDirectories, p.AdditionalFiles)
	if err != nil {
		return res, failure(err)
	}
	res.AdditionalDirectories = append(res.AdditionalDirectories, dirs...)
	res.AdditionalFiles = append(res.AdditionalFiles, files...)
	return res, nil
}
