package main

import (
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
)

// idlePrompt is what the idle harness prints once before it falls silent,
// as an agent at its prompt does.
const idlePrompt = "idle>"

// idle starts n chats whose harness prints a prompt and then sleeps, waits
// until every one has gone quiet (the mux reports it waiting for input),
// then measures the CPU time this process uses over secs seconds while it
// holds them.
func idle(n int, secs float64) error {
	r, err := newRig(map[string]config.HarnessConfig{"bench-idle": {
		Command: "/bin/sh", Args: []string{"-c", "printf '" + idlePrompt + " '; exec sleep 3600"},
		Kind: harness.KindPlain, Transport: harness.TransportPty,
	}})
	if err != nil {
		return err
	}
	defer r.close()
	ids := make([]string, n)
	for i := range ids {
		if ids[i], err = r.create("bench-idle"); err != nil {
			return err
		}
		if err := r.start(ids[i]); err != nil {
			return err
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, id := range ids {
		for !idleReady(r, id) {
			if time.Now().After(deadline) {
				s := r.mux.State(id)
				return fmt.Errorf("chat %s did not settle at its prompt: status %s %s", id, s.Status, s.Reason)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	before, err := cpuTime()
	if err != nil {
		return err
	}
	time.Sleep(time.Duration(secs * float64(time.Second)))
	after, err := cpuTime()
	if err != nil {
		return err
	}
	for _, id := range ids {
		if s := r.mux.State(id); !s.Status.Live() {
			return fmt.Errorf("chat %s ended during the measurement: %s", id, s.Reason)
		}
	}
	emit("bench", "idle")
	emit("chats", n)
	emit("held_seconds", secs)
	emit("user_seconds", after.user-before.user)
	emit("sys_seconds", after.sys-before.sys)
	emit("cpu_seconds", (after.user+after.sys)-(before.user+before.sys))
	return nil
}

// idleReady reports whether the chat shows its prompt and is waiting.
func idleReady(r *rig, id string) bool {
	if r.mux.State(id).Status != proto.StatusWaiting {
		return false
	}
	lines := r.mux.PlainLines(id)
	return len(lines) > 0 && strings.HasPrefix(lines[0], idlePrompt)
}

type cpu struct{ user, sys float64 }

// cpuTime returns this process's user and system CPU seconds so far.
func cpuTime() (cpu, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return cpu{}, fmt.Errorf("getrusage: %w", err)
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return cpu{user: tv(ru.Utime), sys: tv(ru.Stime)}, nil
}
