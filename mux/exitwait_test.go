package mux

import (
	"errors"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestWaitPolledReapsWithTheExitStatus: the polled wait returns what
// cmd.Wait does, the exit code kept, for a child still running when the
// wait starts and for one that had already exited.
func TestWaitPolledReapsWithTheExitStatus(t *testing.T) {
	for _, script := range []string{"read x; exit 3", "exit 3"} {
		cmd := exec.Command("sh", "-c", script)
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- waitPolled(cmd) }()
		in.Close() // the first script's child exits now
		var err2 error
		select {
		case err2 = <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("%q: waited 30 s for the polled wait to see the child exit", script)
		}
		var ee *exec.ExitError
		if !errors.As(err2, &ee) || ee.ExitCode() != 3 {
			t.Fatalf("%q: polled wait returned %v, want exit status 3", script, err2)
		}
		if !cmd.ProcessState.Exited() {
			t.Fatalf("%q: process state %v is not exited", script, cmd.ProcessState)
		}
	}
}

// TestWaitPolledParksInThePoller: while children run, each polled wait
// is a goroutine parked in the poller ("IO wait"), not one blocked in a
// waitid system call, which holds an OS thread per child as os/exec's
// Wait does.
func TestWaitPolledParksInThePoller(t *testing.T) {
	const n = 8
	var cmds []*exec.Cmd
	done := make(chan error, n)
	for range n {
		cmd := exec.Command("sleep", "600")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		go func() { done <- waitPolled(cmd) }()
	}
	defer func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
		}
		for range n {
			<-done
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		parked, states := waitStates()
		if parked == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 30 s for %d polled waits to park in the poller; their goroutines are %v", n, states)
		}
		runtime.Gosched()
	}
}

// waitStates returns how many goroutines in waitPolled are parked in the
// poller, and the states of all of them.
func waitStates() (parked int, states []string) {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if !strings.Contains(g, "mux.waitPolled(") {
			continue
		}
		head, _, _ := strings.Cut(g, "\n")
		state := head[strings.IndexByte(head, '[')+1:]
		states = append(states, state)
		if strings.HasPrefix(state, "IO wait") {
			parked++
		}
	}
	return parked, states
}
