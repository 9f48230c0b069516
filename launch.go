package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/sessions"
	"github.com/acpmux/acpmux-tui/tui"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"golang.org/x/term"
)

// The TUI draws the server's mux through a Remote.
var _ tui.Mux = (*client.Remote)(nil)

// renderFPS is how often Bubble Tea may redraw the terminal. Its renderer
// wakes this often even when nothing changed, which is most of what an idle
// TUI costs: 30 a second halves that against the default 60 (scripts/bench,
// "server idle"), and a change still shows within 33 ms.
const renderFPS = 30

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

	entries, err := a.store.List()
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find this program to start the server: %w", err)
	}
	conn, err := client.EnsureServer(a.paths.Home, exe)
	if err != nil {
		return err
	}
	m, err := client.NewRemote(conn)
	if err != nil {
		return err
	}
	defer m.Close()

	noColor := a.getenv("NO_COLOR") != ""
	renderer := lipgloss.NewRenderer(os.Stdout)
	if noColor {
		// The styles carry no colour then; this profile keeps bold, faint
		// and reverse, which NO_COLOR allows.
		renderer.SetColorProfile(termenv.ANSI)
	} else {
		// Ask the terminal for its background now: once Bubble Tea reads
		// the keyboard, the answer would arrive as keys.
		renderer.HasDarkBackground()
	}
	var harnesses []tui.HarnessInfo
	for _, s := range a.table.All() {
		harnesses = append(harnesses, tui.HarnessInfo{Name: s.Name, Transport: s.Transport, Installed: s.Found(a.getenv)})
	}
	opt := tui.Options{
		Store: a.store, Table: a.table, Config: a.cfg, Mux: m, Logger: log,
		Renderer: renderer, NoColor: noColor, Entries: entries,
		DefaultHarness: a.table.Default(a.cfg, a.getenv), Harnesses: harnesses,
		UserHome: a.getenv("HOME"), WatchEvery: 2 * time.Second,
	}
	if open != nil {
		opt.Open = open.ID
	}
	// The title, desktop notifications and the bell go straight to the
	// terminal: each is one write, which a terminal takes whole, never
	// inside one of the renderer's frames (also one write each).
	opt.Emit = func(seq string) { _, _ = os.Stdout.WriteString(seq) }
	// The terminal's own title is pushed on its title stack and given back
	// on the way out (xterm's window ops 22 and 23; others ignore them).
	_, _ = os.Stdout.WriteString("\x1b[22;0t")
	defer os.Stdout.WriteString("\x1b[23;0t")
	model := tui.New(opt)
	defer model.Close()

	p := tea.NewProgram(model, tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithFPS(renderFPS))
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

// interactive reports whether stdin and stdout are a terminal the TUI can
// draw on.
func (a *app) interactive() bool {
	out, ok := a.stdout.(*os.File)
	return ok && out == os.Stdout && term.IsTerminal(int(os.Stdout.Fd())) && term.IsTerminal(int(os.Stdin.Fd()))
}
