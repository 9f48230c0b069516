package main

import (
	"fmt"
	"os"
	"testing"
)

// TestMain lets the test binary stand in for benchtool where a benchmark
// starts benchtool again as a helper process (server-held's `hold`, hook's `hook-loop`, the scale rows' `tick`).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == "hold" || os.Args[1] == "hook-loop" || os.Args[1] == "tick") {
		if err := run(os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "benchtool:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
