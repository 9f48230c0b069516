package main

import (
	"fmt"
	"slices"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file holds the single files of a chat on the command line:
// add-file, rm-file, and the files rows of `show`.

// addFiles adds files to a chat as add-dir adds folders: each path
// resolved against the caller ("~", relative), a file the chat has already
// kept in place and said so, the whole list through the shared validator
// (a refusal exits 2 and writes nothing), then a running server told.
func (a *app) addFiles(ref string, files []string) error {
	e, err := a.resolve(ref)
	if err != nil {
		return err
	}
	files = a.absPaths(files)
	if e.Meta != nil {
		var fresh, had []string
		for _, f := range files {
			if c, err := sessions.CanonicalFile(f); err == nil && slices.Contains(e.Meta.AdditionalFiles, c) {
				had = append(had, c)
			} else {
				fresh = append(fresh, f)
			}
		}
		for _, f := range had {
			fmt.Fprintf(a.stderr, "acpmux-tui: chat %s already has %s\n", e.ID, f)
		}
		if len(fresh) == 0 {
			fmt.Fprintf(a.stdout, "chat %s already has every file given: nothing changed\n", e.ID)
			return nil
		}
		files = fresh
	}
	m, err := a.store.AddFiles(e.ID, files)
	if err != nil {
		return err
	}
	return a.foldersStored(m, "files")
}

// removeFiles takes files out of a chat as rm-dir takes folders out; a
// file that has gone can still be named.
func (a *app) removeFiles(ref string, files []string) error {
	e, err := a.resolve(ref)
	if err != nil {
		return err
	}
	m, err := a.store.RemoveFiles(e.ID, a.absPaths(files))
	if err != nil {
		return err
	}
	return a.foldersStored(m, "files")
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
