package server

import (
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file answers the methods. No handler holds a lock of the server's
// across its work: the store, the file lock and the spawn happen with none
// held, so list calls and other clients never wait on them.

// call runs one request from connection c and returns its result or its
// error. A panic in a handler is answered as an internal error and logged;
// it does not end the server and the harnesses with it.
func (s *Server) call(c *conn, req Request) (result any, rpcErr *Error) {
	defer func() {
		if r := recover(); r != nil {
			s.opt.Logger.Error("panic in a call", "method", req.Method, "panic", r, "stack", string(debug.Stack()))
			result, rpcErr = nil, errorf(proto.CodeInternalError, "Internal error: %v", r)
		}
	}()
	s.configBeforeStart(c, req.Method)
	if h, ok := chatMethods[req.Method]; ok {
		return h(s, req.Params)
	}
	switch req.Method {
	case proto.MethodHello:
		if err := decodeParams(req.Params, &struct{}{}); err != nil {
			return nil, err
		}
		return proto.HelloResult{Version: s.opt.Version, Pid: s.pid, Protocol: proto.ProtocolVersion}, nil
	case proto.MethodList:
		if err := decodeParams(req.Params, &struct{}{}); err != nil {
			return nil, err
		}
		return s.list()
	case proto.MethodLive:
		if err := decodeParams(req.Params, &struct{}{}); err != nil {
			return nil, err
		}
		return s.liveStates(), nil
	case proto.MethodNew:
		var p proto.NewParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.newChat(p)
	case proto.MethodSetDirectories:
		var p proto.SetDirectoriesParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.setDirectories(p)
	case proto.MethodSetFiles:
		var p proto.SetFilesParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.setFiles(p)
	case proto.MethodFoldersChanged:
		var p proto.ChatParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.foldersChanged(p.ID)
	case proto.MethodRename:
		var p proto.RenameParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.rename(p)
	case proto.MethodStart, proto.MethodStop, proto.MethodRestart:
		var p proto.ChatParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.lifecycle(req.Method, p)
	case proto.MethodWatch, proto.MethodResize:
		var p proto.SizeParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		if req.Method == proto.MethodWatch {
			return s.views.watch(c, p)
		}
		return s.views.resize(c, p)
	case proto.MethodBudget:
		var p proto.BudgetParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.views.setBudget(c, p)
	case proto.MethodShow:
		var p proto.ShowParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.views.show(c, p)
	case proto.MethodRender:
		var p proto.RenderParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.views.render(p)
	case proto.MethodTranscript:
		var p proto.TranscriptParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.views.transcript(p)
	case proto.MethodHistory:
		var p proto.HistoryParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.views.history(p)
	case proto.MethodWrite:
		var p proto.WriteParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.views.write(c, p)
	case proto.MethodForget:
		var p proto.ForgetParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.views.forget(p)
	case proto.MethodCreateAndStart:
		var p proto.CreateAndStartParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.createAndStart(p)
	case proto.MethodFill:
		if err := decodeParams(req.Params, &struct{}{}); err != nil {
			return nil, err
		}
		return s.fill()
	case proto.MethodObserve, proto.MethodUnobserve, proto.MethodReady, proto.MethodPrompt, proto.MethodCancel, proto.MethodAnswerPermission:
		return s.callTurn(c, req)
	case proto.MethodAttach:
		var p proto.AttachParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.attach(c, p)
	case proto.MethodAttachInput:
		var p proto.AttachInputParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.attachInput(c, p)
	case proto.MethodAttachResize:
		var p proto.AttachResizeParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.attachResize(c, p)
	case proto.MethodDetach:
		var p proto.DetachParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.detach(c, p)
	case proto.MethodHook:
		var p proto.HookParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.hook(c, p)
	case proto.MethodLook:
		var p proto.LookParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		s.opt.Mux.Look(c, p.ID)
		return struct{}{}, nil
	case proto.MethodExport:
		var p proto.ExportParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.export(p)
	case proto.MethodImport:
		var p proto.ImportParams
		if err := decodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		return s.importChat(p)
	case proto.MethodKill:
		if err := decodeParams(req.Params, &struct{}{}); err != nil {
			return nil, err
		}
		s.opt.Logger.Info("kill requested by a client")
		return proto.KillResult{Pid: s.pid}, nil
	}
	return nil, errorf(proto.CodeMethodNotFound, "Method not found: %q", clipText(req.Method))
}

// clipText keeps a hostile method name out of a long error message.
func clipText(s string) string {
	if len(s) <= 120 {
		return s
	}
	return strings.ToValidUTF8(s[:120], "") + "…"
}

// view is a chat as `ls --json` prints it, with the status the mux reports
// now (stopped for a chat it has never started) and how its folders and
// files reach its harness (the way they went at its last start; before its first, the
// table's expectation, marked so).
func (s *Server) view(e sessions.Entry) proto.ChatJSON {
	st := s.chatState(e.ID)
	via, expected := harness.ViaNone, false
	if e.Meta != nil {
		if spec, ok := s.table().Get(e.Meta.Harness); ok {
			via, expected = spec.ChatFoldersVia(e.Meta)
		}
	}
	live := liveOf(e.ID, st)
	if e.Meta != nil && live.FoldersVia != "" {
		via, expected = live.FoldersVia, false
	}
	e.NoProject = e.Meta != nil && s.opt.Store.NoProject(e.Meta)
	j := e.JSON(live.Status, via)
	j.FoldersViaExpected = expected
	if e.Meta != nil && j.FilesVia == "" {
		// Before the first start with files: the harness's expectation.
		if spec, ok := s.table().Get(e.Meta.Harness); ok {
			j.FilesVia, _ = spec.ChatFilesVia(e.Meta)
		}
	}
	j.PendingDirectories, j.PendingFiles = live.PendingDirectories, live.PendingFiles
	j.Unread, j.StatusFrom = live.Unread, live.StatusFrom
	return j
}

// liveOf is the part of a chat's view that its state gives (view, and
// _acpmux/live for clients that read the chat files themselves).
func liveOf(id string, st proto.State) proto.LiveChat {
	l := proto.LiveChat{ID: id, Status: st.Status.String(), Unread: st.Unread, FoldersVia: st.FoldersVia,
		PendingDirectories: st.PendingDirectories, PendingFiles: st.PendingFiles}
	if st.Status.Live() {
		l.StatusFrom = string(st.StatusFrom)
	}
	return l
}

// liveStates answers _acpmux/live: every chat the mux holds or the revival
// queue waits to start, without reading a chat file.
func (s *Server) liveStates() proto.LiveResult {
	ids := append(s.opt.Mux.Known(), s.revivals.ids()...)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	res := proto.LiveResult{Chats: make([]proto.LiveChat, len(ids))}
	for i, id := range ids {
		res.Chats[i] = liveOf(id, s.chatState(id))
	}
	return res
}

func (s *Server) list() (any, *Error) {
	entries, err := s.opt.Store.List()
	if err != nil {
		return nil, errorf(proto.CodeFailed, "list chats: %v", err)
	}
	chats := make([]proto.ChatJSON, len(entries))
	for i, e := range entries {
		chats[i] = s.view(e)
	}
	return proto.ListResult{Chats: chats}, nil
}

// folderRefusal is the shared validator's refusal as it goes on the wire:
// -32602 with every bad entry in data.entries.
func folderRefusal(fe *sessions.FolderError) *Error {
	return &Error{Code: proto.CodeInvalidParams, Message: "Invalid params: " + fe.Fields(), raw: fe.RPCError()}
}

// failure turns an error of the store or the mux into an answer.
func failure(err error) *Error {
	if fe, ok := sessions.AsFolderError(err); ok {
		return folderRefusal(fe)
	}
	if ne, ok := sessions.AsNameError(err); ok {
		return &Error{Code: proto.CodeInvalidParams, Message: "Invalid params: " + ne.Error()}
	}
	if pe, ok := sessions.AsProjectError(err); ok {
		return &Error{Code: proto.CodeInvalidParams, Message: "Invalid params: " + pe.Error()}
	}
	if errors.Is(err, sessions.ErrNotFound) {
		return &Error{Code: proto.CodeChatNotFound, Message: err.Error()}
	}
	var gone *proto.FoldersGoneError
	if errors.As(err, &gone) {
		return &Error{Code: proto.CodeFailed, Message: err.Error(), Data: map[string]any{
			"chat": gone.ChatID, "entries": gone.Problems, "running": gone.Running,
		}}
	}
	return &Error{Code: proto.CodeFailed, Message: err.Error()}
}

func (s *Server) newChat(p proto.NewParams) (any, *Error) {
	n, rpcErr := s.checkNew(p)
	if rpcErr != nil {
		return nil, rpcErr
	}
	want, rpcErr := s.wantsWorktree(n)
	if rpcErr != nil {
		return nil, rpcErr
	}
	var m *sessions.Meta
	var err error
	if want {
		m, err = s.createInWorktree(n)
	} else {
		m, err = s.opt.Store.Create(n)
	}
	if err != nil {
		return nil, failure(err)
	}
	s.opt.Logger.Info("chat created", "chat", m.ID, "harness", m.Harness)
	return s.view(sessions.Entry{ID: m.ID, Meta: m}), nil
}

// checkNew checks the params of a new chat (_acpmux/new and
// _acpmux/createAndStart) and returns the chat to create; its folders and
// files go through the shared validator in the store's Create, which
// refuses the bad entries of both lists at once.
func (s *Server) checkNew(p proto.NewParams) (sessions.NewChat, *Error) {
	name := p.Harness
	if name == "" {
		name = s.table().Default(s.config(), s.opt.Getenv)
	}
	if _, ok := s.table().Get(name); !ok {
		return sessions.NewChat{}, errorf(proto.CodeInvalidParams, "Invalid params: unknown harness %q (known: %s)", clipText(name), strings.Join(s.table().Names(), ", "))
	}
	if p.Cwd != "" {
		if err := s.checkCwd("cwd", p.Cwd); err != nil {
			return sessions.NewChat{}, err
		}
	}
	if err := checkName(p.Name); err != nil {
		return sessions.NewChat{}, err
	}
	return sessions.NewChat{Name: p.Name, Harness: name, Cwd: p.Cwd, AdditionalDirectories: p.AdditionalDirectories, AdditionalFiles: p.AdditionalFiles, Worktree: p.Worktree, WorktreeBase: p.WorktreeBase}, nil
}

// setDirectories replaces a chat's folders with the list given, after the
// shared validator has passed all of it; a refusal stores nothing. The list
// is stored at once; a running harness gets it at its next start.
func (s *Server) setDirectories(p proto.SetDirectoriesParams) (any, *Error) {
	if p.ID == "" {
		return nil, errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	}
	if p.AdditionalDirectories == nil {
		return nil, errorf(proto.CodeInvalidParams, "Invalid params: additionalDirectories is required (an array; [] clears the list)")
	}
	dirs := *p.AdditionalDirectories
	m, err := s.opt.Store.Update(p.ID, func(m *sessions.Meta) error {
		canonical, err := s.opt.Store.ValidateFolders(m.Cwd, dirs)
		if err != nil {
			return err
		}
		m.AdditionalDirectories = canonical
		return nil
	})
	if err != nil {
		return nil, failure(err)
	}
	s.opt.Logger.Info("chat folders set", "chat", m.ID, "folders", len(m.AdditionalDirectories))
	return s.foldersChanged(m.ID)
}

// setFiles replaces a chat's single files with the list given, after the
// shared validator has passed all of it (Store.SetFiles); a refusal stores
// nothing. A running chat takes them as it takes a change of folders.
func (s *Server) setFiles(p proto.SetFilesParams) (any, *Error) {
	if p.ID == "" {
		return nil, errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	}
	if p.AdditionalFiles == nil {
		return nil, errorf(proto.CodeInvalidParams, "Invalid params: additionalFiles is required (an array; [] clears the list)")
	}
	m, err := s.opt.Store.SetFiles(p.ID, *p.AdditionalFiles)
	if err != nil {
		return nil, failure(err)
	}
	s.opt.Logger.Info("chat files set", "chat", m.ID, "files", len(m.AdditionalFiles))
	return s.foldersChanged(m.ID)
}

// foldersChanged has a running chat take its stored folders at the end of
// its turn (mux.FoldersChanged) and answers the chat as it is then.
func (s *Server) foldersChanged(id string) (any, *Error) {
	if id == "" {
		return nil, errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	}
	if err := s.opt.Mux.FoldersChanged(id); err != nil {
		return nil, failure(err)
	}
	e, err := s.opt.Store.Load(id)
	if err != nil {
		return nil, failure(err)
	}
	return s.view(sessions.Entry{ID: id, Meta: e}), nil
}

// rename gives a chat a new name (sessions.Store.Rename: checked, written
// atomically under the store's lock) and answers the chat as it is then.
func (s *Server) rename(p proto.RenameParams) (any, *Error) {
	if p.ID == "" {
		return nil, errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	}
	m, err := s.opt.Store.Rename(p.ID, p.Name)
	if err != nil {
		return nil, failure(err)
	}
	s.opt.Logger.Info("chat renamed", "chat", m.ID)
	return s.view(sessions.Entry{ID: m.ID, Meta: m}), nil
}

// lifecycle starts, stops or restarts a chat's harness and answers the chat
// as it is then.
func (s *Server) lifecycle(method string, p proto.ChatParams) (any, *Error) {
	if p.ID == "" {
		return nil, errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	}
	if p.Cols < 0 || p.Cols > proto.MaxCols || p.Rows < 0 || p.Rows > proto.MaxRows {
		return nil, errorf(proto.CodeInvalidParams, "Invalid params: cols must be 0..%d and rows 0..%d", proto.MaxCols, proto.MaxRows)
	}
	if _, err := s.opt.Store.Load(p.ID); err != nil {
		return nil, failure(err)
	}
	s.revivals.take(p.ID) // the client's to start or stop now
	var err error
	switch method {
	case proto.MethodStart:
		s.track(p.ID)
		err = s.opt.Mux.Start(p.ID, p.Cols, p.Rows)
	case proto.MethodRestart:
		s.track(p.ID)
		err = s.opt.Mux.Restart(p.ID, p.Cols, p.Rows)
	case proto.MethodStop:
		s.opt.Mux.Stop(p.ID)
	}
	s.poke()
	if err != nil {
		s.opt.Logger.Warn(strings.TrimPrefix(method, "_acpmux/")+" refused", "chat", p.ID, "err", err)
		return nil, failure(err)
	}
	// Read again: a first start may have stored the harness's session id.
	m, lerr := s.opt.Store.Load(p.ID)
	if lerr != nil {
		return nil, failure(fmt.Errorf("chat %s after %s: %w", p.ID, strings.TrimPrefix(method, "_acpmux/"), lerr))
	}
	return s.view(sessions.Entry{ID: m.ID, Meta: m}), nil
}
