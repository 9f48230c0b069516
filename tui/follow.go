package tui

import (
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/proto"
)

// This file keeps the TUI in step with what changes under it: the server
// it talks to, which may go and come back, and the selected chat's folders
// on disk.

// folderTickMsg asks for the selected chat's folders to be looked at again.
type folderTickMsg struct{}

// folderTick waits every, then asks for the selected chat's folders to be
// checked (off the UI goroutine, by checkFolders); never when every <= 0.
func folderTick(every time.Duration) tea.Cmd {
	if every <= 0 {
		return nil
	}
	return tea.Tick(every, func(time.Time) tea.Msg { return folderTickMsg{} })
}

// serverLink is a mux in a server that may go away and come back
// (client.Remote with Follow): the TUI shows the connection's state and
// can start a server.
type serverLink interface {
	// Link signals each loss and return of the connection.
	Link() <-chan struct{}
	// Lost says why the connection ended, nil while one is up.
	Lost() error
	// StartServer starts a server in the background; it may block.
	StartServer() error
}

// linkMsg says the connection to the server was lost (lost set) or is
// back.
type linkMsg struct{ lost error }

// serverStartedMsg reports the end of a start of a server the user asked
// for.
type serverStartedMsg struct{ err error }

// waitLink waits for the next change of the connection to the server.
func waitLink(l serverLink) tea.Cmd {
	return func() tea.Msg {
		if _, ok := <-l.Link(); !ok {
			return nil
		}
		return linkMsg{l.Lost()}
	}
}

// link returns the mux as a serverLink, if it is one.
func (m *Model) link() (serverLink, bool) {
	l, ok := m.mux.(serverLink)
	return l, ok
}

// watchLink starts waiting for the connection's changes, when the mux has
// a connection.
func (m *Model) watchLink() tea.Cmd {
	if l, ok := m.link(); ok {
		return waitLink(l)
	}
	return nil
}

// linked handles a change of the connection to the server. While it is
// lost the status line says so, whatever else it says, and a server is
// started at once, as a tmux client would (StartServer first dials: a
// server that came back, or one systemd starts, is taken as it is); should
// that start fail, the line says why and the start_server key tries again.
// When it is back the list is read again and the server is asked to start
// prewarmed harnesses. The chats' states and the shown chat's screen come
// from the server with its change notices.
func (m *Model) linked(msg linkMsg) tea.Cmd {
	l, _ := m.link()
	next := waitLink(l)
	was := m.linkLost
	m.linkLost = msg.lost
	switch {
	case msg.lost != nil:
		m.c.Log.Warn("tui", "server", "gone", "err", msg.lost)
		m.startingServer = was == nil
		if was == nil {
			m.c.Log.Info("tui", "server", "starting one")
			return tea.Batch(next, startAfterLoss(l, m.opt.Home))
		}
		return next
	case was != nil:
		m.startingServer = false
		m.c.Log.Info("tui", "server", "back")
		m.setStatus("reconnected to the server", false)
		return tea.Batch(next, m.reloadList(""), resizeAll(m.mux, m.lay.chatCols, m.lay.chatRows), fillPool(m.mux))
	}
	return next
}

// connector is a mux whose first connection may still be on its way when
// the TUI starts (client.Remote from NewConnectingRemote: the TUI started
// the server and drew its first frame meanwhile).
type connector interface {
	// Connected waits for the first connection and says why it failed;
	// connecting is false when there was none to wait for.
	Connected() (connecting bool, err error)
}

// connectedMsg says the first connection was made.
type connectedMsg struct{}

// awaitConnection waits for the first connection. Made, the list is read
// again: the files were read before the server was there to tell of their
// changes (it tells of each one made after a client connects). Failed, it
// is shown as a start of the server the user asked for that failed: the
// reason is shown, and the status line says the server is gone.
func (m *Model) awaitConnection() tea.Cmd {
	c, ok := m.mux.(connector)
	if !ok {
		return nil
	}
	return func() tea.Msg {
		connecting, err := c.Connected()
		switch {
		case err != nil:
			return serverStartedMsg{err}
		case connecting:
			return connectedMsg{}
		}
		return nil
	}
}

// startServer starts a server while none answers (the start_server key,
// and the loss of the connection).
func (m *Model) startServer() tea.Cmd {
	l, ok := m.link()
	if !ok || m.linkLost == nil {
		m.setStatus("connected to the server: it runs", false)
		return nil
	}
	if m.startingServer {
		return nil
	}
	m.startingServer = true
	return func() tea.Msg { return serverStartedMsg{l.StartServer()} }
}

// ending bounds the wait for a server on its way out to let go of the
// agent home (its harnesses each have a grace period before SIGKILL).
const ending = 30 * time.Second

// startAfterLoss starts a server once the connection is lost. The server
// that went may still hold the agent home's lock while it stops its
// harnesses, and a start meanwhile is refused (one runs): the start is
// tried again while the process the lock names lives, for up to ending.
func startAfterLoss(l serverLink, home string) tea.Cmd {
	return func() tea.Msg {
		deadline := time.Now().Add(ending)
		wait := 20 * time.Millisecond
		for {
			err := l.StartServer()
			if err == nil || home == "" || !lockHolderLives(home) || time.Now().After(deadline) {
				return serverStartedMsg{err}
			}
			time.Sleep(wait)
			wait = min(2*wait, 500*time.Millisecond)
		}
	}
}

// lockHolderLives reports whether the process the agent home's lock names
// is alive (a pid the kernel knows: signal 0 is refused only with ESRCH
// when none has it).
func lockHolderLives(home string) bool {
	pid := proto.LockHolder(home)
	return pid > 0 && syscall.Kill(pid, 0) != syscall.ESRCH
}

// serverStarted reports a start of a server that failed; one that worked
// shows as the connection coming back.
func (m *Model) serverStarted(msg serverStartedMsg) tea.Cmd {
	if msg.err != nil {
		m.startingServer = false
		m.fail("", msg.err)
	}
	return nil
}

// linkLine is what the status line says while the server is gone.
func (m *Model) linkLine() string {
	if m.startingServer {
		return "server gone: starting one…"
	}
	return "server gone: reconnecting… (press " + m.c.Keys.StartServer.Help().Key + " to start one)"
}
