package main

import (
	"strings"
	"testing"
	"time"
)

// TestParseStartStamp checks the reading of what the start row's harness
// prints (`date +%s%N`): the clock in nanoseconds, and nothing else.
func TestParseStartStamp(t *testing.T) {
	got, err := parseStartStamp(" 1733500000123456789 ")
	if want := time.Unix(1733500000, 123456789); err != nil || !got.Equal(want) {
		t.Fatalf("parseStartStamp = %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"", "0", "-5", "1733500000.123", "%N", "acpmux-tui: sandbox: refused"} {
		if _, err := parseStartStamp(bad); err == nil {
			t.Errorf("parseStartStamp(%q) took it; want an error", bad)
		}
	}
}

// TestSandboxTurns checks that the two kinds take turns and each goes
// first as often as the other.
func TestSandboxTurns(t *testing.T) {
	first := map[bool]int{}
	for i := range 20 {
		o := turns(i)
		if len(o) != 2 || o[0] == o[1] {
			t.Fatalf("turns(%d) = %v; want one of each kind", i, o)
		}
		first[o[0]]++
	}
	if first[true] != 10 || first[false] != 10 {
		t.Errorf("first in 20 runs: sandboxed %d, plain %d; want 10 each", first[true], first[false])
	}
	if err := run([]string{"sandbox", "b", "h", "20", "0"}); err == nil || !strings.Contains(err.Error(), `N "0"`) {
		t.Errorf("sandbox with HOOK_RUNS 0: error = %v; want one naming it", err)
	}
}
