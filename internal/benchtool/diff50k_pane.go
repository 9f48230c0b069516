package main

import (
	"fmt"
	"os/exec"
	"time"

	"github.com/acpmux/acpmux-tui/screen"
	"github.com/acpmux/acpmux-tui/sessions"
)

// paneTimer times the review pane's real first frame: the TUI (bin, on the
// environment env names: the agent home holding chat m alone) starts in a
// 160x45 pty; once its first frame shows "chats 1", d is typed, and the
// time is taken from that key to the read of output after which the
// emulated screen shows the pane's file list: the cwd's section title with
// its count of files and its base, and the first changed file's row with
// its counts (first, "+1 -0"). Each run is a new TUI, hung up after; the
// server the first one starts is killed by close.
type paneTimer struct {
	bin  string
	env  []string
	what string
	test func(*screen.Screen) bool
}

func newPaneTimer(bin string, env []string, m *sessions.Meta, changed int, first string) (*paneTimer, error) {
	if m.Baseline == nil || m.Baseline.Head == "" {
		return nil, fmt.Errorf("chat %s has no baseline commit to review against", m.ID)
	}
	title := fmt.Sprintf("(%d files, against %s)", changed, shortSHA(m.Baseline.Head))
	row := "M " + first + "  +1 -0"
	return &paneTimer{
		bin:  bin,
		env:  env,
		what: fmt.Sprintf("file list (%q and %q)", title, row),
		test: func(s *screen.Screen) bool { return screenHasAll(s, title, row) },
	}, nil
}

// run is one TUI: started, d typed once it has drawn, timed until the list
// shows, hung up.
func (p *paneTimer) run() (time.Duration, error) {
	cmd := exec.Command(p.bin)
	cmd.Env = p.env
	t, err := startOnScreen(cmd, "chats 1")
	if err != nil {
		return 0, err
	}
	err = t.waitReady()
	var d time.Duration
	if err == nil {
		d, err = t.keyUntilScreen("d", p.what, p.test)
	}
	if cerr := t.close(); err == nil {
		err = cerr
	}
	return d, err
}

// close kills the server the TUIs started (none is an error: the first
// TUI starts one).
func (p *paneTimer) close() error {
	kill := exec.Command(p.bin, "kill-server")
	kill.Env = p.env
	if out, err := kill.CombinedOutput(); err != nil {
		return fmt.Errorf("kill-server after the review pane runs: %w: %s", err, out)
	}
	return nil
}

// shortSHA is a commit's first 12 characters, as the review pane shows it.
func shortSHA(sha string) string { return sha[:min(len(sha), 12)] }
