package mux

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
)

// TestACPAgentWhoseGrandchildHoldsStderrStops: an agent that leaves a
// process of another session holding its stderr open still stops, and
// its chat says so: the server reads the stderr itself, and stops waiting
// for the pipe's end a while after the agent exits.
func TestACPAgentWhoseGrandchildHoldsStderrStops(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "grandchild.pid")
	script := filepath.Join(dir, "agent.sh")
	body := "#!/bin/sh\nsetsid sleep 600 </dev/null >/dev/null &\necho $! > " + pidFile + "\nexec " + fakeACP + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	r := newACPRigTweaked(t, nil, func(cfg *config.Config) {
		h := cfg.Harness["fake"]
		h.Command = script
		cfg.Harness["fake"] = h
	})
	m := r.create("fake", nil)
	r.ready(m.ID)
	if _, err := r.prompt(m.ID, "hello"); err != nil {
		t.Fatal(err)
	}
	r.mux.Stop(m.ID)
	waitFor(t, "the chat stopped while a grandchild holds its agent's stderr", func() bool {
		return r.mux.State(m.ID).Status == proto.StatusStopped
	})
}
