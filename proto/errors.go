package proto

import "fmt"

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
