package proto

import "github.com/acpmux/acpmux-tui/internal/transfer/report"

// This file is the wire of moving chats between homes and machines
// (`acpmux-tui export` and `import`, the TUI's e and i).

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

// ExportReport is the answer to MethodExport.
type ExportReport = report.ExportReport

// ImportReport is the answer to MethodImport.
type ImportReport = report.ImportReport

// Dropped is one folder or file an import left out, and why.
type Dropped = report.Dropped

// MaxTransferRoots bounds the roots one import may name.
const MaxTransferRoots = 64
