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
	r := scriptAgentRig(t, "hold_stderr\nexec "+fakeACP+"\n", nil)
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

// scriptAgentRig is an ACP rig whose harness "fake" is a shell script
// running run, shell lines that end by exec'ing an agent. They may call
// hold_stderr, which leaves a process of another session holding the
// script's stderr open (so a reap waits for the pipe's end); each such
// process is killed as the test ends. tweak, when set, changes the config
// further.
func scriptAgentRig(t *testing.T, run string, tweak func(*config.Config)) *acpRig {
	t.Helper()
	dir := t.TempDir()
	pids := filepath.Join(dir, "grandchildren.pid")
	script := filepath.Join(dir, "agent.sh")
	body := "#!/bin/sh\nhold_stderr() {\n  setsid sleep 600 </dev/null >/dev/null &\n  echo $! >> " + pids + "\n}\n" + run
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b, _ := os.ReadFile(pids)
		for _, line := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(line); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return newACPRigTweaked(t, nil, func(cfg *config.Config) {
		h := cfg.Harness["fake"]
		h.Command = script
		cfg.Harness["fake"] = h
		if tweak != nil {
			tweak(cfg)
		}
	})
}
