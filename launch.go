package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"golang.org/x/term"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/quietterm"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	"github.com/acpmux/acpmux-tui/tui"
	"github.com/acpmux/acpmux-tui/tui/frame"
)

// The TUI draws the servers' muxes through a Router over Remotes.
var _ tui.Mux = (*client.Router)(nil)

// launch runs the TUI. open is the chat the launch flags created, which the
// TUI selects, starts and focuses; nil opens the list and starts nothing.
// The chats run in the agent home's server (started in the background when
// none answers): leaving the TUI, however it ends, leaves them running.
// Without a terminal on stdin and stdout there is no screen to open: the
// created chat, or the list, is printed as `new` and `ls` print them.
func (a *app) launch(open *sessions.Entry) error {
	if !a.interactive() {
		if open != nil {
			return a.printChat(*open, false)
		}
		return a.list(false)
	}
	if err := a.open(); err != nil {
		return err
	}
	log, closeLog, err := a.logger()
	if err != nil {
		return err
	}
	defer closeLog()
	// Anything a library logs goes to the log file, never the screen.
	prev := slog.Default()
	slog.SetDefault(log)
	defer slog.SetDefault(prev)
	_, stopTrim := trimMemory(log, "tui")
	defer stopTrim()

	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this program to start the server: %w", err)
	}
	// The chat files are read, the terminal asked for its background and
	// a running server connected to at once, so the first frame waits for
	// the slowest of the three, not for their sum. A server that is not up
	// takes tens of milliseconds to start: it is started after the first
	// frame (tuiRemote; scripts/bench first-frame-1000, cold).
	hosts := a.tuiHosts()
	var listed chan listing
	if len(hosts) == 0 {
		listed = make(chan listing, 1)
		go func() {
			entries, err := a.store.List()
			listed <- listing{entries, err}
		}()
	}
	renderer, asked := a.tuiRenderer()
	local, connect, err := a.tuiRemote(exe, len(hosts) == 0)
	<-asked
	if err != nil {
		return err
	}
	// When the server goes (kill-server, a crash) the TUI stays, says so,
	// and connects to the next one by itself.
	local.Follow(a.paths.Home, exe)
	// The chat files are on this machine: the list is read from them,
	// as ls reads them, not asked of the server (Remote.ReadFilesFrom).
	local.ReadFilesFrom(a.store)
	// The TUI draws a Router over the local server's Remote and one link
	// per host. The hosts read above head the first frame; from then on
	// they are those the server's config names, as it tells them (a host
	// added to the file is dialled, one taken out dropped), and so are the
	// harnesses offered (tui/harnesses.go): the server is the one reader
	// of the config while it runs.
	m := client.NewRouter(local, hosts, client.LinkSSHOptions()...)
	m.FollowConfig()
	defer m.Close()
	// The first frame shows the chats as the server holds them: their
	// files (read above, as local.List would), with the states its watch
	// call tells; with other hosts, the Router's list of all of them.
	var entries []sessions.Entry
	if listed != nil {
		l := <-listed
		entries, err = l.entries, l.err
	} else {
		entries, err = m.List()
	}
	if err != nil {
		return fmt.Errorf("list the chats: %w", err)
	}
	noColor := a.getenv("NO_COLOR") != ""
	opt := tui.Options{
		Home: a.paths.Home, Table: a.table, Config: a.cfg, Mux: m, Logger: log,
		Renderer: renderer, NoColor: noColor, Entries: entries,
		DefaultHarness: a.table.Default(a.cfg, a.getenv), Harnesses: a.harnessInfos(a.table),
		UserHome: a.getenv("HOME"),
		// A folder deleted under the selected chat is marked within a
		// second or so, as the docs promise ("within two seconds").
		CheckFoldersEvery: time.Second,
	}
	if open != nil {
		opt.Open = open.ID
	}
	// The screen is drawn only when the model changed (package frame), not
	// at Bubble Tea's frame rate: its standard renderer wakes 30 or 60
	// times a second even when nothing changed, which was most of what an
	// idle TUI cost (scripts/bench, "server idle"). The title, desktop
	// notifications and the bell go between its frames.
	screen := frame.New(frame.Options{In: os.Stdin, Out: os.Stdout})
	opt.Emit = screen.Emit
	input := frame.OpenInput(os.Stdin)
	if input != nil {
		// The focused chat pane is lent to the server while its keys go
		// to a pty chat here (tui/loan.go): tmux's way of a key.
		home := a.paths.Home
		input.Lend(screen, os.Stdout, func(p proto.LendPaneParams, in, out int) (frame.PaneLoan, error) {
			return client.LendPane(home, p, in, out)
		}, func() { _ = local.Sync() })
		opt.Loans = input
	}
	// A server to start starts once the first frame is out: beside the
	// reading of the files and the first frame it took the CPU they need
	// (two cores: the frame came 10-15 ms later).
	go func() {
		select {
		case <-screen.FirstFrame():
			connect()
		case <-time.After(firstFrameWait):
			connect()
		}
	}()
	model := tui.New(opt)
	defer model.Close()

	// The terminal's own title is pushed on its title stack and given back
	// on the way out, after the screen (xterm's window ops 22 and 23;
	// others ignore them).
	_, _ = os.Stdout.WriteString("\x1b[22;0t")
	defer os.Stdout.WriteString("\x1b[23;0t")
	if err := screen.Start(); err != nil {
		return fmt.Errorf("take the terminal: %w", err)
	}
	// Every way out gives the terminal back: q, a hangup, an error, and a
	// panic (the model's panics give it back before Bubble Tea reports
	// them; this covers the rest).
	defer screen.Stop()
	opts := []tea.ProgramOption{tea.WithoutRenderer()}
	if input != nil {
		// Closed after the program ends, which ends its reader, and
		// before the terminal is given back: a pane lent is taken back
		// first.
		defer input.Close()
		opts = append(opts, tea.WithInput(input))
	}
	p := tea.NewProgram(screen.Wrap(model), opts...)
	if input != nil {
		// Before a pane is lent, the keys the TUI read itself go through
		// the model and reach the chat: the ones typed next go by the loan.
		input.Barrier(func(done func()) { p.Send(tui.LoanBarrier{Done: done}) })
	}
	// A closed terminal (SIGHUP) ends the program cleanly; the harnesses
	// keep running in the server.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer func() { signal.Stop(hup); close(hup) }()
	go func() {
		if _, ok := <-hup; ok {
			p.Kill()
		}
	}()
	if _, err := p.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return err
	}
	return nil
}

