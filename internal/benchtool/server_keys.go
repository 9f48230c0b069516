package main

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/acpmux/acpmux-tui/config"
)

// The keystroke round trip: keys typed one at a time into `cat` in a pty,
// each timed from the write until the key shows (the pty's echo), through
// three paths: a client of our server (Remote.Write, then the chat's screen
// rendered on the change notice), a tmux pane (send-keys, then
// capture-pane), and a bare pty (a write to its master, then a read of the
// echo). Every path types the same keys: the letters and digits in turn,
// 150 to a line, then an untimed Enter (cat prints the line back) so no
// line wraps and the pty's line buffer never fills.

// keysPerLine is how many timed keys go on one line before the Enter.
const keysPerLine = 150

// keyChars are the keys typed, in turn.
const keyChars = "abcdefghijklmnopqrstuvwxyz0123456789"

// keyAt is the i-th key typed.
func keyAt(i int) byte { return keyChars[i%len(keyChars)] }

// keyWait bounds the wait for one key's echo.
const keyWait = 30 * time.Second

// keyTyper is one path keys travel: type sends a key and returns once it
// shows; enter sends an untimed Enter and returns once cat has printed the
// line back.
type keyTyper interface {
	typeKey(key byte, line string) error
	enter(line string) error
}

// typeKeys types n keys through k, gap apart (from one key's echo to the
// next key), and returns each key's round trip.
func typeKeys(k keyTyper, n int, gap time.Duration) ([]time.Duration, error) {
	run := &keyRun{k: k}
	for i := range n {
		if err := run.step(i, gap); err != nil {
			return nil, err
		}
	}
	return run.times, nil
}

// keyRun is one path's keys typed so far: the line they make and each
// key's round trip.
type keyRun struct {
	k     keyTyper
	line  strings.Builder
	times []time.Duration
}

// step types the i-th key after a pause of gap, first ending the line with
// an untimed Enter when it is full, and records the key's round trip.
func (r *keyRun) step(i int, gap time.Duration) error {
	if r.line.Len() == keysPerLine {
		if err := r.k.enter(r.line.String()); err != nil {
			return fmt.Errorf("enter after key %d: %w", i, err)
		}
		r.line.Reset()
	}
	if gap > 0 {
		time.Sleep(gap)
	}
	key := keyAt(i)
	r.line.WriteByte(key)
	begin := time.Now()
	if err := r.k.typeKey(key, r.line.String()); err != nil {
		return fmt.Errorf("key %d (%q): %w", i, key, err)
	}
	r.times = append(r.times, time.Since(begin))
	return nil
}

// emitKeyTimes prints the round trips' count, median, 99th percentile,
// mean and maximum, in milliseconds.
func emitKeyTimes(bench string, times []time.Duration, gap time.Duration) {
	emit("bench", bench)
	emit("keys", len(times))
	emit("gap_ms", float64(gap)/float64(time.Millisecond))
	emit("p50_ms", ms(percentile(times, 0.50)))
	emit("p99_ms", ms(percentile(times, 0.99)))
	var sum time.Duration
	for _, t := range times {
		sum += t
	}
	emit("mean_ms", ms(sum/time.Duration(max(len(times), 1))))
	emit("max_ms", ms(slices.Max(times)))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// percentile returns the nearest-rank p-th percentile (0 < p <= 1).
func percentile(times []time.Duration, p float64) time.Duration {
	s := slices.Clone(times)
	slices.Sort(s)
	i := int(math.Ceil(p*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// serverKeys types n keys into a chat whose harness is `cat`, run by a
// real server, through a client.Remote that names the chat as the one it
// draws, as the TUI does: each key is a Write, and it has shown once a
// screen rendered on a change notice ends with it. The screen is rendered
// as soon as the notice comes (the TUI would gather notices for one more
// frame first).
func serverKeys(binary, home string, n int, gap time.Duration) error {
	return keysAlone("server-keys", n, gap, func() (keyTyper, func(), error) { return newServerTyper(binary, home) })
}

// keysAlone types n keys through the one path open makes, and prints their
// figures as bench.
func keysAlone(bench string, n int, gap time.Duration, open func() (keyTyper, func(), error)) error {
	k, done, err := open()
	if err != nil {
		return err
	}
	defer done()
	times, err := typeKeys(k, n, gap)
	if err != nil {
		return err
	}
	emitKeyTimes(bench, times, gap)
	return nil
}

// newServerTyper starts a server on home with a chat running `cat`, shown
// by this process's Remote, and returns the typer into it and what ends
// the server.
func newServerTyper(binary, home string) (keyTyper, func(), error) {
	r, err := newServerRig(binary, home, map[string]config.HarnessConfig{"bench-keys": {Command: "/bin/cat"}})
	if err != nil {
		return nil, nil, err
	}
	id, err := r.newChat("bench-keys")
	if err == nil {
		err = r.watch()
	}
	if err != nil {
		r.close()
		return nil, nil, err
	}
	// The TUI names the chat it draws, and is sent its screen with each
	// change; so does this client.
	r.remote.Show(id)
	if err := r.remote.Start(id, benchCols, benchRows); err != nil {
		r.close()
		return nil, nil, fmt.Errorf("start chat %s: %w", id, err)
	}
	if err := r.waitAll([]string{id}, "running", func(id string) bool { return r.remote.State(id).Status.Live() }); err != nil {
		r.close()
		return nil, nil, err
	}
	return &remoteTyper{r: r, id: id}, r.close, nil
}

// remoteTyper types into a chat of the server through the rig's Remote.
type remoteTyper struct {
	r  *serverRig
	id string
}

func (t *remoteTyper) typeKey(key byte, line string) error {
	return t.send([]byte{key}, func(text string) bool { return lastRow(text) == line })
}

func (t *remoteTyper) enter(line string) error {
	return t.send([]byte{'\r'}, func(text string) bool { return lineEchoed(plainRows(text), line) })
}

// send writes p and renders the chat on each change notice until shown
// holds for the screen.
func (t *remoteTyper) send(p []byte, shown func(text string) bool) error {
	rem := t.r.remote
	changes := rem.Changes()
	// A notice left from before is dropped; reading the state lets the
	// Remote tell of the next change.
	for len(changes) > 0 {
		<-changes
	}
	rem.State(t.id)
	if err := rem.Write(t.id, p); err != nil {
		return err
	}
	deadline := time.NewTimer(keyWait)
	defer deadline.Stop()
	var text string
	for {
		select {
		case <-changes:
		case <-deadline.C:
			return fmt.Errorf("not shown after %s; the screen ends with %q", keyWait, lastRow(text))
		}
		text = rem.Render(t.id, 0)
		if shown(text) {
			return nil
		}
	}
}

// lineEchoed reports whether a screen's last two non-blank rows are both
// line: the pty echoed it and cat printed it back.
func lineEchoed(rows []string, line string) bool {
	var last []string
	for i := len(rows) - 1; i >= 0 && len(last) < 2; i-- {
		if rows[i] != "" {
			last = append(last, rows[i])
		}
	}
	return len(last) == 2 && last[0] == line && last[1] == line
}

// errNoEcho is a pty that ended before it echoed a key.
var errNoEcho = errors.New("the pty ended before the echo")
