package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is the TUI's side of other hosts: a mux over several servers
// (client.Router) lists the chats of each, a remote chat's id being
// "HOST:ID" (a chat id is [a-z0-9-], so it never holds the colon). The
// sidebar heads each host's chats with its name and whether it answers;
// a chat of a host whose link is down says so in its pane.

// hostSep joins a host's name and a chat's id there (client.HostSep).
const hostSep = ":"

// hostOf is the host of a chat id ("" for a local chat).
func hostOf(id string) string {
	if h, _, ok := strings.Cut(id, hostSep); ok {
		return h
	}
	return ""
}

// hostMux is a mux over the servers of several hosts.
type hostMux interface {
	// Hosts is every host's state, the local one first.
	Hosts() []proto.HostStatus
	// HostsChanged signals each change of a host's state.
	HostsChanged() <-chan struct{}
	CreateAndStartOn(host string, n sessions.NewChat, cols, rows int) (*sessions.Meta, error)
	CreateOn(host string, n sessions.NewChat) (*sessions.Meta, error)
	ValidateOn(host, cwd string, dirs, files []string) ([]string, []string, error)
	// ListDirectory lists a folder of host for the folder picker.
	ListDirectory(host, path string) (proto.ListDirectoryResult, error)
}

// hostsMsg says a host's state changed.
type hostsMsg struct{ hosts []proto.HostStatus }

func waitHosts(h hostMux) tea.Cmd {
	return func() tea.Msg {
		if _, ok := <-h.HostsChanged(); !ok {
			return nil
		}
		return hostsMsg{h.Hosts()}
	}
}

// hostMux returns the mux as a hostMux, if it is one.
func (m *Model) hostMux() (hostMux, bool) {
	h, ok := m.mux.(hostMux)
	return h, ok
}

// watchHosts reads the hosts' states and waits for their changes, when
// the mux has hosts.
func (m *Model) watchHosts() tea.Cmd {
	h, ok := m.hostMux()
	if !ok {
		return nil
	}
	m.hostsChanged(h.Hosts())
	return waitHosts(h)
}

// hostsChanged records the hosts' states: the sidebar's headers, and the
// pane of a chat whose host's link is down. With no host but the local one
// (none configured, or the last taken out of the config) there are no
// headers.
func (m *Model) hostsChanged(hosts []proto.HostStatus) {
	m.clearHostStatus(m.hosts, hosts)
	m.hosts = hosts
	if len(hosts) < 2 {
		m.sidebar.SetHosts(nil)
	} else {
		m.sidebar.SetHosts(hosts)
	}
	m.pane.SetLinkDown(m.hostDown(m.pane.ID()))
	m.pane.Refresh()
}

// hostsUpdated handles a change of a host's state: the list is read again
// (a host back brings its chats).
func (m *Model) hostsUpdated(msg hostsMsg) tea.Cmd {
	h, _ := m.hostMux()
	m.hostsChanged(msg.hosts)
	m.sideChanged = true
	return tea.Batch(waitHosts(h), m.reloadList(""))
}

// clearHostStatus drops an error in the status line that a host's link
// being down caused, once the host answers again: it would say "link
// down" for as long as nothing else is said. The error is known by its
// words: it names the host as the client's errors of a link do ("the
// link to host NAME is down", "host NAME does not answer"), or quotes
// why the host was down. A host seen back from down says so instead.
func (m *Model) clearHostStatus(was, now []proto.HostStatus) {
	if !m.isErr || m.status == "" {
		return
	}
	for _, h := range now {
		if !h.Remote || h.Down != "" {
			continue
		}
		before := ""
		for _, o := range was {
			if o.Name == h.Name {
				before = o.Down
			}
		}
		if !saysHostDown(m.status, h.Name, before) {
			continue
		}
		if before != "" {
			m.setStatus("reconnected to host "+h.Name, false)
		} else {
			m.setStatus("", false)
		}
		return
	}
}

// saysHostDown reports whether status is about host name not answering:
// the client's words for it, or the reason it was down (down, if any,
// when it names the host: not a bare "connecting…").
func saysHostDown(status, name, down string) bool {
	if down = plaintext.Line(down); strings.Contains(down, "host "+name) && strings.Contains(status, down) {
		return true
	}
	for _, words := range []string{"link to host " + name + " is down", "host " + name + " does not answer"} {
		if strings.Contains(status, words) {
			return true
		}
	}
	return false
}

// hostDown is why the host of chat id does not answer, "" while it does
// (and for a local chat).
func (m *Model) hostDown(id string) string {
	host := hostOf(id)
	if host == "" {
		return ""
	}
	for _, h := range m.hosts {
		if h.Name == host {
			return h.Down
		}
	}
	return ""
}

// hostNames is the hosts the new-chat dialog offers, local first; nil
// when there is no other host.
func (m *Model) hostNames() []string {
	if len(m.hosts) < 2 {
		return nil
	}
	out := make([]string, len(m.hosts))
	for i, h := range m.hosts {
		out[i] = h.Name
		if !h.Remote {
			out[i] = ""
		}
	}
	return out
}

// hostLists is the folder picker's lists of a host: Validate asks that
// host's server, and the chats' calls go to their own hosts.
type hostLists struct {
	ChatLists
	hm   hostMux
	host string
}

func (l hostLists) Validate(cwd string, dirs, files []string) ([]string, []string, error) {
	return l.hm.ValidateOn(l.host, cwd, dirs, files)
}

// readDir lists a folder of the host through its server
// (_acpmux/listDirectory), for the path fields of the picker and the
// new-chat dialog.
func (l hostLists) readDir(dir string) (names, files []string, err error) {
	res, err := l.hm.ListDirectory(l.host, dir)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range res.Entries {
		if e.Dir {
			names = append(names, e.Name)
		} else {
			files = append(files, e.Name)
		}
	}
	return names, files, nil
}

// readerOf is how a path field lists folders for lists: through the
// host's server for another host, nil (this machine's disk) otherwise.
func readerOf(lists ChatLists) dirReader {
	if l, ok := lists.(hostLists); ok {
		return l.readDir
	}
	return nil
}

// listsOn is the lists the folder picker of a chat on host uses.
func (m *Model) listsOn(host string) ChatLists {
	if h, ok := m.hostMux(); ok && host != "" {
		return hostLists{ChatLists: m.mux, hm: h, host: host}
	}
	return m.mux
}

func createChatOn(h hostMux, host string, n sessions.NewChat, cols, rows int) tea.Cmd {
	return func() tea.Msg {
		meta, err := h.CreateAndStartOn(host, n, cols, rows)
		return chatCreatedMsg{meta: meta, err: err, open: true}
	}
}

func createOnlyOn(h hostMux, host string, n sessions.NewChat) tea.Cmd {
	return func() tea.Msg {
		meta, err := h.CreateOn(host, n)
		return chatCreatedMsg{meta: meta, err: err}
	}
}
