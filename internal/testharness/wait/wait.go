// Package wait is how tests wait for a condition: it is checked again on a
// timer that backs off from 1 ms to 50 ms, and the deadline only detects a
// hang (Hang), so no test depends on how fast the machine is.
package wait

import (
	"testing"
	"time"
)

// Hang is how long a wait lasts before the test calls it a hang.
const Hang = 3 * time.Minute

// Until waits until cond holds, failing t after Hang.
func Until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	UntilShow(t, what, cond, nil)
}

// UntilShow is Until, and a failure also prints what show returns (the
// last thing seen), when show is set.
func UntilShow(t testing.TB, what string, cond func() bool, show func() string) {
	t.Helper()
	deadline := time.NewTimer(Hang)
	defer deadline.Stop()
	backoff := time.Millisecond
	for !cond() {
		tick := time.NewTimer(backoff)
		select {
		case <-deadline.C:
			tick.Stop()
			if show != nil {
				t.Fatalf("timed out after %v waiting for %s; last seen:\n%s", Hang, what, show())
			}
			t.Fatalf("timed out after %v waiting for %s", Hang, what)
		case <-tick.C:
		}
		backoff = min(2*backoff, 50*time.Millisecond)
	}
}
