package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/screen"
)

// keys-tui is the keystroke round trip a user feels: the real TUI in a
// 160x45 pty this process owns, focused on a chat of `cat` so that its keys
// go to cat, beside a real tmux client attached in a second 160x45 pty to a
// tmux window running `cat`. Every byte either one writes is drawn on an
// emulated screen of its pty's size (startOnScreen); a key is timed from
// its write to the master until the read of output after which a row of
// that screen shows the line typed so far, its echo included.
//
// The echo is found exactly. Each line starts with a marker typed untimed,
// "#L:" for line L of that side, so the line so far ("#17:abc") is on no
// row of the screen until the last key's echo is drawn: the rest of the
// screen (the sidebar, the summary, tmux's status line and its clock)
// holds no such marker, and every earlier line has another number. A
// test on the key's byte alone would not be exact: the letters and digits
// typed are in chat names, times and the status line too. The test looks only at rows whose stamp changed since the key
// was written (screen.Stamps: the echo changes a row), so its cost after
// each read is a row or two, the same for both sides.
//
// A third side is `acpmux-tui attach` on a cat chat of its own, in a
// 160x45 pty: the server's own way to a terminal (the terminal lent to
// the server), beside tmux's.
//
// Two conditions in one run: quiet (the cat chat alone, tmux's cat window
// alone), then busy (10 more chats, and 10 more tmux windows, each running
// `benchtool tick`, a line a second; the TUI lists them and still shows
// the cat chat alone, the tmux client still shows its cat window).

// Names of the row's harnesses in the bench config; the TUI's pane title
// names the focused chat's ("keys go to keys-cat").
const (
	keysTUICat  = "keys-cat"
	keysTUITick = "keys-tick"
)

// keysTUIBusy is how many chats (and tmux windows) print in the busy
// condition.
const keysTUIBusy = 10

// keysTUIPerLine is how many timed keys go on one line before an untimed
// Enter: with the marker, a line stays well inside the TUI's chat pane.
const keysTUIPerLine = 40

// keysTUI is `benchtool keys-tui BIN HOME TMUX SOCKET N GAP_MS`: N keys
// into each side per condition, a key of each in turn (the TUI's, then
// tmux's, the order swapped at every key), each GAP_MS after the last
// one's echo. It prints p50, p99, mean and max of each side and condition
// (keys_tui_quiet_p50_ms, keys_tmux_busy_p99_ms, ...) and the ratios of
// ours to tmux's. Every process is ended at the end, also on SIGINT,
// SIGTERM or SIGHUP: the TUI hung up, the tmux client, `tmux kill-server`
// and the server's kill-server.
func keysTUI(bin, home, tmuxBin, sock string, n int, gap time.Duration) error {
	tick, err := scaleHarness()
	if err != nil {
		return err
	}
	r, err := newServerRig(bin, home, map[string]config.HarnessConfig{keysTUICat: {Command: "/bin/cat"}, keysTUITick: tick})
	if err != nil {
		return err
	}
	var td teardown
	defer td.run()
	defer ownSignals(r, &td)()

	catID, ours, err := startKeysTUI(r, &td)
	if err != nil {
		return err
	}
	tm := tmuxServer{bin: tmuxBin, socket: sock}
	theirs, tmuxPid, err := startKeysTmux(tm, &td)
	if err != nil {
		return err
	}
	attachID, attached, err := startKeysAttach(r, &td)
	if err != nil {
		return err
	}
	sides := []*echoSide{{name: "tui", p: ours}, {name: "tmux", p: theirs}, {name: "attach", p: attached}}
	pids := []int{r.pid, ours.pid(), tmuxPid, theirs.pid(), attached.pid()}

	emit("bench", "keys-tui")
	emit("keys", n)
	emit("gap_ms", float64(gap)/float64(time.Millisecond))
	emit("keys_per_line", keysTUIPerLine)
	emit("busy_chats", keysTUIBusy)
	ids := []string{catID, attachID}
	for _, cond := range []string{"quiet", "busy"} {
		if cond == "busy" {
			tickIDs, err := addTickers(r, ours, tm, theirs)
			if err != nil {
				return err
			}
			ids = append(ids, tickIDs...)
		}
		// Each condition starts on fresh lines, with its first marker
		// typed before the machine settles.
		for _, s := range sides {
			if err := s.freshLine(); err != nil {
				return fmt.Errorf("%s, %s: %w", cond, s.name, err)
			}
			s.times = s.times[:0]
		}
		settled, err := settle(0.05, pids...)
		if err != nil {
			return err
		}
		emit(cond+"_settled", settled)
		for i := range n {
			for j := range sides {
				s := sides[(i+j)%len(sides)]
				if err := s.step(i, gap); err != nil {
					return fmt.Errorf("%s, %s: %w", cond, s.name, err)
				}
			}
		}
		for _, s := range sides {
			emitTimes("keys_"+s.name+"_"+cond, s.times)
		}
		for _, q := range []struct {
			name string
			p    float64
		}{{"p50", 0.5}, {"p99", 0.99}} {
			emit("keys_"+cond+"_"+q.name+"_ratio", float64(percentile(sides[0].times, q.p))/float64(percentile(sides[1].times, q.p)))
			emit("keys_attach_"+cond+"_"+q.name+"_ratio", float64(percentile(sides[2].times, q.p))/float64(percentile(sides[1].times, q.p)))
		}
	}
	// Every chat ran to the end.
	return r.checkLive(ids)
}

