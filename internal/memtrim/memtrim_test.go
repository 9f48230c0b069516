package memtrim

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

var sink []byte

// garbage allocates n bytes that nothing keeps.
func garbage(n int) {
	for i := 0; i < n; i += 64 << 10 {
		sink = make([]byte, 64<<10)
	}
	sink = nil
}

// exeRss is the resident kB of the test binary's read-only mappings.
func exeRss(t *testing.T) int {
	t.Helper()
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	total, in := 0, false
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 5 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":"):
			in = len(f) >= 6 && strings.Join(f[5:], " ") == exe && !strings.Contains(f[1], "w")
		case in && len(f) >= 2 && f[0] == "Rss:":
			var kb int
			for _, c := range f[1] {
				kb = kb*10 + int(c-'0')
			}
			total += kb
		}
	}
	return total
}

// TestTrimReturnsMemory: after 16 MB of garbage a trim gives freed heap
// back to the system and unmaps the binary's read-only pages, so fewer of
// them are resident; the code keeps running (its pages come back).
func TestTrimReturnsMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the binary's mappings are read from /proc")
	}
	garbage(16 << 20)
	before := exeRss(t)
	res := Trim()
	after := exeRss(t)
	if res.Err != nil {
		t.Fatalf("Trim: %v", res.Err)
	}
	if res.Released <= 0 {
		t.Errorf("Trim released %d heap bytes after 16 MB of garbage, want > 0", res.Released)
	}
	if res.Unmapped <= 0 {
		t.Errorf("Trim unmapped %d bytes of the binary, want > 0", res.Unmapped)
	}
	if after >= before {
		t.Errorf("the binary's resident read-only pages: %d kB before the trim, %d kB after; want fewer", before, after)
	}
	// The unmapped code runs again.
	garbage(1 << 20)
	if got := strings.Repeat("ab", 3); got != "ababab" {
		t.Fatalf("after the trim: %q", got)
	}
}

// TestRunTrimsAfterABurst: Run trims once a burst of allocation has gone
// quiet.
func TestRunTrimsAfterABurst(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	trimmed := make(chan Result, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(ctx, Options{Every: 20 * time.Millisecond, Burst: 4 << 20, Trimmed: func(r Result) { trimmed <- r }})
	}()
	garbage(8 << 20)
	select {
	case r := <-trimmed:
		if r.Err != nil {
			t.Fatalf("the trim after the burst: %v", r.Err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no trim within 30 s of an 8 MB burst followed by quiet")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10 s of its context's end")
	}
}

// TestParseSmaps reads mappings, their paths (with spaces and a replaced
// file's mark) and their copied-on-write pages.
func TestParseSmaps(t *testing.T) {
	raw := `00400000-0081b000 r-xp 00000000 fe:00 9979361                            /tmp/my dir/acpmux-tui (deleted)
Size:               4204 kB
Rss:                3820 kB
Anonymous:             0 kB
VmFlags: rd ex mr mw me
0081b000-00c5c000 r--p 0041b000 fe:00 9979361                            /tmp/my dir/acpmux-tui (deleted)
Anonymous:            12 kB
7ffe1000-7ffe3000 rw-p 00000000 00:00 0                                  [stack]
Anonymous:             8 kB
7ffe4000-7ffe5000 rw-p 00000000 00:00 0
`
	got := parseSmaps([]byte(raw))
	want := []mapping{
		{start: 0x400000, end: 0x81b000, perms: "r-xp", path: "/tmp/my dir/acpmux-tui (deleted)"},
		{start: 0x81b000, end: 0xc5c000, perms: "r--p", path: "/tmp/my dir/acpmux-tui (deleted)", anon: 12},
		{start: 0x7ffe1000, end: 0x7ffe3000, perms: "rw-p", path: "[stack]", anon: 8},
		{start: 0x7ffe4000, end: 0x7ffe5000, perms: "rw-p"},
	}
	if len(got) != len(want) {
		t.Fatalf("parseSmaps: %d mappings %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mapping %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
