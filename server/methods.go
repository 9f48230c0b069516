package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/acpmux/acpmux-tui/chatsvc"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is the table of the _acpmux/* methods and the guard every call
// goes through. No handler holds a lock of the server's across its work:
// the store, the file lock and the spawn happen with none held, so list
// calls and other clients never wait on them.

// methodHandler answers one call's raw params, made on connection c.
type methodHandler func(s *Server, c *conn, params json.RawMessage) (any, *Error)

// methods is every _acpmux/* method, each a typed handler: handle and
// handleConn decode its params (refusing params of the wrong shape with
// -32602) and encode its result. A method missing here is -32601; a test
// holds the table to proto's methods, one entry each.
var methods map[string]methodHandler

func init() {
	methods = map[string]methodHandler{
		// Every client's (docs/protocol.md).
		proto.MethodHello: handle((*Server).hello),
		// The hand-over of a client's stdio is a connection's first
		// message, with its descriptors (adopt.go); any other is refused.
		proto.MethodAdopt: handle(func(*Server, struct{}) (struct{}, *Error) {
			return struct{}{}, errorf(proto.CodeInvalidRequest, "Invalid Request: %s is a connection's first message, sent with its stdin and stdout", proto.MethodAdopt)
		}),
		proto.MethodList:           handle((*Server).list),
		proto.MethodLive:           handle((*Server).liveStates),
		proto.MethodNew:            handleConn((*Server).newChat),
		proto.MethodSetDirectories: handle((*Server).setDirectories),
		proto.MethodSetFiles:       handle((*Server).setFiles),
		proto.MethodFoldersChanged: handle((*Server).foldersChanged),
		proto.MethodRename:         handle((*Server).rename),
		proto.MethodStart:          handle((*Server).start),
		proto.MethodStop:           handle((*Server).stop),
		proto.MethodRestart:        handle((*Server).restart),
		proto.MethodKill:           handle((*Server).killServer),
		proto.MethodConfig:         handle((*Server).configNow), // the config in effect (config.go)
		proto.MethodWeb:            handle((*Server).openWeb),   // the web listener (web.go)
		proto.MethodWebCaller:      handleConn((*Server).webCaller),
		proto.MethodHost:           handleConn((*Server).hostCall), // a web caller's call on a host (webhosts.go)

		// The chat store as a client with no store of its own reads and
		// writes it (chats.go), through the chat service.
		proto.MethodChat:           handle((*Server).chat),
		proto.MethodDerive:         handleConn((*Server).derive),
		proto.MethodCapsule:        handle((*Server).capsule),
		proto.MethodRemove:         handle((*Server).remove),
		proto.MethodRemoveMissing:  handle((*Server).removeMissing),
		proto.MethodAddFolders:     handle((*Server).addFolders),
		proto.MethodRemoveFolders:  handle((*Server).removeFolders),
		proto.MethodValidate:       handle((*Server).validate),
		proto.MethodCreateAndStart: handleConn((*Server).createAndStart),
		proto.MethodFill:           handle((*Server).fill),
		// The folder picker browses the chat's host (listdir.go); the
		// review pane reviews it there too (review.go).
		proto.MethodListDirectory: handle((*Server).listDirectory),
		proto.MethodReview:        handle((*Server).review),
		proto.MethodReviewDiff:    handle((*Server).reviewDiff),
		proto.MethodGitOp:         handle((*Server).gitOp), // commit, push, merge (gitops.go)
		proto.MethodExport:        handle((*Server).export),
		proto.MethodImport:        handle((*Server).importChat),

		// Drawing clients (view.go, budget.go): bound to the connection.
		proto.MethodWatch:  handleConn(func(s *Server, c *conn, p proto.SizeParams) (proto.StatesResult, *Error) { return s.views.watch(c, p) }),
		proto.MethodResize: handleConn(func(s *Server, c *conn, p proto.SizeParams) (struct{}, *Error) { return s.views.resize(c, p) }),
		proto.MethodBudget: handleConn(func(s *Server, c *conn, p proto.BudgetParams) (struct{}, *Error) { return s.views.setBudget(c, p) }),
		proto.MethodShow:   handleConn(func(s *Server, c *conn, p proto.ShowParams) (struct{}, *Error) { return s.views.show(c, p) }),
		proto.MethodWrite:  handleConn(func(s *Server, c *conn, p proto.WriteParams) (struct{}, *Error) { return s.views.write(c, p) }),
		proto.MethodRender: handle(func(s *Server, p proto.RenderParams) (proto.RenderResult, *Error) { return s.views.render(p) }),
		proto.MethodTranscript: handle(func(s *Server, p proto.TranscriptParams) (proto.TranscriptResult, *Error) {
			return s.views.transcript(p)
		}),
		proto.MethodHistory: handle(func(s *Server, p proto.HistoryParams) (proto.HistoryResult, *Error) { return s.views.history(p) }),
		proto.MethodForget:  handle(func(s *Server, p proto.ForgetParams) (struct{}, *Error) { return s.views.forget(p) }),
		proto.MethodLook:    handleConn((*Server).look),
		proto.MethodSearch:  handle((*Server).search), // every chat's text (search.go)
		// What a prompt may mention with @ (mentionfiles.go).
		proto.MethodFiles: handleConn((*Server).mentionFiles),

		// ACP turns (prompt.go): streams to the connection.
		proto.MethodObserve:          handleConn((*Server).observe),
		proto.MethodUnobserve:        handleConn((*Server).unobserve),
		proto.MethodReady:            handleConn((*Server).ready),
		proto.MethodPrompt:           handleConn((*Server).prompt),
		proto.MethodCancel:           handle((*Server).cancel),
		proto.MethodAnswerPermission: handle((*Server).answerPermission),
		// An ACP chat's mode and options, through its agent (options.go).
		proto.MethodOptions:   handle((*Server).chatOptions),
		proto.MethodSetOption: handle((*Server).setOption),
		// Signing in to an ACP chat's agent (signin.go).
		proto.MethodSignIn: handle((*Server).signIn),

		// A terminal attached (attach.go) and a harness's hooks
		// (notice.go): bound to the connection.
		proto.MethodAttach:         handleConn((*Server).attach),
		proto.MethodAttachInput:    handleConn((*Server).attachInput),
		proto.MethodAttachResize:   handleConn((*Server).attachResize),
		proto.MethodDetach:         handleConn((*Server).detach),
		proto.MethodAttachTerminal: handleConn((*Server).attachTerminal),
		// A TUI's chat pane lent (lend_pane.go).
		proto.MethodLendPane: handleConn((*Server).lendPane),
		proto.MethodPaneDraw: handleConn((*Server).paneDraw),
		proto.MethodPaneBack: handleConn((*Server).paneBack),
		proto.MethodHook:     handleConn((*Server).hook),
	}
}