// startKeysTUI starts the cat chat, then the TUI on the rig's server, and
// puts the TUI in the chat (Enter on the one chat listed) so its keys go to
// cat; it returns the chat and the TUI.
func startKeysTUI(r *serverRig, td *teardown) (string, *tuiProcess, error) {
	id, err := r.newChat(keysTUICat)
	if err != nil {
		return "", nil, err
	}
	if err := r.watch(); err != nil {
		return "", nil, err
	}
	if err := r.remote.Start(id, benchCols, benchRows); err != nil {
		return "", nil, fmt.Errorf("start chat %s: %w", id, err)
	}
	if err := r.waitAll([]string{id}, "running", func(id string) bool { return r.remote.State(id).Status.Live() }); err != nil {
		return "", nil, err
	}
	r.unwatch()
	cmd := exec.Command(r.binary)
	if p := os.Getenv("BENCH_TUI_CPUPROFILE"); p != "" {
		cmd.Env = append(os.Environ(), "ACPMUX_CPUPROFILE="+p)
	}
	if p := os.Getenv("BENCH_TUI_TRACE"); p != "" {
		if cmd.Env == nil {
			cmd.Env = os.Environ()
		}
		cmd.Env = append(cmd.Env, "ACPMUX_TRACE="+p)
	}
	tui, err := startOnScreen(cmd, "chats 1")
	if err != nil {
		return "", nil, err
	}
	td.add(func() {
		if err := tui.close(); err != nil {
			fmt.Fprintln(os.Stderr, "benchtool:", err)
		}
	})
	if err := tui.waitReady(); err != nil {
		return "", nil, err
	}
	focused := "keys go to " + keysTUICat
	if _, err := tui.keyUntilScreen("\r", strconv.Quote(focused), func(s *screen.Screen) bool { return screenHasAll(s, focused) }); err != nil {
		return "", nil, fmt.Errorf("put the TUI in the cat chat: %w", err)
	}
	return id, tui, nil
}

// startKeysAttach starts a second cat chat and `acpmux-tui attach` on it
// in a 160x45 pty; it returns the chat and the attached client. The chat
// draws nothing until typed into: the side's first marker shows it
// attached.
func startKeysAttach(r *serverRig, td *teardown) (string, *tuiProcess, error) {
	// The rig's connection went to the Remote it closed: a new one.
	conn, err := client.DialRunning(r.home)
	if err != nil {
		return "", nil, fmt.Errorf("connect to the server again: %w", err)
	}
	r.conn = conn
	id, err := r.newChat(keysTUICat)
	if err != nil {
		return "", nil, err
	}
	p, err := startOnScreen(exec.Command(r.binary, "attach", id), "")
	if err != nil {
		return "", nil, err
	}
	td.add(func() {
		if err := p.close(); err != nil {
			fmt.Fprintln(os.Stderr, "benchtool:", err)
		}
	})
	return id, p, nil
}

