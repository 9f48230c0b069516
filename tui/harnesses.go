package tui

import (
	"github.com/acpmux/acpmux-tui/harness"
	tea "github.com/charmbracelet/bubbletea"
)

// This file reads the harness table again from the config file as the
// new-chat dialog opens, so a harness added to the config while the TUI
// runs is offered without a restart (the server reads the config again
// before each start too).

// Harnesses is the harness table as read from the config file: the table,
// the harnesses to offer, and the default one.
type Harnesses struct {
	Table   *harness.Table
	List    []HarnessInfo
	Default string
	// Worktree is the config's `worktree` default, read again with it.
	Worktree bool
}

// harnessesMsg brings the harness table read again, or why the config was
// refused.
type harnessesMsg struct {
	h   Harnesses
	err error
}

func reloadHarnesses(load func() (Harnesses, error)) tea.Cmd {
	if load == nil {
		return nil
	}
	return func() tea.Msg {
		h, err := load()
		return harnessesMsg{h, err}
	}
}

// harnessesLoaded puts the harness table read again in effect and offers
// it in an open new-chat dialog; a refused config keeps the one in effect,
// with a warning.
func (m *Model) harnessesLoaded(msg harnessesMsg) tea.Cmd {
	if msg.err != nil {
		m.setWarning(configRefusal(msg.err.Error() + "; the last good config stays in effect"))
		return nil
	}
	if msg.h.Table == nil {
		return nil
	}
	m.table, m.opt.Harnesses = msg.h.Table, msg.h.List
	if msg.h.Default != "" {
		m.opt.DefaultHarness = msg.h.Default
	}
	m.missing = map[string]bool{}
	for _, h := range msg.h.List {
		if !h.Installed {
			m.missing[h.Name] = true
		}
	}
	m.sidebar.SetMissing(m.missing)
	m.worktreeOn = msg.h.Worktree
	if d, ok := m.dialog.(*NewChatDialog); ok {
		d.SetHarnesses(msg.h.List, m.opt.DefaultHarness)
		d.SetWorktreeDefault(m.worktreeOn)
	}
	return nil
}