// handle makes a typed handler a methodHandler: it decodes P (refusing
// params of the wrong shape with -32602), calls fn, and encodes its R.
func handle[P, R any](fn func(*Server, P) (R, *Error)) methodHandler {
	return handleConn(func(s *Server, _ *conn, p P) (R, *Error) { return fn(s, p) })
}

// handleConn is handle for a method bound to the connection that calls
// it: a stream to it, its attachment, its size, its peer.
func handleConn[P, R any](fn func(*Server, *conn, P) (R, *Error)) methodHandler {
	return func(s *Server, c *conn, raw json.RawMessage) (any, *Error) {
		var p P
		if err := decodeParams(raw, &p); err != nil {
			return nil, err
		}
		r, rpcErr := fn(s, c, p)
		if rpcErr != nil {
			return nil, rpcErr
		}
		return r, nil
	}
}

// call runs one request from connection c through the guard every method
// shares and returns its result or its error: the config is read again
// before a call that may name a harness or a host (config.go), and a
// panic in a handler is answered as an internal error and logged; it does
// not end the server and the harnesses with it.
func (s *Server) call(c *conn, req Request) (result any, rpcErr *Error) {
	defer func() {
		if r := recover(); r != nil {
			s.opt.Logger.Error("panic in a call", "method", req.Method, "panic", r, "stack", string(debug.Stack()))
			result, rpcErr = nil, errorf(proto.CodeInternalError, "Internal error: %v", r)
		}
	}()
	h, ok := methods[req.Method]
	if !ok {
		return nil, errorf(proto.CodeMethodNotFound, "Method not found: %q", clipText(req.Method))
	}
	s.configBeforeStart(c, req.Method)
	return h(s, c, req.Params)
}

// hello answers MethodHello: who answers, and the wire's version.
func (s *Server) hello(struct{}) (proto.HelloResult, *Error) {
	return proto.HelloResult{Version: s.opt.Version, Pid: s.pid, Protocol: proto.ProtocolVersion}, nil
}

// killServer answers MethodKill; the connection then has the server stop
// (conn.run), once the answer is queued.
func (s *Server) killServer(struct{}) (proto.KillResult, *Error) {
	s.opt.Logger.Info("kill requested by a client")
	return proto.KillResult{Pid: s.pid}, nil
}

