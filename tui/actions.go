package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

// This file holds the commands that do the app's blocking work (the chat
// store's reads and writes, starting and stopping harnesses: all calls of
// the server) off the UI goroutine, and the messages that bring their
// results back.

// errMsg is an error to show in the status line and log.
type errMsg struct {
	what string
	err  error
}

// errMsgOf returns an errMsg for err, or nil when err is nil.
func errMsgOf(what string, err error) tea.Msg {
	if err == nil {
		return nil
	}
	return errMsg{what, err}
}

// infoMsg is a note for the status line.
type infoMsg string

// listLoadedMsg brings the chat list the server answered; selectID is the
// chat to select once it is shown.
type listLoadedMsg struct {
	entries  []sessions.Entry
	err      error
	selectID string
	// seq orders the lists asked for: one that answers after a later one
	// was shown is stale and dropped.
	seq uint64
}

// foldersCheckedMsg brings the stored folders of a chat that fail now.
type foldersCheckedMsg struct {
	id       string
	problems []proto.FolderProblem
	git      gitCheck
}

// startedMsg reports the start of a chat's harness.
type startedMsg struct {
	id  string
	err error
}

// chatCreatedMsg reports a chat created (and, for open, started). meta is
// nil when nothing was created; then err says why.
type chatCreatedMsg struct {
	meta *sessions.Meta
	err  error
	open bool
	note string // said in the status line after "created NAME"
}

// actionDoneMsg reports a store or harness action: a note or an error, and
// whether the list must be read again.
type actionDoneMsg struct {
	info   string
	err    error
	reload bool
	id     string // the chat acted on
}

// resizedMsg reports that every pty has its new size.
type resizedMsg struct{}

// tickMsg moves the clock uptimes are counted on; seq names the tick
// (Model.startTick), at is when it fired.
type tickMsg struct {
	at  time.Time
	seq int
}

// closeDialogMsg closes the open dialog.
type closeDialogMsg struct{}

func closeDialog() tea.Msg { return closeDialogMsg{} }

// newsMsg is what the server told of changes made outside this client.
type newsMsg proto.News

// waitNews delivers the server's next news.
func waitNews(ch <-chan proto.News) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		n, ok := <-ch
		if !ok {
			return nil
		}
		return newsMsg(n)
	}
}

// configRefusal words the server's refusal of the config for the status
// line, the line and the key first, as a narrow status line cuts the end:
// "config PATH: line N: KEY: why" is shown "config refused: line N: KEY:
// why (PATH)".
func configRefusal(msg string) string {
	if rest, ok := strings.CutPrefix(msg, "config "); ok {
		if path, why, ok := strings.Cut(rest, ": "); ok && strings.HasPrefix(why, "line ") {
			return "config refused: " + why + " (" + path + ")"
		}
	}
	return "config refused: " + msg
}

// loadList asks the server for the chat list.
func loadList(cs ChatStore, selectID string, seq uint64) tea.Cmd {
	return func() tea.Msg {
		entries, err := cs.List()
		return listLoadedMsg{entries, err, selectID, seq}
	}
}

// checkFolders looks at a chat's stored folders and files on disk (off
// the UI goroutine) with the check every start makes, so a folder or file
// deleted or restored since shows in the summary. A chat with neither has
// nothing to flag: its answer clears an earlier flag.
func checkFolders(e sessions.Entry) tea.Cmd {
	if e.Meta == nil {
		return nil
	}
	id, cwd, dirs := e.ID, e.Meta.Cwd, append([]string(nil), e.Meta.AdditionalDirectories...)
	files := append([]string(nil), e.Meta.AdditionalFiles...)
	var wt *sessions.Worktree
	if e.Meta.Worktree != nil {
		w := *e.Meta.Worktree
		wt = &w
	}
	if !hasFoldersToCheck(e) {
		return func() tea.Msg { return foldersCheckedMsg{id: id} }
	}
	return func() tea.Msg {
		problems := sessions.CheckStoredFolders(cwd, dirs)
		git := gitCheck{folders: gitFolders(dirs), worktreeGone: wt != nil && wt.Missing()}
		return foldersCheckedMsg{id, append(problems, sessions.CheckStoredFiles(files)...), git}
	}
}

// hasFoldersToCheck reports whether e has folders, files or a worktree on
// this machine to look at. A remote chat's are on its host: its server
// checks them at each start.
func hasFoldersToCheck(e sessions.Entry) bool {
	if e.Meta == nil || hostOf(e.ID) != "" {
		return false
	}
	return len(e.Meta.AdditionalDirectories) > 0 || len(e.Meta.AdditionalFiles) > 0 || e.Meta.Worktree != nil
}

// chatLoadedMsg brings one chat read again from the server.
type chatLoadedMsg struct{ entry sessions.Entry }

func reloadChat(cs ChatStore, id string) tea.Cmd {
	return func() tea.Msg {
		e, err := cs.Chat(id)
		if err != nil {
			return nil // the list shows it as it was; a later reload says more
		}
		return chatLoadedMsg{e}
	}
}