// firstFrameWait bounds how long the start of a server waits for the TUI's
// first frame.
const firstFrameWait = 500 * time.Millisecond

// tuiRemote connects to the agent home's server for the TUI. With one up,
// the Remote returned is connected, and its first frame shows the chats'
// states as the server holds them. With none and alone (no other hosts to
// head), the Remote is still connecting: connect starts the server in the
// background and makes the connection (a failure is the Remote's to tell),
// while the TUI draws its first frame
// from the chat files (no chat runs before a server does; those it starts
// again show as it does). Otherwise the server is started and waited for.
func (a *app) tuiRemote(exe string, alone bool) (local *client.Remote, connect func(), err error) {
	conn, err := client.DialRunning(a.paths.Home)
	switch {
	case errors.Is(err, client.ErrNoServer) && alone:
		local = client.NewConnectingRemote()
		home := a.paths.Home
		connect = func() {
			_ = local.ConnectWith(func() (*client.Conn, error) { return client.EnsureServer(home, exe) })
		}
		return local, connect, nil
	case errors.Is(err, client.ErrNoServer):
		conn, err = client.EnsureServer(a.paths.Home, exe)
	}
	if err != nil {
		return nil, nil, err
	}
	local, err = client.NewRemote(conn)
	return local, func() {}, err
}

// tuiHosts is every configured host, in the order the TUI heads them.
func (a *app) tuiHosts() []client.Host {
	var out []client.Host
	for _, name := range a.cfg.HostNames() {
		out = append(out, client.Host{Name: name, HostConfig: a.cfg.Host[name]})
	}
	return out
}

// harnessInfos lists the harnesses the TUI offers, each marked with
// whether its command is installed.
func (a *app) harnessInfos(table *harness.Table) []tui.HarnessInfo {
	var out []tui.HarnessInfo
	for _, s := range table.All() {
		out = append(out, tui.HarnessInfo{Name: s.Name, Transport: s.Transport, Installed: s.Found(a.getenv), Sandbox: s.Sandboxed(a.cfg)})
	}
	return out
}

// interactive reports whether stdin and stdout are a terminal the TUI can
// draw on.
func (a *app) interactive() bool {
	out, ok := a.stdout.(*os.File)
	return ok && out == os.Stdout && term.IsTerminal(int(os.Stdout.Fd())) && term.IsTerminal(int(os.Stdin.Fd()))
}

// listing is the chat files as read for the TUI's first frame.
type listing struct {
	entries []sessions.Entry
	err     error
}

// tuiRenderer makes the TUI's renderer and, unless NO_COLOR is set, asks
// the terminal for its background in the background: asked is closed
// once the answer (or the terminal's silence) is in. It is asked before
// anything reads the keyboard: once Bubble Tea does, the answer would
// arrive as keys.
func (a *app) tuiRenderer() (*lipgloss.Renderer, <-chan struct{}) {
	renderer := lipgloss.NewRenderer(os.Stdout)
	asked := make(chan struct{})
	if a.getenv("NO_COLOR") != "" {
		// The styles carry no colour then; this profile keeps bold, faint
		// and reverse, which NO_COLOR allows.
		renderer.SetColorProfile(termenv.ANSI)
		close(asked)
		return renderer, asked
	}
	go func() {
		defer close(asked)
		// The default renderer was told a placeholder (internal/quietterm):
		// the styles made without a renderer get the true answer too.
		quietterm.Settle(renderer.HasDarkBackground())
	}()
	return renderer, asked
}
