package proto

// This file is the part of the wire through which a client reads and
// writes the chat store without a store of its own: the TUI's list, its
// fork, side chat and handoff, delete, the picker's folders and its inline
// refusals. The server is the one source of chats; a client that holds no
// chat store of its own does everything through these methods.

// The methods of the chat store.
const (
	// MethodChat ({id} → chat JSON) answers one chat as _acpmux/list
	// lists it.
	MethodChat = "_acpmux/chat"
	// MethodDerive ({id, origin, harness?, cwd?, name?, capsule?, worktree?} → chat
	// JSON) makes a fork, side chat or handoff of chat id, as `acpmux-tui
	// fork`, `side` and `handoff` do: the parent's folders and files
	// carried, the new chat's own folder dropped from them, a name derived
	// from the parent's unless one is given, and capsule (what was said in
	// the parent, built and reviewed by the client) stored as its first
	// message. Nothing is started.
	MethodDerive = "_acpmux/derive"
	// MethodRemove ({id, force?, dryRun?} → {id, home, files, removed})
	// deletes a chat: its harness is stopped and its screen dropped, then
	// its file and its own folder go (a project folder and the additional
	// folders are never touched). An own folder with files in it is kept,
	// and the call refused, unless force is set. With dryRun nothing
	// changes: the answer says what the folder holds, for a client to ask
	// first.
	MethodRemove = "_acpmux/remove"
	// MethodRemoveMissing ({id} → {chat, folders, files}) drops the chat's
	// stored folders and files that fail the check of every start (the one
	// key that fixes a refused start), and answers what it dropped; a
	// running chat takes the change at the end of its turn.
	MethodRemoveMissing = "_acpmux/removeMissing"
	// MethodAddFolders ({id, additionalDirectories} → chat JSON) adds
	// folders to a chat as `acpmux-tui add-dir` does: the whole new list
	// through the shared validator, a refusal changes nothing.
	MethodAddFolders = "_acpmux/addFolders"
	// MethodRemoveFolders ({id, additionalDirectories} → chat JSON) takes
	// folders out of a chat as `acpmux-tui rm-dir` does: each matched as
	// given, cleaned or canonical (a folder that has gone can be taken
	// out); one that matches nothing changes nothing.
	MethodRemoveFolders = "_acpmux/removeFolders"
	// MethodValidate ({cwd?, additionalDirectories?, additionalFiles?} →
	// {additionalDirectories, additionalFiles}) runs lists through the
	// shared validator, with the agent home's rule, and answers their
	// canonical forms or the one -32602 refusal of both; nothing is
	// stored. It is the folder picker's inline check.
	MethodValidate = "_acpmux/validate"
)

// IDParams are the params of MethodChat and MethodRemoveMissing.
type IDParams struct {
	ID string `json:"id"`
}

// DeriveParams are the params of MethodDerive. Origin is "fork", "side"
// or "handoff"; Harness (a handoff's, required for one), Cwd (absolute: a
// project for the new chat), Name and Capsule may be left out.
type DeriveParams struct {
	ID      string `json:"id"`
	Origin  string `json:"origin"`
	Harness string `json:"harness,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
	Name    string `json:"name,omitempty"`
	Capsule string `json:"capsule,omitempty"`
	// Worktree, for a fork, asks for a git worktree of its own (true) or
	// none (false), as `fork --worktree[=false]` does; left out, a fork of
	// a worktree chat gets one and any other fork none.
	Worktree *bool `json:"worktree,omitempty"`
	// MakeCapsule asks the server to write the capsule itself, from the
	// chat as it runs it, when Capsule is empty: what a client on another
	// machine sends (--host), whose harness table and chat files are not
	// the host's.
	MakeCapsule bool `json:"makeCapsule,omitempty"`
	// Sandbox asks for a sandboxed chat (true) or not (false); left out,
	// the new chat is as its parent.
	Sandbox *bool `json:"sandbox,omitempty"`
}

// MethodCapsule answers the capsule a derivation (DeriveParams; capsule
// and makeCapsule unused) would carry, written by the server from the chat
// as it runs it, so a client can show and edit it first; nothing is made.
const MethodCapsule = "_acpmux/capsule"

// CapsuleResult is the answer to MethodCapsule ("" when the derivation
// carries none: a side chat, a fork the harness makes natively).
type CapsuleResult struct {
	Text string `json:"text"`
}

// RemoveParams are the params of MethodRemove.
type RemoveParams struct {
	ID     string `json:"id"`
	Force  bool   `json:"force,omitempty"`
	DryRun bool   `json:"dryRun,omitempty"`
	// DeleteBranch also deletes a worktree chat's branch (kept otherwise).
	DeleteBranch bool `json:"deleteBranch,omitempty"`
}

// RemoveReport is the answer to MethodRemove: the chat's own folder (""
// for a chat with a project) and how many entries it holds, and whether
// the chat was removed (false for a dry run).
type RemoveReport struct {
	ID      string `json:"id"`
	Home    string `json:"home"`
	Files   int    `json:"files"`
	Removed bool   `json:"removed"`
	// Worktree is a worktree chat's worktree folder, removed with it
	// (git worktree remove); Branch its branch, kept unless asked.
	Worktree string `json:"worktree,omitempty"`
	Branch   string `json:"branch,omitempty"`
	// WorktreeWork names what removing the worktree would lose: its
	// uncommitted changes, the commits on no other branch, and the other
	// chats that run in it. A removal without force is refused while
	// there is any.
	WorktreeWork []string `json:"worktreeWork,omitempty"`
}

// RemoveMissingResult is the answer to MethodRemoveMissing: the chat as
// stored then, and the folders and files dropped, each with why.
type RemoveMissingResult struct {
	Chat    ChatJSON        `json:"chat"`
	Folders []FolderProblem `json:"folders"`
	Files   []FolderProblem `json:"files"`
}

// FoldersParams are the params of MethodAddFolders and
// MethodRemoveFolders; the list is required.
type FoldersParams struct {
	ID                    string   `json:"id"`
	AdditionalDirectories []string `json:"additionalDirectories"`
}

// ValidateParams are the params of MethodValidate. Cwd is the chat's own
// folder (absolute), or "" when it has none yet (a new chat with no
// project).
type ValidateParams struct {
	Cwd                   string   `json:"cwd,omitempty"`
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
	AdditionalFiles       []string `json:"additionalFiles,omitempty"`
}

// ValidateResult is the answer to MethodValidate: the lists in canonical
// form, each entry once, in order; always arrays.
type ValidateResult struct {
	AdditionalDirectories []string `json:"additionalDirectories"`
	AdditionalFiles       []string `json:"additionalFiles"`
}