// startKeysTmux starts a tmux server with one 160x45 window running cat
// and attaches a client in a 160x45 pty; it returns the client and the
// server's pid.
func startKeysTmux(tm tmuxServer, td *teardown) (*tuiProcess, int, error) {
	td.add(tm.kill)
	if err := tm.startWindows(1, "exec cat"); err != nil {
		return nil, 0, err
	}
	out, err := tm.command("display-message", "-p", "#{pid}").Output()
	if err != nil {
		return nil, 0, fmt.Errorf("tmux display-message pid: %w", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return nil, 0, fmt.Errorf("tmux server pid %q: %w", out, err)
	}
	client, err := startOnScreen(tm.command("attach-session", "-t", "bench"), tmuxStatusMark)
	if err != nil {
		return nil, 0, err
	}
	td.add(func() { client.close() })
	if err := client.waitReady(); err != nil {
		return nil, 0, fmt.Errorf("tmux attach: %w", err)
	}
	return client, pid, nil
}

// addTickers starts keysTUIBusy chats of the tick harness in the server
// and as many tmux windows running tick (not shown: -d), and waits until
// each printed, the TUI lists them with its cat chat still focused, and
// tmux's status line lists the windows. It returns the new chats.
func addTickers(r *serverRig, ours *tuiProcess, tm tmuxServer, theirs *tuiProcess) ([]string, error) {
	// The rig's connection went to the Remote it closed: a new one.
	conn, err := client.DialRunning(r.home)
	if err != nil {
		return nil, fmt.Errorf("connect to the server again: %w", err)
	}
	r.conn = conn
	if err := r.watch(); err != nil {
		return nil, err
	}
	ids, err := r.startChats(keysTUITick, keysTUIBusy)
	if err != nil {
		return nil, err
	}
	if err := r.waitAll(ids, "printing", func(id string) bool { return printing(r, id) }); err != nil {
		return nil, err
	}
	r.unwatch()
	listed, focused := "chats "+strconv.Itoa(2+keysTUIBusy), "keys go to "+keysTUICat
	if err := ours.untilScreen(fmt.Sprintf("%q and %q", listed, focused), func(s *screen.Screen) bool { return screenHasAll(s, listed, focused) }); err != nil {
		return nil, fmt.Errorf("the TUI with the ticking chats: %w", err)
	}

	command, err := tmuxScaleCommand()
	if err != nil {
		return nil, err
	}
	var args []string
	for i := range keysTUIBusy {
		if i > 0 {
			args = append(args, ";")
		}
		// Named, so the status line holds all eleven whatever this
		// program is called (tmux names a window after its command).
		args = append(args, "new-window", "-d", "-n", "tick", command)
	}
	if out, err := tm.command(args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("tmux new-window: %w: %s", err, out)
	}
	if err := tm.checkWindows(1 + keysTUIBusy); err != nil {
		return nil, err
	}
	if err := tm.waitPanes(tmuxPrinting); err != nil {
		return nil, err
	}
	last := strconv.Itoa(keysTUIBusy) + ":"
	if err := theirs.untilScreen(fmt.Sprintf("window %q on the status line", last), func(s *screen.Screen) bool {
		_, rows := s.Size()
		return strings.Contains(s.PlainLine(rows-1), " "+last)
	}); err != nil {
		return nil, fmt.Errorf("the tmux client with the ticking windows: %w", err)
	}
	return ids, nil
}

// echoSide is one side's keys: its pty, its line so far and the times of
// the current condition.
type echoSide struct {
	name   string
	p      *tuiProcess
	lineNo int
	line   string // the marker and the keys typed on this line
	keys   int    // timed keys on this line
	times  []time.Duration
}

// step types the i-th key after a pause of gap, first ending the line with
// an untimed Enter when it is full and starting a new one with its marker,
// and records the key's round trip.
func (s *echoSide) step(i int, gap time.Duration) error {
	if s.keys == keysTUIPerLine {
		if err := s.enter(); err != nil {
			return fmt.Errorf("enter after key %d: %w", i, err)
		}
	}
	if s.line == "" {
		if err := s.mark(); err != nil {
			return fmt.Errorf("marker before key %d: %w", i, err)
		}
	}
	if gap > 0 {
		time.Sleep(gap)
	}
	key := keyAt(i)
	want := s.line + string(key)
	base := s.p.stamps()
	d, err := s.p.typeUntil(string(key), strconv.Quote(want), changedRowHas(base, want))
	if err != nil {
		return fmt.Errorf("key %d: %w", i, err)
	}
	s.line, s.keys = want, s.keys+1
	s.times = append(s.times, d)
	return nil
}

// freshLine ends the line if keys are on it, and types the next marker.
func (s *echoSide) freshLine() error {
	if s.keys > 0 {
		if err := s.enter(); err != nil {
			return err
		}
	}
	if s.line == "" {
		return s.mark()
	}
	return nil
}

// mark types the next line's marker in one write and waits for its echo.
func (s *echoSide) mark() error {
	s.lineNo++
	marker := "#" + strconv.Itoa(s.lineNo) + ":"
	base := s.p.stamps()
	if _, err := s.p.typeUntil(marker, strconv.Quote(marker), changedRowHas(base, marker)); err != nil {
		return err
	}
	s.line, s.keys = marker, 0
	return nil
}

// enter sends Enter and waits until the line is on two rows: the echo's
// and cat's, which printed it back.
func (s *echoSide) enter() error {
	line := s.line
	if _, err := s.p.typeUntil("\r", fmt.Sprintf("%q twice (cat printed it back)", line), func(sc *screen.Screen) bool {
		_, rows := sc.Size()
		seen := 0
		for i := range rows {
			if strings.Contains(sc.PlainLine(i), line) {
				seen++
			}
		}
		return seen >= 2
	}); err != nil {
		return err
	}
	s.line, s.keys = "", 0
	return nil
}

// changedRowHas is a screen test that holds once a row whose stamp is not
// the one in base (a row changed since base was read) holds want. It
// remembers the stamps it has looked at, so each row is read once per
// change.
func changedRowHas(base []uint64, want string) func(*screen.Screen) bool {
	seen := base
	var cur []uint64
	return func(s *screen.Screen) bool {
		cur = s.Stamps(cur[:0])
		if len(cur) != len(seen) { // resized: look at every row
			seen = make([]uint64, len(cur))
		}
		for i, st := range cur {
			if st == seen[i] {
				continue
			}
			seen[i] = st
			if strings.Contains(s.PlainLine(i), want) {
				return true
			}
		}
		return false
	}
}

// typeUntil is keyUntilScreen for either side (the TUI or tmux's client):
// it writes key to the pty and returns the time from the write to the read
// of output after which the emulated screen passes test.
func (t *tuiProcess) typeUntil(key, what string, test func(*screen.Screen) bool) (time.Duration, error) {
	at := t.awaitScreen(test)
	begin := time.Now()
	if _, err := t.master.Write([]byte(key)); err != nil {
		return 0, fmt.Errorf("type %q: %w", key, err)
	}
	select {
	case end := <-at:
		return end.Sub(begin), nil
	case <-t.done:
		return 0, fmt.Errorf("it ended after %q, before its screen showed %s", key, what)
	case <-time.After(keyWait):
		return 0, fmt.Errorf("its screen showed no %s within %s of %q:\n%s", what, keyWait, key, t.screenText())
	}
}

// stamps reads the emulated screen's row stamps.
func (t *tuiProcess) stamps() []uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.scr.Stamps(nil)
}

// untilScreen waits until the emulated screen passes test (tried now and
// after each read of output), for at most serverWait; what names what
// test looks for.
func (t *tuiProcess) untilScreen(what string, test func(*screen.Screen) bool) error {
	t.mu.Lock()
	if test(t.scr) {
		t.mu.Unlock()
		return nil
	}
	t.scrTest, t.scrAt = test, make(chan time.Time, 1)
	at := t.scrAt
	t.mu.Unlock()
	select {
	case <-at:
		return nil
	case <-t.done:
		return errors.New("it ended before its screen showed " + what)
	case <-time.After(serverWait):
		return fmt.Errorf("its screen showed no %s within %s:\n%s", what, serverWait, t.screenText())
	}
}
