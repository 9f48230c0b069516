package proto

import "fmt"

// DataRefusal is the key, in the data of a -32602 error, of the reason a
// server's chat service refused the call for (an unknown harness, a
// worktree where none can be made, a name or project folder no chat may
// have): outside input refused, as a folder list the shared validator
// refuses is (whose data has "entries" instead). A client tells these
// refusals from other invalid params by it: the command line exits 2 on
// them, as it does on the same refusal made here.
const DataRefusal = "refusal"

// FoldersGoneError refuses a start because stored folders or files are no
// longer usable. It names each one and why (a file's problem has Field
// FieldFiles); the chat's lists are left as stored.
type FoldersGoneError struct {
	ChatID   string
	Problems []FolderProblem
	// Running is set when a restart was refused and the harness it would
	// have stopped keeps running.
	Running bool
}

// Error names every folder and file that stops the start.
func (e *FoldersGoneError) Error() string {
	s := fmt.Sprintf("chat %s not started: ", e.ChatID)
	if e.Running {
		s = fmt.Sprintf("chat %s not restarted, its harness keeps running: ", e.ChatID)
	}
	folders, files := false, false
	for i, p := range e.Problems {
		if i > 0 {
			s += "; "
		}
		what := "folder"
		if p.Field == FieldFiles {
			what, files = "file", true
		} else {
			folders = true
		}
		s += fmt.Sprintf("%s %s %s", what, p.Path, p.Reason)
	}
	missing := "folders"
	switch {
	case folders && files:
		missing = "folders and files"
	case files:
		missing = "files"
	}
	return s + " (remove the missing " + missing + ", or restore them)"
}