func startChat(m Mux, id string, cols, rows int, restart bool) tea.Cmd {
	return func() tea.Msg {
		if restart {
			return startedMsg{id, m.Restart(id, cols, rows)}
		}
		return startedMsg{id, m.Start(id, cols, rows)}
	}
}

func stopChat(m Mux, id, name string) tea.Cmd {
	return func() tea.Msg {
		m.Stop(id)
		return actionDoneMsg{info: "stopped " + name, id: id}
	}
}

func resizeAll(m Mux, cols, rows int) tea.Cmd {
	return func() tea.Msg {
		m.ResizeAll(cols, rows)
		return resizedMsg{}
	}
}

func fillPool(m Mux) tea.Cmd {
	return func() tea.Msg { return errMsgOf("prewarm harnesses", m.Fill()) }
}

func createChat(m Mux, n sessions.NewChat, cols, rows int) tea.Cmd {
	return func() tea.Msg {
		meta, err := m.CreateAndStart(n, cols, rows)
		return chatCreatedMsg{meta: meta, err: err, open: true}
	}
}

// createOnly stores a new chat without starting it (its harness is not
// installed).
func createOnly(cs ChatStore, n sessions.NewChat) tea.Cmd {
	return func() tea.Msg {
		meta, err := cs.Create(n)
		return chatCreatedMsg{meta: meta, err: err}
	}
}

// deriveChat has the server make a fork, side chat or handoff of parent,
// named after it by the store (sessions.Store.DerivedName: "base · fork",
// "base · fork 2", "base → codex"), as the command line names them.
func deriveChat(cs ChatStore, parent string, d sessions.Derivation) tea.Cmd {
	return func() tea.Msg {
		meta, err := cs.Derive(parent, d)
		return chatCreatedMsg{meta: meta, err: err, open: true}
	}
}

// deleteAskMsg brings what the delete dialog must say of a chat: how many
// entries its own (home) folder holds, which go with it.
type deleteAskMsg struct {
	entry sessions.Entry
	home  string
	files int
	// worktree, branch and work are a worktree chat's folder, branch and
	// what removing the worktree would lose (proto.RemoveReport).
	worktree, branch string
	work             []string
	err              error
}

// askDeleteChat asks the server what the chat's own folder holds (a dry
// run of the removal) before the delete dialog opens, so the dialog can
// offer to delete its files too (as `rm --force` does) rather than fail
// after the confirmation.
func askDeleteChat(cs ChatStore, e sessions.Entry) tea.Cmd {
	return func() tea.Msg {
		rep, err := cs.Remove(e.ID, false, true)
		if err != nil {
			return deleteAskMsg{entry: e, err: err}
		}
		return deleteAskMsg{entry: e, home: rep.Home, files: rep.Files, worktree: rep.Worktree, branch: rep.Branch, work: rep.WorktreeWork}
	}
}

// deleteChat has the server stop and forget the chat, then delete its file
// and its own folder; withFiles deletes the folder with what is in it (rm
// --force).
func deleteChat(cs ChatStore, id, name string, withFiles bool) tea.Cmd {
	return func() tea.Msg {
		if _, err := cs.Remove(id, withFiles, false); err != nil {
			return actionDoneMsg{err: err, reload: true, id: id}
		}
		return actionDoneMsg{info: "deleted " + name, reload: true, id: id}
	}
}

// removeMissing has the server drop the chat's stored folders and files
// that fail the check of every start (the one key that fixes a refused
// start); a running harness takes the change at the end of its turn.
func removeMissing(cs ChatStore, id string) tea.Cmd {
	return func() tea.Msg {
		res, err := cs.RemoveMissing(id)
		if err != nil {
			return actionDoneMsg{err: err, reload: true, id: id}
		}
		dropped, droppedFiles := res.Folders, res.Files
		switch {
		case len(dropped) == 0 && len(droppedFiles) == 0:
			return actionDoneMsg{info: "no missing folders or files", reload: true, id: id}
		case len(droppedFiles) == 0:
			return actionDoneMsg{info: fmt.Sprintf("removed %d missing folder(s)", len(dropped)), reload: true, id: id}
		case len(dropped) == 0:
			return actionDoneMsg{info: fmt.Sprintf("removed %d missing file(s)", len(droppedFiles)), reload: true, id: id}
		}
		return actionDoneMsg{info: fmt.Sprintf("removed %d missing folder(s) and %d missing file(s)", len(dropped), len(droppedFiles)), reload: true, id: id}
	}
}

func tick(after time.Duration, seq int) tea.Cmd {
	return tea.Tick(after, func(t time.Time) tea.Msg { return tickMsg{at: t, seq: seq} })
}

// describeErr turns an error into the status line's text.
func describeErr(what string, err error) string {
	var gone *proto.FoldersGoneError
	switch {
	case errors.As(err, &gone):
		return err.Error()
	case what == "":
		return err.Error()
	}
	return what + ": " + err.Error()
}
