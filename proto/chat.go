package proto

// This file is a chat as it crosses the socket and as `--json` prints it,
// and the refusal of a folder or file of one: the shapes package sessions
// makes, which the server answers and its clients read.

// ChatJSON is a chat as `--json` prints it and the server answers it
// (MethodList, MethodChat, ...). Package sessions makes it from a chat file.
type ChatJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Title is the title the chat's agent gave its session (ACP's
	// session_info_update), cleaned; absent when it gave none.
	Title                 string   `json:"title,omitempty"`
	Harness               string   `json:"harness"`
	Cwd                   string   `json:"cwd"`
	AdditionalDirectories []string `json:"additionalDirectories"`
	AdditionalFiles       []string `json:"additionalFiles"`
	Parent                string   `json:"parent"`
	Origin                string   `json:"origin"`
	AgentSessionID        string   `json:"agentSessionId"`
	Status                string   `json:"status"`
	FoldersVia            string   `json:"foldersVia"`
	// FilesVia is how the single files reach the harness: "acp", "flag",
	// "env", or "none" for a chat without files.
	FilesVia string `json:"filesVia"`
	// FoldersViaExpected is set while FoldersVia is the harness table's
	// expectation, before the chat's first start says how it really went.
	FoldersViaExpected bool `json:"foldersViaExpected,omitempty"`
	// PendingDirectories is, while a running chat has not yet taken a
	// change of its folders (it does at the end of its turn), the list it
	// will take; absent otherwise.
	PendingDirectories []string `json:"pendingDirectories,omitempty"`
	// PendingFiles is the same for a change of the chat's single files:
	// the list a running chat will take at the end of its turn.
	PendingFiles []string `json:"pendingFiles,omitempty"`
	// StatusFrom says where a live status comes from: "hooks" (Claude
	// Code's), "notify" (Codex's turn ends; the rest inferred), "acp" (the
	// protocol) or "screen" (inferred from what the harness prints).
	StatusFrom string `json:"statusFrom,omitempty"`
	// Unread is set when the chat asked for its user or finished a turn
	// since anyone last looked at it.
	Unread bool `json:"unread,omitempty"`
	// NoProject is set when the chat has no project: its cwd is its own
	// folder, homes/<id> in the agent home.
	NoProject bool `json:"noProject,omitempty"`
	// HasCapsule is set when the chat's first message is a capsule of its
	// parent's conversation (a handoff, or a fork made as one).
	// (The capsule's text is "capsule" in what fork and handoff print.)
	HasCapsule bool `json:"hasCapsule,omitempty"`
	// Worktree is the chat's git worktree, absent when it has none.
	Worktree *WorktreeJSON `json:"worktree,omitempty"`
	// Baseline is what the chat's review compares with (recorded at its
	// first start), absent before it.
	Baseline *BaselineJSON `json:"baseline,omitempty"`
	Created  string        `json:"created,omitempty"`
	Broken   string        `json:"broken,omitempty"`
	// Sandbox is a sandboxed chat's bound (absent for a chat that is not
	// sandboxed): what its harness may write, what it may not read.
	Sandbox *SandboxJSON `json:"sandbox,omitempty"`
	// Failed is, for a chat whose status is failed, why (LiveChat.Failed).
	Failed string `json:"failed,omitempty"`
	// Failure is, for a chat whose status is failed, how its harness last
	// ended (LiveChat.Failure); absent otherwise.
	Failure *FailureJSON `json:"failure,omitempty"`
	// Usage is, for an ACP chat whose agent said it, its context window
	// and cost (LiveChat.Usage).
	Usage *Usage `json:"usage,omitempty"`
	// SignIn is, for an ACP chat whose agent wants a sign-in, the ways it
	// offered (LiveChat.SignIn).
	SignIn []SignIn `json:"signIn,omitempty"`
}

// FailureJSON is how a failed chat's harness last ended, as `show` prints
// it under the reason: what it said, how it was started, how it ended.
type FailureJSON struct {
	// Said is the line the harness printed that says why it ended
	// (State.LastOutput); absent when it printed none (an ACP harness).
	Said string `json:"said,omitempty"`
	// Command is the argument vector of its last start (State.Argv).
	Command []string `json:"command,omitempty"`
	// Exit is how its last process ended (State.Exit): "exit status 1",
	// "killed by SIGKILL".
	Exit string `json:"exit"`
}

// FailureOf is the failure st describes: nil when it is not failed, or
// failed with no process ended (a start refused before one ran, whose
// Argv, if any, is an earlier start's).
func FailureOf(st State) *FailureJSON {
	if st.Status != StatusFailed || st.Exit == "" {
		return nil
	}
	return &FailureJSON{Said: st.LastOutput, Command: st.Argv, Exit: st.Exit}
}

// SandboxJSON is a sandboxed chat's bound as a start would apply it now,
// from its folders and files and the harness's state.
type SandboxJSON struct {
	// Summary is the bound in one line: "landlock · writes: folder,
	// 2 folders, 1 file, tmp, ~/.claude · .git/hooks read-only".
	Summary string `json:"summary"`
	// Writable are the folders the harness may write in; WritableFiles
	// the single files it may write in place.
	Writable      []string `json:"writable"`
	WritableFiles []string `json:"writableFiles"`
	// Hidden are the folders it may not even read (the agent home).
	Hidden []string `json:"hidden"`
	// ReadOnly are paths inside writable folders kept read-only
	// (.git/hooks, .git/config).
	ReadOnly []string `json:"readOnly"`
	// Refused says why a start cannot apply the bound ("" when it can be
	// computed; the kernel's own refusal shows in the chat's last error).
	Refused string `json:"refused,omitempty"`
}

// WorktreeJSON is a chat's worktree as `--json` prints it
// (sessions.WorktreeFromJSON reads it back).
type WorktreeJSON struct {
	Path    string `json:"path"`
	Branch  string `json:"branch"`
	Base    string `json:"base"`
	BaseRef string `json:"baseRef"`
	Repo    string `json:"repo"`
	// Missing is set when the worktree's folder is gone (removed by hand).
	Missing bool `json:"missing"`
}

// BaselineJSON is a chat's baseline as `--json` and the server print it
// (the review's starting point; see sessions.Baseline).
type BaselineJSON struct {
	At      string               `json:"at"`
	Head    string               `json:"head,omitempty"`
	Folders []FolderBaselineJSON `json:"folders,omitempty"`
}

// FolderBaselineJSON is one additional folder's baseline as printed.
type FolderBaselineJSON struct {
	Path  string `json:"path"`
	Head  string `json:"head,omitempty"`
	Since string `json:"since,omitempty"`
}

// FolderProblem is one refused entry: where it was in the list, its text as
// given, and why it was refused.
type FolderProblem struct {
	Index  int    `json:"index"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
	// Field is FieldFiles for an entry of the additionalFiles list, and
	// empty for one of additionalDirectories.
	Field string `json:"field,omitempty"`
}

// FieldFiles names the list of single files a chat sees, as FolderProblem
// and the validator's refusals mark it ("additionalFiles" in JSON,
// additional_files in the chat file).
const FieldFiles = "additionalFiles"
