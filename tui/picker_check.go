package tui

import (
	"errors"
	"fmt"
	"slices"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

// This file holds what the folder picker checks and stores, off the UI
// goroutine: each pick through the shared validator, and accept.

// check runs one picked folder or file, typed or browsed, through
// checkPicked in a command; the answer selects it or shows the refusal
// inline.
func (p *FolderPicker) check(path string, browsed bool) tea.Cmd {
	p.busy = true
	owner, cwd, takeOut, lists, files := p.owner, p.cwd, p.chatID != "", p.lists, p.pickFiles
	already := slices.Clone(p.already)
	if files {
		already = slices.Clone(p.alreadyFiles)
	}
	return func() tea.Msg {
		canon, have, err := checkPicked(lists, cwd, already, path, files)
		if have != "" && takeOut {
			return pickerValidatedMsg{owner: owner, browsed: browsed, have: have, files: files}
		}
		return pickerValidatedMsg{owner: owner, canon: canon, err: err, browsed: browsed, files: files}
	}
}

// checkPicked is the picker's one check of a folder (or, with files, a
// single file) the user picked, the same whether it was typed or browsed:
// the server's shared validator (which refuses the chat's own folder, a
// relative path, the wrong kind of entry, one that does not exist, the
// agent home and anything inside it), then, for an entry the chat already
// has (compared in canonical form so a symlink to it is caught too), the
// chat's own entry for it in have, and a refusal in the validator's own
// form for a picker that only adds.
func checkPicked(lists ChatLists, cwd string, already []string, path string, files bool) (canon []string, have string, err error) {
	canonical, field, what := sessions.Canonical, "", "folder"
	if files {
		canonical, field, what = sessions.CanonicalFile, proto.FieldFiles, "file"
		_, canon, err = validateLists(lists, cwd, nil, []string{path})
	} else {
		canon, _, err = validateLists(lists, cwd, []string{path}, nil)
	}
	if err != nil {
		return nil, "", err
	}
	for _, h := range already {
		c, err := canonical(h)
		if h == canon[0] || (err == nil && c == canon[0]) {
			return nil, h, &sessions.FolderError{Count: 1, Field: field, Problems: []proto.FolderProblem{
				{Index: 0, Path: path, Reason: "already a " + what + " of this chat", Field: field},
			}}
		}
	}
	return canon, "", nil
}

// validateLists validates folders and files picked together through the
// server's shared validator and refuses both at once, as a new chat's
// lists are.
func validateLists(lists ChatLists, cwd string, dirs, files []string) ([]string, []string, error) {
	if lists == nil {
		return nil, nil, errors.New("no server to check the folders with")
	}
	return lists.Validate(cwd, dirs, files)
}

// accept stores the chosen folders and files in the chat, or validates
// them and hands them back; a refusal stays inline and nothing is stored.
func (p *FolderPicker) accept() tea.Cmd {
	if len(p.chosen) == 0 && len(p.drop) == 0 && len(p.chosenFiles) == 0 && len(p.dropFiles) == 0 && p.chatID != "" {
		p.errText = "nothing selected: type a folder or file and press enter, or select with space"
		return nil
	}
	p.busy = true
	owner, cwd, lists := p.owner, p.cwd, p.lists
	chosen, chosenFiles := slices.Clone(p.chosen), slices.Clone(p.chosenFiles)
	if p.chatID == "" {
		return func() tea.Msg {
			dirs, files, err := validateLists(lists, cwd, chosen, chosenFiles)
			if err != nil {
				return pickerValidatedMsg{owner: owner, err: err}
			}
			return pickerDoneMsg{owner, dirs, files}
		}
	}
	pick := picked{id: p.chatID, cwd: cwd, chosen: chosen, drop: slices.Clone(p.drop),
		chosenFiles: chosenFiles, dropFiles: slices.Clone(p.dropFiles)}
	return func() tea.Msg {
		msg := storePicked(lists, pick)
		msg.owner = owner
		return msg
	}
}

// picked is what accept stores in chat id.
type picked struct {
	id, cwd                string
	chosen, drop           []string
	chosenFiles, dropFiles []string
}

// storePicked stores the picker's answer through the server: the folders
// taken out go as rm-dir takes them out (removeFolders), then those chosen
// are added as add-dir adds them (addFolders); then the chat's files, less
// those taken out and with those chosen, are set (setFiles). Everything
// chosen is checked first, folders and files in one refusal, so a refusal
// stores nothing.
func storePicked(lists ChatLists, pk picked) pickerStoredMsg {
	if len(pk.chosen) > 0 || len(pk.chosenFiles) > 0 {
		if _, _, err := validateLists(lists, pk.cwd, pk.chosen, pk.chosenFiles); err != nil {
			return pickerStoredMsg{err: err}
		}
	}
	e, err := lists.Chat(pk.id)
	if err == nil && e.Meta == nil {
		err = e.Broken
	}
	if err != nil {
		return pickerStoredMsg{err: err}
	}
	before := e.Meta
	out := storePickedFolders(lists, before, pk)
	if out.err != nil || (len(pk.chosenFiles) == 0 && len(pk.dropFiles) == 0) {
		return out
	}
	folders := out.added > 0 || out.removed > 0
	fail := func(err error) pickerStoredMsg {
		if folders {
			err = fmt.Errorf("folders stored, but not the files: %w", err)
		}
		out.err = err
		return out
	}
	var files []string
	for _, f := range before.AdditionalFiles {
		if !slices.Contains(pk.dropFiles, f) {
			files = append(files, f)
		}
	}
	kept := len(files)
	for _, f := range pk.chosenFiles {
		if !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	m, err := lists.SetFiles(pk.id, files)
	if err != nil {
		return fail(err)
	}
	out.meta = m
	out.filesRemoved = len(before.AdditionalFiles) - kept
	out.filesAdded = len(m.AdditionalFiles) - kept
	return out
}

// storePickedFolders stores the folders of the picker's answer.
func storePickedFolders(lists ChatLists, before *sessions.Meta, pk picked) pickerStoredMsg {
	m, removed, err := before, 0, error(nil)
	if len(pk.drop) > 0 {
		if m, err = lists.RemoveFolders(pk.id, pk.drop); err != nil {
			return pickerStoredMsg{err: err}
		}
		removed = len(before.AdditionalDirectories) - len(m.AdditionalDirectories)
	}
	if len(pk.chosen) > 0 {
		kept := len(m.AdditionalDirectories)
		if m, err = lists.AddFolders(pk.id, pk.chosen); err != nil {
			if removed > 0 {
				err = fmt.Errorf("%s taken out, but none added: %w", plural(removed, "folder"), err)
				return pickerStoredMsg{removed: removed, err: err}
			}
			return pickerStoredMsg{err: err}
		}
		return pickerStoredMsg{meta: m, added: len(m.AdditionalDirectories) - kept, removed: removed}
	}
	return pickerStoredMsg{meta: m, removed: removed}
}
