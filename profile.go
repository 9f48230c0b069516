package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
)

// envCPUProfile names the file a CPU profile of this run is written to
// (docs/cli.md, Environment): what `go tool pprof` reads to find where a
// command's time goes. Package inits run before it starts; GODEBUG=inittrace=1
// shows those. A "%p" in it is the process's id, as in envTrace.
const envCPUProfile = "ACPMUX_CPUPROFILE"

// envTrace names the file an execution trace of this run is written to
// (docs/cli.md, Environment): where `go tool trace` shows each goroutine's
// waits, the scheduler's hops on a key's way (`go tool trace
// -pprof=sched FILE` gives how long goroutines waited to run). A "%p" in
// it is the process's id: a TUI and the server it starts trace apart.
const envTrace = "ACPMUX_TRACE"

// envHeapProfile names the file a heap profile is written to as the
// command ends (docs/cli.md, Environment): where a long-lived server's or
// TUI's memory went, for `go tool pprof -sample_index=inuse_space`.
const envHeapProfile = "ACPMUX_HEAPPROFILE"

// writeHeapProfile writes a heap profile into the file path names, when
// it is set; a failure is said on stderr.
func writeHeapProfile(path string) {
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("heap").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "acpmux-tui: %s: write the heap profile: %v\n", envHeapProfile, err)
	}
}

// startCPUProfile starts a CPU profile into the file path names, when it
// is set, and returns what ends it; a profile that cannot start is said on
// stderr and the command runs without it.
func startCPUProfile(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(withPid(path))
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "acpmux-tui: %s: start the CPU profile: %v\n", envCPUProfile, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "acpmux-tui: %s: write the CPU profile: %v\n", envCPUProfile, err)
		}
	}
}

// startTrace starts an execution trace into the file path names, when it
// is set, and returns what ends it; as with the CPU profile, a trace that
// cannot start is said on stderr and the command runs without it.
func startTrace(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(withPid(path))
	if err == nil {
		if err = trace.Start(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "acpmux-tui: %s: start the trace: %v\n", envTrace, err)
		return func() {}
	}
	return func() {
		trace.Stop()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "acpmux-tui: %s: write the trace: %v\n", envTrace, err)
		}
	}
}

// withPid is path with each "%p" replaced by the process's id: a TUI, the
// server it starts and a door write apart.
func withPid(path string) string {
	return strings.ReplaceAll(path, "%p", strconv.Itoa(os.Getpid()))
}
