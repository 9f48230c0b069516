package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/coder/acp-go-sdk"
)

// maxBurst bounds the count of the burst and noise commands.
const maxBurst = 10_000_000

// burst sends N agent_message_chunk updates back to back, numbered
// "u000001 ", "u000002 " and so on, then ends the turn; noise sends N
// extension notifications (_acpfake/noise) back to back, then says
// "noise: N sent". A client that queues notifications without bound, or
// drops updates, shows here.
func init() {
	attacks["burst"] = func(t *turnRun, arg string) (acp.StopReason, error) {
		n, err := burstCount(arg)
		if err != nil {
			return "", err
		}
		for i := 1; i <= n; i++ {
			if err := t.say(burstChunk(i)); err != nil {
				return "", err
			}
		}
		logf("acpfake: burst of %d updates sent", n)
		return t.stopReason(), nil
	}
	attacks["noise"] = func(t *turnRun, arg string) (acp.StopReason, error) {
		n, err := burstCount(arg)
		if err != nil {
			return "", err
		}
		ctx := context.WithoutCancel(t.ctx)
		for i := 1; i <= n; i++ {
			if err := t.a.conn.NotifyExtension(ctx, "_acpfake/noise", map[string]int{"n": i}); err != nil {
				return "", err
			}
		}
		logf("acpfake: %d noise notifications sent", n)
		return t.stopReason(), t.say(fmt.Sprintf("noise: %d sent", n))
	}
}

func burstCount(arg string) (int, error) {
	n, err := strconv.Atoi(arg)
	if err != nil || n < 0 || n > maxBurst {
		return 0, fmt.Errorf("want a count from 0 to %d, got %q", maxBurst, arg)
	}
	return n, nil
}

// burstChunk is the text of the burst command's i-th update (from 1).
func burstChunk(i int) string {
	return fmt.Sprintf("u%06d ", i)
}
