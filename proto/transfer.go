package proto

// This file is the wire of moving chats between homes and machines
// (`acpmux-tui export` and `import`, the TUI's e and i): the calls, and the
// reports they answer, which `import --json` also prints.

// The transfer methods.
const (
	// MethodExport ({id, path} → ExportReport) writes the chat's bundle to
	// path (absolute) atomically: a temp file in the same folder, then a
	// rename. A running chat is exported as it stands: an ACP turn in
	// progress up to its last complete update, which the report's notes
	// say.
	MethodExport = "_acpmux/export"
	// MethodImport ({path, roots, dryRun} → ImportReport) adds the chat of
	// the bundle at path (absolute) under a new id, keeping only the
	// folders and files inside roots (absolute folders that exist). With
	// dryRun no chat and no session log is written: the report says what
	// would be kept and dropped. A refused bundle, root or cwd is
	// CodeInvalidParams naming it, and nothing is written.
	MethodImport = "_acpmux/import"
)

// ExportParams are the params of MethodExport.
type ExportParams struct {
	ID   string `json:"id"`
	Path string `json:"path"`
}

// ImportParams are the params of MethodImport.
type ImportParams struct {
	Path   string   `json:"path"`
	Roots  []string `json:"roots"`
	DryRun bool     `json:"dryRun"`
}

// ExportReport is the answer to MethodExport: what an export wrote, which
// chat, where, how many bytes, and how its conversation came along.
type ExportReport struct {
	// ID and Name are the exported chat's.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Path is the bundle written ("-" for stdout).
	Path string `json:"path"`
	// Bytes is the bundle's size.
	Bytes int64 `json:"bytes"`
	// Conversation is "exact", "capsule" or "none".
	Conversation string `json:"conversation"`
	// Source is what the bundle's conversation/ holds: "claude-session",
	// "codex-session", "acp-transcript", "scrollback" or "".
	Source string `json:"source"`
	// Notes are sentences for the user (a turn in progress was cut...).
	Notes []string `json:"notes"`
	// Host is the host the export ran on.
	Host string `json:"host"`
}

// Dropped is one folder or file of an imported chat that the guard left
// out, and why.
type Dropped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// ImportReport is the answer to MethodImport: what an import did, or with
// DryRun what it would do, the new chat, what of its folders and files was
// kept and dropped, and how the conversation came over.
type ImportReport struct {
	// Host is the host the import ran on.
	Host string `json:"host"`
	// DryRun is set when nothing was written.
	DryRun bool `json:"dryRun"`
	// ID is the new chat's id ("" on a dry run).
	ID string `json:"id"`
	// Name is the new chat's name, derived from the exported one.
	Name string `json:"name"`
	// Harness is the chat's harness, as exported.
	Harness string `json:"harness"`
	// Parent is the exported chat's id.
	Parent string `json:"parent"`
	// Cwd is the new chat's folder ("" on a dry run of a chat with no
	// project, which gets one at the import).
	Cwd string `json:"cwd"`
	// CwdFresh is set when the chat had no project and got a fresh home
	// folder here.
	CwdFresh bool `json:"cwdFresh"`
	// Kept are the folders kept, canonical on this host.
	Kept []string `json:"additionalDirectories"`
	// Dropped are the folders left out, each with the reason.
	Dropped []Dropped `json:"droppedDirectories"`
	// KeptFiles are the single files kept.
	KeptFiles []string `json:"additionalFiles"`
	// DroppedFiles are the single files left out, each with the reason.
	DroppedFiles []Dropped `json:"droppedFiles"`
	// Conversation is how the conversation came over: "exact", "capsule"
	// or "none".
	Conversation string `json:"conversation"`
	// How says in one sentence how the conversation came over.
	How string `json:"how"`
	// SandboxWas is whether the exported chat was sandboxed; Sandbox
	// whether it is here (a bundle cannot turn a sandbox off: it is on
	// when it was, or when this host's config sandboxes such chats).
	SandboxWas bool `json:"sandboxWas"`
	Sandbox    bool `json:"sandbox"`
	// Notes are further sentences for the user.
	Notes []string `json:"notes"`
}

// MaxTransferRoots bounds the roots one import may name.
const MaxTransferRoots = 64
