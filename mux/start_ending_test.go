package mux

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
)

// TestStartWaitsForAnAgentOnItsWayOut: a start asked for while the
// chat's agent has failed but is not yet reaped (here a grandchild holds
// its stderr, so the reap waits a while for the pipe's end) is made once
// that agent is gone, not taken as done because a process was there.
func TestStartWaitsForAnAgentOnItsWayOut(t *testing.T) {
	failedOnce := filepath.Join(t.TempDir(), "failed-once")
	// The first run leaves a process of another session holding its
	// stderr, then never answers initialize, so setup gives up on it and
	// kills it; later runs are the plain fake agent.
	run := "if [ ! -e " + failedOnce + " ]; then\n  : > " + failedOnce + "\n  hold_stderr\n" +
		"  ACPMUX_FAKE_INIT=mute exec " + fakeACP + "\nfi\nexec " + fakeACP + "\n"
	r := scriptAgentRig(t, run, func(cfg *config.Config) {
		cfg.ACP.InitTimeout = config.Duration{Duration: time.Second}
	})
	m := r.create("fake", nil)
	ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
	defer cancel()
	if err := r.mux.WaitReady(ctx, m.ID); err == nil {
		t.Fatal("the first run's setup reported no error")
	}
	before := r.mux.State(m.ID)
	if before.Status != proto.StatusFailed || before.Pid == 0 {
		t.Fatalf("want the failed agent not yet reaped when the start is asked for, got status %s, pid %d", before.Status, before.Pid)
	}
	if err := r.mux.Start(m.ID, 0, 0); err != nil {
		t.Fatalf("start: %v", err)
	}
	waitFor(t, "the chat started again by the start asked for while its failed agent was being reaped", func() bool {
		st := r.mux.State(m.ID)
		return st.Status == proto.StatusWaiting && st.Pid != 0 && st.Pid != before.Pid
	})
}
