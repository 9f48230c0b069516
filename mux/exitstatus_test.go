package mux

import (
	"os/exec"
	"testing"
)

// TestExitStatusNamesTheSignal: a harness killed by a signal is said to be
// "killed by SIGKILL", not by the signal's description ("killed by
// killed"); a plain exit gives its status.
func TestExitStatusNamesTheSignal(t *testing.T) {
	for _, tt := range []struct {
		script string
		code   int
		how    string
	}{
		{"kill -KILL $$", -1, "killed by SIGKILL"},
		{"kill -TERM $$", -1, "killed by SIGTERM"},
		// Not SIGHUP: under nohup it is ignored, and so in the shell.
		{"kill -USR1 $$", -1, "killed by SIGUSR1"},
		{"exit 3", 3, "exit status 3"},
	} {
		cmd := exec.Command("/bin/sh", "-c", tt.script)
		err := cmd.Run()
		code, how := exitStatus(cmd, err)
		if code != tt.code || how != tt.how {
			t.Errorf("%s: exitStatus = %d, %q; want %d, %q", tt.script, code, how, tt.code, tt.how)
		}
	}
}
