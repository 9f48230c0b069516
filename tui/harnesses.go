package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file keeps the harness table the TUI offers as the server has it in
// effect: the server is the one reader of the config file while it runs.
// It tells its config at each connection and at each change of the file
// (client.Router: Config, ConfigChanged), and reads the file again as the
// new-chat dialog opens (ReadConfig), so a harness added while the TUI
// runs is offered, and one just installed is marked so. Until the server
// first tells, the table read at start is offered (the first frame may
// come before a server answers). A refused file keeps the last good
// config in the server, so here too; the refusal comes as news.

// Harnesses is the harness table in effect: the table, the harnesses to
// offer, and the default one.
type Harnesses struct {
	Table   *harness.Table
	List    []HarnessInfo
	Default string
	// Worktree is the config's `worktree` default, told with it.
	Worktree bool
}

// configSource is a mux that tells the config its server has in effect
// (client.Router).
type configSource interface {
	// Config is the config as last told; false before any.
	Config() (proto.ConfigResult, bool)
	// ConfigChanged signals each config told (at most one waits).
	ConfigChanged() <-chan struct{}
	// ReadConfig has the server read the file again; it may block.
	ReadConfig() (proto.ConfigResult, error)
}

// configMsg says the server told a config (Config says which); rearm is
// set when it came from waitConfig, which is to wait again.
type configMsg struct {
	rearm bool
	err   error
}

// configSrc returns the mux as a configSource, if it is one.
func (m *Model) configSrc() (configSource, bool) {
	src, ok := m.mux.(configSource)
	return src, ok
}

// watchConfig takes the config the server has told already, and waits
// for the next, when the mux tells configs.
func (m *Model) watchConfig() tea.Cmd {
	src, ok := m.configSrc()
	if !ok {
		return nil
	}
	m.configTold()
	return waitConfig(src)
}

func waitConfig(src configSource) tea.Cmd {
	return func() tea.Msg {
		if _, ok := <-src.ConfigChanged(); !ok {
			return nil
		}
		return configMsg{rearm: true}
	}
}

// readConfig has the server read its config file again (the new-chat
// dialog opens): what it then has in effect comes back as a configMsg.
func (m *Model) readConfig() tea.Cmd {
	src, ok := m.configSrc()
	if !ok {
		return nil
	}
	return func() tea.Msg {
		_, err := src.ReadConfig()
		return configMsg{err: err}
	}
}

// configChanged takes the config the server told last, and waits for the
// next when msg came from the wait.
func (m *Model) configChanged(msg configMsg) tea.Cmd {
	if msg.err != nil {
		m.c.Log.Warn("tui", "config", "not read", "err", msg.err)
	}
	m.configTold()
	if src, ok := m.configSrc(); ok && msg.rearm {
		return waitConfig(src)
	}
	return nil
}

// configTold puts the config the server told last in effect here (an
// in-memory read of the mux).
func (m *Model) configTold() {
	src, _ := m.configSrc()
	if cfg, ok := src.Config(); ok {
		m.setHarnesses(harnessesOf(cfg))
	}
}

// harnessesOf is the harness table a config told describes.
func harnessesOf(cfg proto.ConfigResult) Harnesses {
	specs := make([]harness.Spec, 0, len(cfg.Harnesses))
	list := make([]HarnessInfo, 0, len(cfg.Harnesses))
	for _, h := range cfg.Harnesses {
		specs = append(specs, harness.Spec{Name: h.Name, Command: h.Command, Kind: h.Kind, Transport: h.Transport,
			FolderFlag: h.FolderFlag, AdvertisesFolders: h.AdvertisesFolders})
		list = append(list, HarnessInfo{Name: h.Name, Transport: h.Transport, Installed: h.Installed, Sandbox: h.Sandbox})
	}
	return Harnesses{Table: harness.TableOf(specs), List: list, Default: cfg.DefaultHarness, Worktree: cfg.Worktree}
}

// setHarnesses puts a harness table in effect and offers it in an open
// new-chat dialog.
func (m *Model) setHarnesses(h Harnesses) {
	if h.Table == nil {
		return
	}
	m.table, m.opt.Harnesses = h.Table, h.List
	if h.Default != "" {
		m.opt.DefaultHarness = h.Default
	}
	m.missing = map[string]bool{}
	for _, hi := range h.List {
		if !hi.Installed {
			m.missing[hi.Name] = true
		}
	}
	m.sidebar.SetMissing(m.missing)
	m.worktreeOn = h.Worktree
	if d, ok := m.dialog.(*NewChatDialog); ok {
		d.SetHarnesses(h.List, m.opt.DefaultHarness)
		d.SetWorktreeDefault(m.worktreeOn)
	}
	m.refreshSelected()
}
