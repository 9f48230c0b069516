package main

import (
	"fmt"
	"os"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
)

// tuiFrame is how long the TUI gathers change notices into one redraw
// (tui.Options.Frame's default).
const tuiFrame = 16 * time.Millisecond

// serverThroughput times one 160x45 chat whose harness is `cat file`, run
// by a real server on a fresh agent home, watched by a client.Remote that
// draws as the TUI does: it waits for a change notice, gathers the others
// that come within one frame, then reads the chat's state and renders its
// screen. The time runs from the start call until the harness has exited
// and the screen rendered after that shows the file's last line.
func serverThroughput(binary, home, file string) error {
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	want, err := lastLine(file)
	if err != nil {
		return err
	}
	r, err := newServerRig(binary, home, map[string]config.HarnessConfig{"bench-cat": catHarness(file)})
	if err != nil {
		return err
	}
	defer r.close()
	id, err := r.newChat("bench-cat")
	if err != nil {
		return err
	}
	if err := r.watch(); err != nil {
		return err
	}
	// The TUI names the chat it draws, and is sent its screen with each
	// change; so does this client.
	r.remote.Show(id)
	changes := r.remote.Changes()

	frames := 0
	begin := time.Now()
	if err := r.remote.Start(id, benchCols, benchRows); err != nil {
		return fmt.Errorf("start chat %s: %w", id, err)
	}
	deadline := time.NewTimer(10 * time.Minute)
	defer deadline.Stop()
	var text string
	var state proto.State
	for {
		select {
		case <-changes:
		case <-deadline.C:
			return fmt.Errorf("chat %s: no end after 10 minutes (status %s, last row %q)", id, state.Status, lastRow(text))
		}
		gatherFrame(changes)
		state = r.remote.State(id)
		text = r.remote.Render(id, 0)
		frames++
		if state.Status == proto.StatusFailed || (state.Status == proto.StatusExited && state.ExitCode != 0) {
			return fmt.Errorf("cat %s: %s", file, state.Reason)
		}
		if state.Status == proto.StatusExited && lastRow(text) == want {
			break
		}
	}
	secs := time.Since(begin).Seconds()

	emit("bench", "server-throughput")
	emit("bytes", st.Size())
	emit("seconds", secs)
	emit("mb_per_s", float64(st.Size())/1e6/secs)
	emit("frames_rendered", frames)
	emit("last_line_on_screen", true)
	return nil
}

// gatherFrame takes the change notices that come within one frame, as the
// TUI's waitChanges does after the first (only one chat is watched here,
// so which ones they name does not matter).
func gatherFrame(changes <-chan string) {
	t := time.NewTimer(tuiFrame)
	defer t.Stop()
	for {
		select {
		case <-changes:
		case <-t.C:
			return
		}
	}
}
