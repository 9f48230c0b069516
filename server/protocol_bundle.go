package server

// This file is the part of the wire protocol that moves a chat between
// homes and machines (issue 22): export writes one chat's bundle, import
// adds a chat from one under the roots guard. The types are the contract
// shared by the server's methods, the commands and the TUI.

const (
	// MethodExport ({id, path} → ExportReport) writes the chat's bundle to
	// path (absolute), atomically: a temp file in the same folder, renamed.
	MethodExport = "_acpmux/export"
	// MethodImport ({path, roots, dryRun} → ImportReport) adds a chat from
	// the bundle at path, keeping its folders only inside roots (absolute
	// folders). With dryRun nothing is written anywhere: the report says
	// what would be kept and dropped.
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

// ExportReport is the answer to MethodExport: where the bundle went, how
// big it is, and how the conversation was carried.
type ExportReport struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
	// Conversation is "exact", "capsule" or "none".
	Conversation string `json:"conversation"`
	// Source is what the bundle's conversation/ holds: "claude-session",
	// "codex-session", "acp-transcript", "scrollback" or "".
	Source string `json:"source"`
	// Notes say what the export had to cut or leave out (an ACP turn in
	// progress, exported up to its last complete update).
	Notes []string `json:"notes"`
	// Host is the machine the bundle was written on.
	Host string `json:"host"`
}

// Dropped is a folder or file of a bundle that an import leaves out, and
// why.
type Dropped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// ImportReport is the answer to MethodImport: the chat made (or, for a dry
// run, the one that would be), what of its folders and files the guard kept
// and dropped, and how the conversation came over.
type ImportReport struct {
	Host   string `json:"host"`
	DryRun bool   `json:"dryRun"`
	// ID is the new chat's id ("" for a dry run, which makes none).
	ID      string `json:"id"`
	Name    string `json:"name"`
	Harness string `json:"harness"`
	// Parent is the exported chat's id.
	Parent string `json:"parent"`
	Cwd    string `json:"cwd"`
	// CwdFresh is set when a chat with no project got a fresh home folder
	// here.
	CwdFresh     bool      `json:"cwdFresh"`
	Kept         []string  `json:"additionalDirectories"`
	Dropped      []Dropped `json:"droppedDirectories"`
	KeptFiles    []string  `json:"additionalFiles"`
	DroppedFiles []Dropped `json:"droppedFiles"`
	// Conversation is "exact", "capsule" or "none".
	Conversation string `json:"conversation"`
	// How says how the conversation came over, in one sentence.
	How   string   `json:"how"`
	Notes []string `json:"notes"`
}
