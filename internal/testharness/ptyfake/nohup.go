package main

import (
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// nohupChildMode is the mode of the child that "nohup" mode starts.
const nohupChildMode = "nohup-child"

// init turns the child of "nohup" mode into a process that ignores SIGHUP
// and sits in the harness's process group until another signal ends it.
// It runs before main, so the child records nothing.
func init() {
	if os.Getenv("ACPMUX_FAKE_MODE") == nohupChildMode {
		signal.Ignore(syscall.SIGHUP)
		waitForever()
	}
}

// nohup makes the harness, and a child it starts in its process group,
// ignore SIGHUP, as a harness run under nohup would: its pty closing ends
// neither. SIGTERM still ends both.
func nohup() {
	signal.Ignore(syscall.SIGHUP)
	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), "ACPMUX_FAKE_MODE="+nohupChildMode)
	if err := child.Start(); err != nil {
		fail(err)
	}
}
