package main

import (
	"fmt"
	"os/exec"
	"time"

	"github.com/acpmux/acpmux-tui/screen"
	"github.com/acpmux/acpmux-tui/sessions"
)

// reviewPane times the review pane's real first frame, runs times: the
// TUI (bin, on the environment env names: the agent home holding chat m
// alone) starts in a 160x45 pty; once its first frame shows "chats 1", d
// is typed, and the time is taken from that key to the read of output
// after which the emulated screen shows the pane's file list: the cwd's
// section title with its count of files and its base, and the first
// changed file's row with its counts (first, "+1 -0"). Each run is a new
// TUI, hung up after; the server the first one starts is killed at the
// end.
func reviewPane(bin string, env []string, m *sessions.Meta, changed int, first string, runs int) (times []time.Duration, err error) {
	if m.Baseline == nil || m.Baseline.Head == "" {
		return nil, fmt.Errorf("chat %s has no baseline commit to review against", m.ID)
	}
	defer func() {
		kill := exec.Command(bin, "kill-server")
		kill.Env = env
		if out, kerr := kill.CombinedOutput(); kerr != nil && err == nil {
			err = fmt.Errorf("kill-server after the review pane runs: %w: %s", kerr, out)
		}
	}()
	title := fmt.Sprintf("(%d files, against %s)", changed, shortSHA(m.Baseline.Head))
	row := "M " + first + "  +1 -0"
	what := fmt.Sprintf("file list (%q and %q)", title, row)
	test := func(s *screen.Screen) bool { return screenHasAll(s, title, row) }
	for i := range runs {
		cmd := exec.Command(bin)
		cmd.Env = env
		p, err := startOnScreen(cmd, "chats 1")
		if err != nil {
			return nil, err
		}
		err = p.waitReady()
		var d time.Duration
		if err == nil {
			d, err = p.keyUntilScreen("d", what, test)
		}
		if cerr := p.close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("review pane run %d: %w", i+1, err)
		}
		times = append(times, d)
	}
	return times, nil
}

// shortSHA is a commit's first 12 characters, as the review pane shows it.
func shortSHA(sha string) string { return sha[:min(len(sha), 12)] }
