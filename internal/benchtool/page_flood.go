package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
)

// pageFlood is `benchtool page-flood BIN HOME TMUX SOCKET FILE RUNS`: the
// flood FILE printed in a terminal chat viewed in the page, beside the
// same in a tmux window viewed by `tmux attach` in a 160x45 pty. Both run
// the ssh row's flood command (floodCommand: FLOOD-READY, a read, cat
// FILE, FLOOD-DONE-MARK) and are timed from the Enter that starts it until
// the line printed after the file shows. In the page (a chat of a server
// on the fresh agent home HOME, opened in a new tab, the window sized
// until the page has made its pty 160x45) the Enter is a real key press
// into the focused terminal, and the time runs from its keydown's time
// stamp until a MutationObserver finds the mark in the terminal element's
// text, both read in the page. tmux (socket SOCKET, status line off, a
// fresh server each run) is timed as the ssh row times it (timeFlood, on
// this process's emulation of the client's output). RUNS runs of each, in
// turn; it prints the medians and their ratio.
func pageFlood(bin, home, tmuxBin, sock, file string, runs int) error {
	file, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	last, err := lastLine(file)
	if err != nil {
		return err
	}
	cmdLine := floodCommand(file)
	r, err := newServerRig(bin, home, map[string]config.HarnessConfig{"bench-flood": {Command: "/bin/sh", Args: []string{"-c", cmdLine}}})
	if err != nil {
		return err
	}
	var td teardown
	defer td.run()
	defer ownSignals(r, &td)()
	url, b, err := openPage(r, &td)
	if err != nil {
		return err
	}
	t := tmuxServer{bin: tmuxBin, socket: sock}
	td.add(t.kill)

	var page, theirs []time.Duration
	var cols, rows int
	for i := range runs {
		d, c, rw, err := pageFloodRun(b, r, url, last)
		if err != nil {
			return fmt.Errorf("page run %d: %w", i+1, err)
		}
		page, cols, rows = append(page, d), c, rw
		if d, err = tmuxFloodRun(t, cmdLine); err != nil {
			return fmt.Errorf("tmux run %d: %w", i+1, err)
		}
		theirs = append(theirs, d)
	}
	emit("bench", "page-flood")
	emit("flood_bytes", st.Size())
	emit("runs", runs)
	emit("page_cols", cols)
	emit("page_rows", rows)
	emit("page_runs_seconds", secondsList(page))
	emit("tmux_runs_seconds", secondsList(theirs))
	pm, tm := median(page), median(theirs)
	emit("page_median_seconds", pm.Seconds())
	emit("tmux_median_seconds", tm.Seconds())
	emit("ratio", pm.Seconds()/tm.Seconds())
	return nil
}

// pageFloodRun starts a flood chat at 160x45, opens it in a new tab, and
// times the flood in the page; it returns the time and the pty's size
// the page made. At 160 columns or more, the run is valid only if the
// terminal then ends with last (the file's last line) and the mark.
func pageFloodRun(b *pageBrowser, r *serverRig, url, last string) (time.Duration, int, int, error) {
	id, err := r.newChat("bench-flood")
	if err != nil {
		return 0, 0, 0, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), serverWait)
	err = r.conn.Call(ctx, proto.MethodStart, proto.ChatParams{ID: id, Cols: benchCols, Rows: benchRows}, nil)
	cancel()
	if err != nil {
		return 0, 0, 0, fmt.Errorf("start chat %s: %w", id, err)
	}
	tab, closeTab, err := b.newTab()
	if err != nil {
		return 0, 0, 0, err
	}
	defer closeTab()
	cols, rows, err := openTerminalChat(tab, url, r.home, id, sshFloodReady, benchCols, benchRows)
	if err != nil {
		return 0, 0, 0, err
	}
	if err := pressAndAwait(tab, "Enter", '\r', "has", sshFloodDone, true, sshFloodWait); err != nil {
		return 0, 0, 0, err
	}
	times, err := pageTimes(tab)
	if err != nil {
		return 0, 0, 0, err
	}
	if len(times) != 1 {
		return 0, 0, 0, fmt.Errorf("the page timed %d floods, want 1", len(times))
	}
	// The line before the mark is the file's last: all of it was drawn.
	if cols >= benchCols {
		shown, err := pageEval[[]string](tab, pageWait, `document.querySelector(`+jsQuote(pageTerminal)+`).innerText.split("\n").map((s) => s.replace(/\s+$/, "")).filter((s) => s !== "").slice(-2)`)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("read the terminal: %w", err)
		}
		if len(shown) != 2 || shown[0] != last || shown[1] != sshFloodDone {
			return 0, 0, 0, fmt.Errorf("the terminal ends with %q, want the file's last line %q and %q", shown, last, sshFloodDone)
		}
	}
	// The page types with its size: the flood ran at the size it made.
	term, err := ptySize(r.home, id)
	if err != nil {
		return 0, 0, 0, err
	}
	if term.Cols != cols || term.Rows != rows {
		return 0, 0, 0, fmt.Errorf("chat %s's pty is %dx%d after the flood, the page made it %dx%d", id, term.Cols, term.Rows, cols, rows)
	}
	return times[0], cols, rows, nil
}

// tmuxFloodRun starts a tmux server whose one 160x45 window runs cmdLine,
// with no status line, attaches a client in a 160x45 pty, times the flood
// on what the client draws (timeFlood), and kills the server.
func tmuxFloodRun(t tmuxServer, cmdLine string) (time.Duration, error) {
	if err := t.startWindows(1, cmdLine); err != nil {
		return 0, err
	}
	defer t.kill()
	if out, err := t.command("set", "-g", "status", "off").CombinedOutput(); err != nil {
		return 0, fmt.Errorf("tmux set status off: %w: %s", err, out)
	}
	c, err := startPtyClient(t.command("attach-session", "-t", "bench"))
	if err != nil {
		return 0, err
	}
	defer c.close()
	return timeFlood(c)
}

// secondsList is times in seconds, comma-separated.
func secondsList(times []time.Duration) string {
	s := make([]string, len(times))
	for i, d := range times {
		s[i] = fmt.Sprintf("%.3f", d.Seconds())
	}
	return strings.Join(s, ",")
}
