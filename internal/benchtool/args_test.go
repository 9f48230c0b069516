package main

import (
	"strings"
	"testing"
)

// TestCountAnd checks the shared reading of a row's N and RUNS/SECONDS:
// both are read, and a bad value of either is named in the error.
func TestCountAnd(t *testing.T) {
	n, secs, err := countAnd("100", "2.5", seconds)
	if err != nil || n != 100 || secs != 2.5 {
		t.Fatalf("countAnd(100, 2.5) = %d, %v, %v; want 100, 2.5, nil", n, secs, err)
	}
	n, runs, err := countAnd("1000", "7", positive)
	if err != nil || n != 1000 || runs != 7 {
		t.Fatalf("countAnd(1000, 7) = %d, %d, %v; want 1000, 7, nil", n, runs, err)
	}
	for _, c := range []struct{ n, next, want string }{
		{"0", "7", `N "0"`},
		{"x", "7", `N "x"`},
		{"10", "-1", `N "-1"`},
	} {
		if _, _, err := countAnd(c.n, c.next, positive); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("countAnd(%q, %q) error = %v; want one naming %s", c.n, c.next, err, c.want)
		}
	}
	if _, _, err := countAnd("10", "0", seconds); err == nil || !strings.Contains(err.Error(), `SECONDS "0"`) {
		t.Errorf("countAnd(10, 0, seconds) error = %v; want one naming SECONDS", err)
	}
	if err := run([]string{"first-frame-1000", "b", "h", "t", "s", "0", "5"}); err == nil || !strings.Contains(err.Error(), `N "0"`) {
		t.Errorf("first-frame-1000 with N 0: error = %v; want one naming N", err)
	}
}
