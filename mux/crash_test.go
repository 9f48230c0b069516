package mux

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
)

// The tests of this file check that a harness which prints why it fails and
// exits at once (as the real Claude Code does offline) leaves those lines
// readable: on the screen once it has exited, above the divider of the
// respawn that follows, after the chat has failed, and quoted in its state.

// lastWords is the line the fake's die-loud mode ends with, as plain text.
const lastWords = "FATAL: cannot reach the service (ENOTFOUND)"

func TestCrashLeavesItsLastWordsOnScreen(t *testing.T) {
	r := newRig(t, "die-loud:3", func(_ *config.Config, o *Options) {
		// No respawn during the test: the screen is the crashed run's.
		o.BackoffBase = time.Hour
	})
	m := r.create("shell", nil)
	if err := r.mux.Start(m.ID, 60, 12); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the harness to exit with status 1", func() bool {
		st := r.mux.State(m.ID)
		return st.Status == proto.StatusExited && st.ExitCode == 1
	})
	lines := r.mux.PlainLines(m.ID)
	want := []string{"loud line 1", "loud line 2", "loud line 3", lastWords}
	if !slices.Equal(lines[:4], want) {
		t.Fatalf("after the crash the screen shows\n%q\nwant it to begin %q", lines, want)
	}
	if st := r.mux.State(m.ID); st.LastOutput != lastWords || st.LastError != "exit status 1" {
		t.Fatalf("state after the crash: last output %q, last error %q; want %q, %q", st.LastOutput, st.LastError, lastWords, "exit status 1")
	}
}

// TestCrashesStayAboveTheRespawnDivider: each respawn's divider goes below
// the crashed run's lines, so every run's last words stay on the screen, and
// the failed chat quotes the last run's.
func TestCrashesStayAboveTheRespawnDivider(t *testing.T) {
	r := newRig(t, "die-loud:2", func(_ *config.Config, o *Options) { o.MaxRespawns = 2 })
	m := r.create("shell", nil)
	if err := r.mux.Start(m.ID, 60, 20); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the chat to fail after 3 crashes", func() bool { return r.mux.State(m.ID).Status == proto.StatusFailed })
	st := r.mux.State(m.ID)
	if st.LastOutput != lastWords || !strings.HasPrefix(st.Reason, "crashed 3 times") {
		t.Fatalf("failed chat: last output %q, reason %q; want %q and the crash count", st.LastOutput, st.Reason, lastWords)
	}
	// Three runs, each its lines and a blank line, two dividers between.
	var got []string
	for _, l := range r.mux.PlainLines(m.ID) {
		switch {
		case strings.HasPrefix(l, "── respawned ") && strings.HasSuffix(l, "──"):
			got = append(got, "divider")
		case l != "":
			got = append(got, l)
		}
	}
	run := []string{"loud line 1", "loud line 2", lastWords}
	want := slices.Concat(run, []string{"divider"}, run, []string{"divider"}, run)
	if !slices.Equal(got, want) {
		t.Fatalf("the failed chat's screen (blank lines left out):\n%q\nwant\n%q", got, want)
	}
}

// TestCrashAfterAFloodIsReadToTheEnd: a harness that writes far more than
// the pty holds and exits at once has its output read to the last line
// before its exit is reported.
func TestCrashAfterAFloodIsReadToTheEnd(t *testing.T) {
	const n = 20000 // about 300 KB: many times what a pty buffers
	r := newRig(t, fmt.Sprintf("die-loud:%d", n), func(_ *config.Config, o *Options) { o.BackoffBase = time.Hour })
	m := r.create("shell", nil)
	if err := r.mux.Start(m.ID, 60, 12); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the harness to exit with status 1", func() bool {
		st := r.mux.State(m.ID)
		return st.Status == proto.StatusExited && st.ExitCode == 1
	})
	lines := r.mux.PlainLines(m.ID)
	i := slices.Index(lines, lastWords)
	if i < 1 || lines[i-1] != fmt.Sprintf("loud line %d", n) {
		t.Fatalf("once it exited the screen shows\n%q\nwant line %d then %q", lines, n, lastWords)
	}
	if st := r.mux.State(m.ID); st.LastOutput != lastWords {
		t.Fatalf("last output %q, want %q", st.LastOutput, lastWords)
	}
}

// TestQuickCrashesFailHoweverSpread: runs that each crash soon after their
// start fail the chat after MaxRespawns respawns even when the backoff
// spreads the crashes over more than RespawnWindow of the clock (a real
// agent that takes long to start and fail, on a loaded machine); runs that
// last RespawnWindow start the count again.
func TestQuickCrashesFailHoweverSpread(t *testing.T) {
	r := newRig(t, "die-loud:1", func(_ *config.Config, o *Options) {
		// Crashes at about 0, 2 and 6 s: never more than two in any 5 s.
		o.MaxRespawns, o.RespawnWindow, o.BackoffBase = 2, 5*time.Second, 2*time.Second
	})
	m := r.create("shell", nil)
	if err := r.mux.Start(m.ID, 60, 12); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the chat to fail after its third quick crash", func() bool { return r.mux.State(m.ID).Status == proto.StatusFailed })
	if st := r.mux.State(m.ID); !strings.HasPrefix(st.Reason, "crashed 3 times in a row") || st.Restarts != 2 {
		t.Fatalf("failed chat: reason %q after %d restarts; want 3 crashes in a row, 2 restarts", st.Reason, st.Restarts)
	}

	lasting := newRig(t, "die-loud:1", func(_ *config.Config, o *Options) {
		// Every run lasts the window: none is a crash loop.
		o.MaxRespawns, o.RespawnWindow, o.BackoffBase = 2, time.Nanosecond, time.Millisecond
	})
	m = lasting.create("shell", nil)
	if err := lasting.mux.Start(m.ID, 60, 12); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "five respawns of runs that lasted", func() bool {
		st := lasting.mux.State(m.ID)
		if st.Status == proto.StatusFailed {
			t.Fatalf("runs that lasted the window failed the chat: %s", st.Reason)
		}
		return st.Restarts >= 5
	})
	lasting.mux.Stop(m.ID)
}
