package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeapProfileSamplesTheRun: with ACPMUX_HEAPPROFILE set, a command's
// heap is sampled every 4 KiB (without it, not at all: main sets the rate
// to 0), so its profile holds the run's allocations.
func TestHeapProfileSamplesTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds on go tool pprof")
	}
	c := newCLI(t)
	path := filepath.Join(c.root, "heap.prof")
	if r := c.runIn(c.root, []string{"ACPMUX_HEAPPROFILE=" + path}, "ls"); r.code != 0 {
		t.Fatalf("ls exited %d: %s", r.code, r.stderr)
	}
	out, err := exec.Command("go", "tool", "pprof", "-raw", path).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -raw: %v\n%s", err, out)
	}
	raw := string(out)
	if !strings.Contains(raw, "\nPeriod: 4096\n") {
		t.Fatalf("the profile was not sampled every 4 KiB:\n%s", raw[:min(len(raw), 400)])
	}
	_, samples, _ := strings.Cut(raw, "\nSamples:\n")
	if strings.Count(samples, "bytes:[") == 0 {
		t.Fatalf("the profile holds no sample:\n%s", raw[:min(len(raw), 400)])
	}
}
