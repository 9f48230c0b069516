package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file keeps the selected chat up to date: a chat the mux reported
// read again, its folders looked at, its pane and summary refreshed.

// chatChanged reads a chat the mux reported; State (or Render) must be
// called so the mux sends the next notice. When the chat's status changed
// (it started, stopped, exited, failed: not the to and fro between running
// and waiting that every prompt makes) its folders are checked again.
func (m *Model) chatChanged(id string) tea.Cmd {
	if id == "" {
		return nil
	}
	before := m.sidebar.states[id].Status
	st := m.mux.State(id)
	if m.sidebar.SetState(id, st) {
		m.sideChanged = true
	}
	if st.Status == before || (isActive(st.Status) && isActive(before)) {
		return nil
	}
	if e, ok := m.sidebar.Entry(id); ok {
		return checkFolders(e)
	}
	return nil
}

// isActive is a harness at work or waiting for the user.
func isActive(s proto.Status) bool {
	return s == proto.StatusRunning || s == proto.StatusAsking || s == proto.StatusWaiting
}

// startFolderTick keeps the selected chat's folders looked at every
// CheckFoldersEvery while it has any on this machine to look at; with a
// chat that has none selected (most), no tick is set and an idle TUI
// sleeps.
func (m *Model) startFolderTick() tea.Cmd {
	if m.folderTicking || m.opt.CheckFoldersEvery <= 0 {
		return nil
	}
	if e, ok := m.sidebar.Selected(); !ok || !hasFoldersToCheck(e) {
		return nil
	}
	m.folderTicking = true
	return folderTick(m.opt.CheckFoldersEvery)
}

// checkSelected checks the selected chat's folders again.
func (m *Model) checkSelected() tea.Cmd {
	if e, ok := m.sidebar.Selected(); ok {
		return checkFolders(e)
	}
	return nil
}

// refreshSelected reads the selected chat again and redraws its pane and
// summary.
func (m *Model) refreshSelected() {
	e, ok := m.sidebar.Selected()
	if !ok {
		m.pane.Show("", "", "", "")
		m.showing("")
		m.summary.Set(ChatInfo{}, false, m.now)
		return
	}
	transport, via, expected, startsFresh, filesVia := "", harness.ViaNone, false, false, ""
	if e.Meta != nil {
		filesVia = e.Meta.FilesVia
	}
	if e.Meta != nil && m.table != nil {
		if spec, ok := m.table.Get(e.Meta.Harness); ok {
			transport = spec.Transport
			via, expected = spec.ChatFoldersVia(e.Meta)
			filesVia, _ = spec.ChatFilesVia(e.Meta)
			startsFresh = !spec.Resumes()
		}
	}
	// This client's table does not know a host's harnesses (one of the
	// same name here may be another): the chat's server says how one runs
	// once it has started it.
	if t := m.sidebar.states[e.ID].Transport; t != "" && (transport == "" || hostOf(e.ID) != "") {
		transport = t
	}
	name, harnessName := e.Name(), ""
	if e.Meta != nil {
		harnessName = e.Meta.Harness
	}
	if e.Meta == nil {
		m.pane.Show("", "", "", "")
		m.showing("")
	} else {
		m.pane.SetLinkDown(m.hostDown(e.ID))
		m.pane.SetRoot(e.Meta.Cwd)
		m.pane.Show(e.ID, name, harnessName, transport)
		m.showing(e.ID)
	}
	st := m.pane.State()
	if e.Meta == nil {
		st = proto.State{}
	}
	if st.FoldersVia != "" {
		via, expected = st.FoldersVia, false
	}
	m.now = m.opt.Now()
	noProject := e.Meta != nil && e.NoProject
	parentGone := false
	if e.Meta != nil && e.Meta.Parent != "" {
		_, present := m.sidebar.Entry(e.Meta.Parent)
		parentGone = !present
	}
	m.summary.Set(ChatInfo{Entry: e, State: st, Problems: m.problems[e.ID], NoProject: noProject, Transport: transport, Via: via, ViaExpected: expected, FilesVia: filesVia, ParentGone: parentGone,
		NotInstalled: e.Meta != nil && m.missing[e.Meta.Harness], StartsFresh: startsFresh,
		GitFolders: m.git[e.ID].folders, WorktreeGone: m.git[e.ID].worktreeGone, Bound: m.boundOf(e)}, true, m.now)
}
