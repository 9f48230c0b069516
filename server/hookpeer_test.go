package server

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestProcessOfHarness: a harness leads a session of its own; it and the
// processes of its session are its, the test (its parent) and a process of
// another session are not.
func TestProcessOfHarness(t *testing.T) {
	start := func() *exec.Cmd {
		t.Helper()
		// The shell prints its child's pid and waits for it.
		cmd := exec.Command("/bin/sh", "-c", "sleep 300 & echo $!; wait")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
		buf := make([]byte, 32)
		n, _ := out.Read(buf)
		child, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
		if err != nil {
			t.Fatalf("the harness's child pid: %q", buf[:n])
		}
		cmd.Env = []string{"CHILD=" + strconv.Itoa(child)}
		return cmd
	}
	childOf := func(cmd *exec.Cmd) int {
		n, _ := strconv.Atoi(strings.TrimPrefix(cmd.Env[0], "CHILD="))
		return n
	}
	a, b := start(), start()
	for _, tt := range []struct {
		name         string
		peer, harnss int
		want         bool
	}{
		{"the harness itself", a.Process.Pid, a.Process.Pid, true},
		{"a child in its session", childOf(a), a.Process.Pid, true},
		{"the test, its parent", os.Getpid(), a.Process.Pid, false},
		{"another chat's harness", b.Process.Pid, a.Process.Pid, false},
		{"a child of another chat", childOf(b), a.Process.Pid, false},
		{"a process that is gone", 1 << 30, a.Process.Pid, false},
		{"no peer pid", 0, a.Process.Pid, false},
		{"no harness", childOf(a), 0, false},
	} {
		if got := processOfHarness(tt.peer, tt.harnss); got != tt.want {
			t.Errorf("%s: processOfHarness(%d, %d) = %v, want %v", tt.name, tt.peer, tt.harnss, got, tt.want)
		}
	}
}

func TestProcStat(t *testing.T) {
	ppid, pgrp, sid, err := procStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if ppid != os.Getppid() || pgrp != syscall.Getpgrp() {
		t.Fatalf("procStat: ppid %d pgrp %d sid %d; want ppid %d pgrp %d", ppid, pgrp, sid, os.Getppid(), syscall.Getpgrp())
	}
}
