package main

import (
	"fmt"
	"time"
)

// keysSide types the keystroke round trip's three paths side by side, one
// key at a time in turn (server, tmux, bare pty, then the next key in the
// next order), so that whatever else the machine does at a moment falls on
// the three alike rather than on whichever path ran then. Each path types
// n keys, each gap after the last key's echo. A second server (other, a
// binary and a home) joins the turn when given, as "server2": two builds
// compared under the same conditions.
func keysSide(binary, home, tmuxBin, sock string, n int, gap time.Duration, other ...string) error {
	server, doneServer, err := newServerTyper(binary, home)
	if err != nil {
		return err
	}
	defer doneServer()
	runs := []*keyRun{{k: server}}
	names := []string{"server"}
	if len(other) == 2 {
		server2, doneServer2, err := newServerTyper(other[0], other[1])
		if err != nil {
			return err
		}
		defer doneServer2()
		runs = append(runs, &keyRun{k: server2})
		names = append(names, "server2")
	}
	tmux, doneTmux, err := newTmuxTyper(tmuxBin, sock)
	if err != nil {
		return err
	}
	defer doneTmux()
	bare, donePty, err := newPtyTyper()
	if err != nil {
		return err
	}
	defer donePty()
	runs = append(runs, &keyRun{k: tmux}, &keyRun{k: bare})
	names = append(names, "tmux", "pty")
	for i := range n {
		for j := range runs {
			at := (i + j) % len(runs)
			if err := runs[at].step(i, gap); err != nil {
				return fmt.Errorf("%s: %w", names[at], err)
			}
		}
	}
	emit("bench", "keys-side")
	emit("keys", n)
	emit("gap_ms", float64(gap)/float64(time.Millisecond))
	for j, r := range runs {
		emit(names[j]+"_p50_ms", ms(percentile(r.times, 0.50)))
		emit(names[j]+"_p99_ms", ms(percentile(r.times, 0.99)))
	}
	return nil
}
