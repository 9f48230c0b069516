package main

import (
	"context"
	"fmt"
	"time"

	"github.com/acpmux/acpmux-tui/config"
)

// pageKeys is `benchtool page-keys BIN HOME TMUX SOCKET N GAP_MS`: the
// keystroke round trip of keys-side, through the page. A server on the
// fresh agent home HOME runs two chats of `cat`: one opened in the page
// (its terminal focused, the window sized until the page has made it
// 160x45), one shown by this process's client.Remote as the TUI shows a
// chat (keys-side's server path); tmux (socket SOCKET) runs a third in a
// 160x45 pane (keys-side's tmux path). N keys go through each, a key of
// each in turn, GAP_MS after the last one's echo, 150 to a line and an
// untimed Enter (keys-side's key stream). A key of the page is a real
// key press (Input.dispatchKeyEvent: keydown with its text, keyup), timed
// in the page from the keydown event's time stamp until the terminal
// element's last non-blank row is the line typed so far (a
// MutationObserver looks after each change of the page); the times are
// read back once, at the end. The others are timed here, as keys-side
// times them. It prints p50 and p99 of each, and the page's ratios to
// tmux's.
func pageKeys(bin, home, tmuxBin, sock string, n int, gap time.Duration) error {
	r, err := newServerRig(bin, home, map[string]config.HarnessConfig{"bench-keys": {Command: "/bin/cat"}})
	if err != nil {
		return err
	}
	var td teardown
	defer td.run()
	defer ownSignals(r, &td)()
	pageID, err := r.newChat("bench-keys")
	if err != nil {
		return err
	}
	remoteID, err := r.newChat("bench-keys")
	if err != nil {
		return err
	}
	if err := r.watch(); err != nil {
		return err
	}
	// The TUI names the chat it draws, and is sent its screen with each
	// change; so does this client.
	r.remote.Show(remoteID)
	ids := []string{pageID, remoteID}
	for _, id := range ids {
		if err := r.remote.Start(id, benchCols, benchRows); err != nil {
			return fmt.Errorf("start chat %s: %w", id, err)
		}
	}
	if err := r.waitAll(ids, "running", func(id string) bool { return r.remote.State(id).Status.Live() }); err != nil {
		return err
	}
	url, b, err := openPage(r, &td)
	if err != nil {
		return err
	}
	// cat shows nothing until a key: the row's screen is ready once the
	// element is there (its text is empty, which every text holds).
	cols, rows, err := openTerminalChat(b.tab, url, r.home, pageID, "", benchCols, benchRows)
	if err != nil {
		return err
	}
	if cols <= keysPerLine {
		return fmt.Errorf("the page's terminal is %dx%d: a line of %d keys would wrap", cols, rows, keysPerLine)
	}
	tmux, doneTmux, err := newTmuxTyper(tmuxBin, sock)
	if err != nil {
		return err
	}
	td.add(doneTmux)

	typers := []keyTyper{&pageTyper{tab: b.tab}, &remoteTyper{r: r, id: remoteID}, tmux}
	names := []string{"page", "server", "tmux"}
	runs := make([]*keyRun, len(typers))
	for j, k := range typers {
		if err := warmUp(k); err != nil {
			return fmt.Errorf("%s: %w", names[j], err)
		}
		runs[j] = &keyRun{k: k}
	}
	if _, err := pageTimes(b.tab); err != nil { // the warm-up key's
		return err
	}
	for i := range n {
		for j := range runs {
			at := (i + j) % len(runs)
			if err := runs[at].step(i, gap); err != nil {
				return fmt.Errorf("%s: %w", names[at], err)
			}
		}
	}
	page, err := pageTimes(b.tab)
	if err != nil {
		return err
	}
	if len(page) != n {
		return fmt.Errorf("the page timed %d keys, want %d", len(page), n)
	}
	emit("bench", "page-keys")
	emit("keys", n)
	emit("gap_ms", float64(gap)/float64(time.Millisecond))
	emit("page_cols", cols)
	emit("page_rows", rows)
	emitQuantiles("page", page)
	// The page's keys timed here too, from the first call of the press
	// to the answer that its echo showed: what the DevTools protocol's
	// round trips add.
	emitQuantiles("page_cdp", runs[0].times)
	emitQuantiles("server", runs[1].times)
	emitQuantiles("tmux", runs[2].times)
	for _, q := range []struct {
		name string
		p    float64
	}{{"p50", 0.5}, {"p99", 0.99}} {
		emit("page_tmux_"+q.name+"_ratio", float64(percentile(page, q.p))/float64(percentile(runs[2].times, q.p)))
	}
	return nil
}

// emitQuantiles prints NAME_p50_ms and NAME_p99_ms of times.
func emitQuantiles(name string, times []time.Duration) {
	emit(name+"_p50_ms", ms(percentile(times, 0.50)))
	emit(name+"_p99_ms", ms(percentile(times, 0.99)))
}

// pageTyper types into the terminal chat open and focused in a tab: each
// key is a real key press, and it has shown once the terminal's observers
// (termScript) saw the test pass. Its keys' times are read in the page
// (pageTimes); keyRun's own are the same keys timed from here.
type pageTyper struct{ tab context.Context }

func (p *pageTyper) typeKey(key byte, line string) error {
	return pressAndAwait(p.tab, string(rune(key)), rune(key), "last", line, true, keyWait)
}

func (p *pageTyper) enter(line string) error {
	return pressAndAwait(p.tab, "Enter", '\r', "echoed", line, false, keyWait)
}
