package proto

import "strings"

// This file is the wire protocol as clients see it: the socket's place, the
// method names, their params and results, and the error codes. The client
// package speaks it from the other side.

// SocketName is the server's socket inside the agent home.
const SocketName = "acpmux.sock"

// LockName is the file inside the agent home that a running server holds
// locked (flock) for its whole life; it records the server's pid.
const LockName = "acpmux.lock"

// MaxLine is the longest line (one JSON-RPC message, without its newline)
// the server reads; a longer one closes the connection that sent it.
const MaxLine = 8 << 20

// The methods the server answers. They start with "_acpmux/", as ACP asks
// of extension methods, so the same socket speaks ACP too (the door: a
// connection whose first call is initialize).
const (
	// MethodHello answers {version, pid}.
	MethodHello = "_acpmux/hello"
	// MethodList answers {chats: [chat JSON with live status]}.
	MethodList = "_acpmux/list"
	// MethodNew creates a chat (it does not start it) and answers its JSON.
	MethodNew = "_acpmux/new"
	// MethodSetDirectories replaces a chat's additional folders; a running
	// chat takes them at the end of its turn.
	MethodSetDirectories = "_acpmux/setDirectories"
	// MethodSetFiles ({id, additionalFiles} → chat JSON) replaces a chat's
	// single files, as MethodSetDirectories does its folders: the whole
	// list through the shared validator (a refusal changes nothing), and a
	// running chat takes them at the end of its turn.
	MethodSetFiles = "_acpmux/setFiles"
	// MethodFoldersChanged ({id} → chat JSON) tells the server that a
	// client stored a chat's folders itself (add-dir, the TUI's picker): a
	// running chat takes them at the end of its turn, as after
	// MethodSetDirectories.
	MethodFoldersChanged = "_acpmux/foldersChanged"
	// MethodRename ({id, name} → chat JSON) renames a chat; a name that is
	// empty, too long, not one line of printable text or another chat's
	// is refused with CodeInvalidParams and nothing changes.
	MethodRename = "_acpmux/rename"
	// MethodStart starts a chat's harness unless it runs.
	MethodStart = "_acpmux/start"
	// MethodStop stops a chat's harness and waits for it.
	MethodStop = "_acpmux/stop"
	// MethodRestart stops and starts a chat's harness with its stored folders.
	MethodRestart = "_acpmux/restart"
	// MethodKill answers {pid}, then stops every harness and ends the server.
	MethodKill = "_acpmux/kill"
)

// JSON-RPC error codes the server answers with.
const (
	// CodeParseError: the line is not JSON.
	CodeParseError = -32700
	// CodeInvalidRequest: JSON, but not a JSON-RPC 2.0 request object.
	CodeInvalidRequest = -32600
	// CodeMethodNotFound: no such method.
	CodeMethodNotFound = -32601
	// CodeInvalidParams: the params are missing, of the wrong type, or
	// refused (every folder refusal of the shared validator).
	CodeInvalidParams = -32602
	// CodeInternalError: the server failed in a way the caller cannot fix.
	CodeInternalError = -32603
	// CodeFailed: the call was well formed but could not be done (a start
	// refused because a stored folder has gone, a broken chat file...).
	CodeFailed = -32000
	// CodeChatNotFound: no chat has that id (ACP's "resource not found").
	CodeChatNotFound = -32002
)

// MaxCols and MaxRows bound the pane size a call may ask for; 0 keeps the
// size the chat has (80x24 for a first start).
const (
	MaxCols = 2000
	MaxRows = 1000
)

// HelloResult is the answer to MethodHello.
type HelloResult struct {
	Version string `json:"version"`
	Pid     int    `json:"pid"`
	// Protocol is the version of this wire (ProtocolVersion); a server
	// that leaves it out speaks an older one.
	Protocol int `json:"protocol,omitempty"`
}

// ProtocolVersion is the version of the wire this build speaks. A client
// reaching another host's server over ssh refuses one that answers hello
// with another.
const ProtocolVersion = 1

// ListResult is the answer to MethodList: every chat, as `ls --json` prints
// it, with the status the server's mux reports.
type ListResult struct {
	Chats []ChatJSON `json:"chats"`
}

