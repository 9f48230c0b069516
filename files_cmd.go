package main

import (
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file holds the single files of a chat on the command line:
// add-file, rm-file, and the files rows of `show`.

// filesOptions are add-file's and rm-file's arguments.
type filesOptions struct {
	ref    string
	files  []string
	remove bool // rm-file
}

// filesRun adds single files to a chat as add-dir adds folders, or takes
// them out as rm-dir does (remove): each path resolved against the caller
// ("~", relative), a file the chat has already kept in place and said so,
// the whole list through the shared validator (a refusal exits 2 and
// writes nothing), then a running server told; a file that has gone can
// still be taken out.
func filesRun(a *app, o filesOptions) error {
	return a.onTarget("", func(t *target) error {
		e, err := t.chats.Resolve(o.ref)
		if err != nil {
			return err
		}
		files, err := t.paths("--file", o.files)
		if err != nil {
			return err
		}
		var m *sessions.Meta
		if o.remove {
			m, err = a.service().RemoveFiles(e.ID, files)
		} else {
			if files = t.fresh(e, files, "file"); len(files) == 0 {
				return nil
			}
			m, err = a.service().AddFiles(e.ID, files)
		}
		if err = t.untold(err); err != nil {
			return err
		}
		return t.print(m, false, "")
	})
}

// fileRows prints the `files` rows of `show`, as the folders rows are
// printed: one file a line, a file that fails the check of every start
// marked with the reason.
func fileRows(row func(k, v string), v proto.ChatJSON) {
	if len(v.AdditionalFiles) == 0 {
		row("files", "(none)")
		return
	}
	bad := map[int]string{}
	for _, p := range sessions.CheckStoredFiles(v.AdditionalFiles) {
		bad[p.Index] = p.Reason
	}
	for i, f := range v.AdditionalFiles {
		label := ""
		if i == 0 {
			label = "files"
		}
		if reason, missing := bad[i]; missing {
			f += "  ✗ " + reason + " (rm-file removes it)"
		}
		row(label, f)
	}
}