// look answers MethodLook: the chat c's user sees now ("" for none).
func (s *Server) look(c *conn, p proto.LookParams) (struct{}, *Error) {
	s.opt.Mux.Look(c, p.ID)
	return struct{}{}, nil
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
	j.Unread, j.StatusFrom, j.Failed, j.Failure = live.Unread, live.StatusFrom, live.Failed, live.Failure
	j.SignIn = live.SignIn
	if live.Usage != nil {
		j.Usage = live.Usage // else the chat file's, as last said
	}
	if e.Meta != nil && e.Meta.Sandbox {
		spec, _ := s.table().Get(e.Meta.Harness)
		j.Sandbox = spec.SandboxJSON(e.Meta, s.opt.Store.Home(), os.Environ())
	}
	return j
}

// liveOf is the part of a chat's view that its state gives (view, and
// _acpmux/live for clients that read the chat files themselves).
func liveOf(id string, st proto.State) proto.LiveChat {
	l := proto.LiveChat{ID: id, Status: st.Status.String(), Unread: st.Unread, FoldersVia: st.FoldersVia,
		PendingDirectories: st.PendingDirectories, PendingFiles: st.PendingFiles, Usage: st.Usage, SignIn: st.SignIn}
	if st.Status.Live() {
		l.StatusFrom = string(st.StatusFrom)
	}
	if st.Status == proto.StatusFailed {
		l.Failed, l.Failure = st.Reason, proto.FailureOf(st)
	}
	return l
}

// liveStates answers _acpmux/live: every chat the mux holds or the revival
// queue waits to start, without reading a chat file.
func (s *Server) liveStates(struct{}) (proto.LiveResult, *Error) {
	ids := append(s.opt.Mux.Known(), s.revivals.ids()...)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	res := proto.LiveResult{Chats: make([]proto.LiveChat, len(ids))}
	for i, id := range ids {
		res.Chats[i] = liveOf(id, s.chatState(id))
	}
	return res, nil
}

// list answers MethodList: every chat, with its live status.
func (s *Server) list(struct{}) (proto.ListResult, *Error) {
	entries, err := s.opt.Store.List()
	if err != nil {
		return proto.ListResult{}, errorf(proto.CodeFailed, "list chats: %v", err)
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

// refused is a refusal of the chat service as it goes on the wire:
// -32602, the reason in data.refusal (proto.DataRefusal).
func refused(reason string) *Error {
	return &Error{Code: proto.CodeInvalidParams, Message: "Invalid params: " + reason, Data: map[string]any{proto.DataRefusal: reason}}
}

// failure turns an error of the chat service, the store or the mux into
// an answer: every refusal of outside input (the shared validator's, the
// chat service's) is -32602, an unknown chat -32002, the rest -32000.
func failure(err error) *Error {
	if fe, ok := sessions.AsFolderError(err); ok {
		return folderRefusal(fe)
	}
	if ne, ok := sessions.AsNameError(err); ok {
		return refused(ne.Error())
	}
	if pe, ok := sessions.AsProjectError(err); ok {
		return refused(pe.Error())
	}
	if r, ok := chatsvc.AsRefusal(err); ok {
		return refused(r.Error())
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

// start answers MethodStart: the chat's harness started unless it runs.
func (s *Server) start(p proto.ChatParams) (proto.ChatJSON, *Error) {
	return s.lifecycle(proto.MethodStart, p)
}

// stop answers MethodStop: the chat's harness stopped.
func (s *Server) stop(p proto.ChatParams) (proto.ChatJSON, *Error) {
	return s.lifecycle(proto.MethodStop, p)
}

// restart answers MethodRestart: the chat's harness stopped and started
// again with its stored folders.
func (s *Server) restart(p proto.ChatParams) (proto.ChatJSON, *Error) {
	return s.lifecycle(proto.MethodRestart, p)
}

// lifecycle starts, stops or restarts a chat's harness and answers the chat
// as it is then.
func (s *Server) lifecycle(method string, p proto.ChatParams) (proto.ChatJSON, *Error) {
	var none proto.ChatJSON
	if p.ID == "" {
		return none, errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	}
	if p.Cols < 0 || p.Cols > proto.MaxCols || p.Rows < 0 || p.Rows > proto.MaxRows {
		return none, errorf(proto.CodeInvalidParams, "Invalid params: cols must be 0..%d and rows 0..%d", proto.MaxCols, proto.MaxRows)
	}
	if _, err := s.opt.Store.Load(p.ID); err != nil {
		return none, failure(err)
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
		return none, failure(err)
	}
	// Read again: a first start may have stored the harness's session id.
	m, lerr := s.opt.Store.Load(p.ID)
	if lerr != nil {
		return none, failure(fmt.Errorf("chat %s after %s: %w", p.ID, strings.TrimPrefix(method, "_acpmux/"), lerr))
	}
	return s.view(sessions.Entry{ID: m.ID, Meta: m}), nil
}