// MethodLive answers the live part of every chat the server runs or
// remembers a run of: what a client that reads the chat files itself (ls,
// show) lacks. A chat it does not name is stopped, never started here.
const MethodLive = "_acpmux/live"

// LiveResult is the answer to MethodLive, by id.
type LiveResult struct {
	Chats []LiveChat `json:"chats"`
}

// LiveChat is a chat's live part, the fields of ChatJSON that the
// server's view of it adds to its file.
type LiveChat struct {
	ID                 string   `json:"id"`
	Status             string   `json:"status"`
	StatusFrom         string   `json:"statusFrom,omitempty"`
	Unread             bool     `json:"unread,omitempty"`
	PendingDirectories []string `json:"pendingDirectories,omitempty"`
	PendingFiles       []string `json:"pendingFiles,omitempty"`
	// FoldersVia is how the folders reached the running (or last) harness,
	// when it says; empty leaves the harness table's expectation.
	FoldersVia string `json:"foldersVia,omitempty"`
	// Failed is, for a chat whose status is failed, why: a start refused
	// (a sandbox that cannot hold, a folder gone) or the crashes that
	// stopped its respawns.
	Failed string `json:"failed,omitempty"`
	// Failure is, for a chat whose status is failed, how its harness last
	// ended: what it said, its command, its exit (FailureOf).
	Failure *FailureJSON `json:"failure,omitempty"`
	// Usage is the context window and cost the chat's agent last said
	// (State.Usage), absent until it says.
	Usage *Usage `json:"usage,omitempty"`
	// SignIn is the ways to sign in that the chat's agent offered when it
	// answered "authentication required" (State.SignIn).
	SignIn []SignIn `json:"signIn,omitempty"`
}

// NewParams are the params of MethodNew. Every field may be left out: the
// default harness, no project (the chat's own empty folder), no folders,
// no files, a name made from the folder. A bad folder and a bad file are
// refused together, in one -32602.
type NewParams struct {
	Harness               string   `json:"harness,omitempty"`
	Cwd                   string   `json:"cwd,omitempty"`
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	AdditionalFiles       []string `json:"additionalFiles,omitempty"`
	Name                  string   `json:"name,omitempty"`
	// Worktree asks for a git worktree of the chat's own (true) or none
	// (false), as `new --worktree[=false]` does; left out, the config's
	// `worktree` default decides. True refuses a project folder outside a
	// git repository.
	Worktree *bool `json:"worktree,omitempty"`
	// WorktreeBase, with worktree true, is the ref the worktree's branch
	// starts from (`new --base REF`); default HEAD.
	WorktreeBase string `json:"worktreeBase,omitempty"`
	// Sandbox asks for a sandboxed chat (true) or not (false), as `new
	// --sandbox[=false]` does; left out, the config decides (its harness's
	// `sandbox`, else `sandbox`). A web caller cannot turn it off while
	// `[web] sandbox` is on.
	Sandbox *bool `json:"sandbox,omitempty"`
}

// SetDirectoriesParams are the params of MethodSetDirectories: the whole new
// list (an empty array clears it). The field is required.
type SetDirectoriesParams struct {
	ID                    string    `json:"id"`
	AdditionalDirectories *[]string `json:"additionalDirectories"`
}

// SetFilesParams are the params of MethodSetFiles: the whole new list of
// single files (an empty array clears it). The field is required.
type SetFilesParams struct {
	ID              string    `json:"id"`
	AdditionalFiles *[]string `json:"additionalFiles"`
}

// ChatParams are the params of MethodStart, MethodStop and MethodRestart.
// Cols and Rows size the pty (0: keep the chat's size).
type ChatParams struct {
	ID   string `json:"id"`
	Cols int    `json:"cols,omitempty"`
	Rows int    `json:"rows,omitempty"`
}

// RenameParams are the params of MethodRename.
type RenameParams struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// KillResult is the answer to MethodKill: the pid that is about to end.
type KillResult struct {
	Pid int `json:"pid"`
}

// Extension reports whether method is one of ours (it starts with
// "_acpmux/"): a connection that speaks ACP may make these calls too.
func Extension(method string) bool { return strings.HasPrefix(method, "_acpmux/") }
