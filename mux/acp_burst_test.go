package mux

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// burstChunk is the text of the fake's burst command's i-th update.
func burstChunk(i int) string { return fmt.Sprintf("u%06d ", i) }

// TestACPBurstOfUpdatesArrivesInOrder: an agent that sends updates back to
// back, far more than the SDK's queue of 1,024, is not killed: every update
// reaches the transcript in order, the turn ends, and the same agent takes
// the next prompt.
func TestACPBurstOfUpdatesArrivesInOrder(t *testing.T) {
	big := 100_000
	if raceEnabled {
		// The race detector makes each update ~10x dearer; the point (far
		// past the SDK's 1,024) stands at this size.
		big = 25_000
	}
	for _, n := range []int{2_000, big} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			r := newACPRig(t, nil)
			m := r.create("fake", nil)
			r.ready(m.ID)
			pid := r.mux.State(m.ID).Pid
			var before runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)

			ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
			defer cancel()
			reason, err := r.mux.Prompt(ctx, m.ID, fmt.Sprintf("burst %d", n))
			if err != nil || reason != "end_turn" {
				t.Fatalf("burst %d: stop reason %q, err %v\nlog:\n%s", n, reason, err, tail(r.logBuf.String(), 3000))
			}

			got := r.lastAgentText(m.ID)
			var want strings.Builder
			for i := 1; i <= n; i++ {
				want.WriteString(burstChunk(i))
			}
			if got != want.String() {
				i := 0
				for i < len(got) && i < len(want.String()) && got[i] == want.String()[i] {
					i++
				}
				t.Fatalf("transcript holds %d bytes, want %d; first difference at byte %d: %q",
					len(got), want.Len(), i, got[max(i-20, 0):min(i+20, len(got))])
			}
			st := r.mux.State(m.ID)
			if st.Pid != pid || st.Status != proto.StatusWaiting {
				t.Fatalf("after the burst: pid %d (was %d), status %v: the agent was restarted or failed", st.Pid, pid, st.Status)
			}
			if strings.Contains(r.logBuf.String(), "overflow") {
				t.Fatalf("the log reports an overflow:\n%s", tail(r.logBuf.String(), 3000))
			}
			// Every update was applied as it was read, none queued by the SDK.
			c, _ := r.mux.acpChat(m.ID)
			c.mu.Lock()
			taken := c.proc.conn.Notifications()
			c.mu.Unlock()
			if taken < int64(n) {
				t.Fatalf("the wire guard applied %d notifications, want at least %d", taken, n)
			}

			var after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&after)
			grew := int64(after.HeapInuse) - int64(before.HeapInuse)
			t.Logf("%d updates: heap in use grew %d KiB (the text alone is %d KiB)", n, grew>>10, want.Len()>>10)
			if grew > 64<<20 {
				t.Fatalf("heap in use grew by %d MiB for %d updates", grew>>20, n)
			}

			if reason, err := r.prompt(m.ID, "still there?"); err != nil || reason != "end_turn" {
				t.Fatalf("the next prompt: %q %v", reason, err)
			}
			if got := r.lastAgentText(m.ID); got != "echo: still there?" {
				t.Fatalf("the next prompt got %q", got)
			}
		})
	}
}

// tail is the end of a long log, for failure messages.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// TestACPFloodOfOtherNotificationsIsDropped: notifications acpmux-tui has
// no handler for (here an extension's) are dropped as they are read, with a
// few log lines, however many come: the agent is not killed.
func TestACPFloodOfOtherNotificationsIsDropped(t *testing.T) {
	const n = 5_000
	r := newACPRig(t, nil)
	m := r.create("fake", nil)
	r.ready(m.ID)
	pid := r.mux.State(m.ID).Pid
	ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
	defer cancel()
	reason, err := r.mux.Prompt(ctx, m.ID, fmt.Sprintf("noise %d", n))
	if err != nil || reason != "end_turn" {
		t.Fatalf("noise: %q %v\nlog:\n%s", reason, err, tail(r.logBuf.String(), 3000))
	}
	if got, want := r.lastAgentText(m.ID), fmt.Sprintf("noise: %d sent", n); got != want {
		t.Fatalf("agent said %q, want %q", got, want)
	}
	if st := r.mux.State(m.ID); st.Pid != pid || st.Status != proto.StatusWaiting {
		t.Fatalf("after the noise: pid %d (was %d), status %v", st.Pid, pid, st.Status)
	}
	if logged := strings.Count(r.logBuf.String(), "dropped a notification"); logged == 0 || logged > 10 {
		t.Fatalf("%d drops logged, want a few", logged)
	}
}
