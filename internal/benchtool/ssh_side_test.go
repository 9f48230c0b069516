package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/sshd"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
)

// TestSSHBenchRuns runs the ssh row briefly against the real binary, a
// real sshd and tmux: each part must find what it waits for (every key on
// both screens, the flood's last line on both, the idle prompt over the
// link). It skips, saying so, when sshd cannot be started here.
func TestSSHBenchRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds acpmux-tui and runs sshd")
	}
	tmuxBin, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("no tmux: the ssh row runs beside tmux over ssh")
	}
	if _, err := sshd.Binary(); errors.Is(err, sshd.ErrUnavailable) {
		fmt.Fprintf(os.Stderr, "SKIP %s: %v\n", t.Name(), err)
		t.Skipf("skipping: %v", err)
	}
	dir, binary, file := benchWorld(t)
	t.Setenv("TMUX", "")
	err = sshBench(binary, filepath.Join(dir, "ssh"), tmuxBin, file, keysPerLine+10, 0, 2, 0.5)
	if errors.Is(err, sshd.ErrUnavailable) {
		fmt.Fprintf(os.Stderr, "SKIP %s: %v\n", t.Name(), err)
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	// What the row started ends with it; sshd's session processes and the
	// far side's server take a moment after their link closes.
	left := func() string {
		out, _ := exec.Command("pgrep", "-af", dir).Output()
		return string(out)
	}
	wait.UntilShow(t, "every process of "+dir+" to end after the row", func() bool { return left() == "" }, left)
}
