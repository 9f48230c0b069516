package main

import (
	"fmt"
	"os"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
)

// The harness of the scale rows (server-scale, scale-100): one process
// that prints the time once a second, as a busy agent's status line does.
// It was `while :; do date; sleep 1; done`, which starts two programs a
// line: with 100 chats and tmux's 100 windows that is 400 programs a
// second, which on a machine where a page fault costs 10-15 us kept both
// cores busy (vmstat: no idle time, 40-80 tasks runnable), so the loops
// fell behind their second and the figure measured an overloaded machine.
// An agent does not start a program per line it prints.

// tickEvery is how often tick prints.
const tickEvery = time.Second

// tick is `benchtool tick`: the time, once a second, until its output
// goes (the pty closes).
func tick() error {
	for {
		if _, err := fmt.Fprintln(os.Stdout, time.Now().Format(time.ANSIC)); err != nil {
			return err
		}
		time.Sleep(tickEvery)
	}
}

// scaleHarness is the chats' harness: this binary's tick.
func scaleHarness() (config.HarnessConfig, error) {
	self, err := os.Executable()
	if err != nil {
		return config.HarnessConfig{}, fmt.Errorf("the scale harness: find benchtool: %w", err)
	}
	return config.HarnessConfig{Command: self, Args: []string{"tick"}}, nil
}

// tmuxScaleCommand is tmux's windows' shell command: the same tick.
func tmuxScaleCommand() (string, error) {
	h, err := scaleHarness()
	if err != nil {
		return "", err
	}
	return "exec " + harness.ShellQuote(h.Command) + " tick", nil
}
