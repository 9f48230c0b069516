package main

import (
	"encoding/json"
	"os"
	"syscall"
	"time"
)

// initPace makes initialize cost what the environment asks, and records
// when it ran; it returns what to call once initialize is answered:
//
//	ACPMUX_FAKE_INIT_BURN  CPU time (a Go duration) to burn before
//	                       answering, as a real agent's start costs: on a
//	                       loaded machine, or with many agents starting
//	                       at once, it takes longer than that in wall time
//	ACPMUX_FAKE_INIT_LOG   a file to append {"chat","pid","start","end"}
//	                       to (Unix nanoseconds), one line per initialize
//	ACPMUX_FAKE_INIT_GATE  a file initialize waits for before it answers
//	                       (looked for every 10 ms), so a test holds
//	                       agents in initialize as long as it needs
func initPace() (done func()) {
	start := time.Now()
	if gate := os.Getenv("ACPMUX_FAKE_INIT_GATE"); gate != "" {
		for {
			if _, err := os.Stat(gate); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if d, err := time.ParseDuration(os.Getenv("ACPMUX_FAKE_INIT_BURN")); err == nil {
		burn(d)
	}
	return func() {
		path := os.Getenv("ACPMUX_FAKE_INIT_LOG")
		if path == "" {
			return
		}
		line, err := json.Marshal(initRun{Chat: os.Getenv("ACPMUX_CHAT_ID"), Pid: os.Getpid(), Start: start.UnixNano(), End: time.Now().UnixNano()})
		if err == nil {
			err = appendFile(path, append(line, '\n'))
		}
		if err != nil {
			logf("acpfake: init log: %v", err)
		}
	}
}

// initRun is one line of ACPMUX_FAKE_INIT_LOG.
type initRun struct {
	Chat  string `json:"chat"`
	Pid   int    `json:"pid"`
	Start int64  `json:"start"`
	End   int64  `json:"end"`
}

// burn spins until the process has used d more CPU time.
func burn(d time.Duration) {
	used := func() time.Duration {
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
			return 0
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	until := used() + d
	for x := 0; used() < until; x++ {
		for i := 0; i < 100000; i++ {
			x ^= i
		}
	}
}
