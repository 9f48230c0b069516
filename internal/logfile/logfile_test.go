package logfile

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
)

// syncBuffer is a bytes.Buffer a handler may write from a timer.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var moreRe = regexp.MustCompile(`… ([0-9,]+) more in the last`)

// dropped sums the counts the summaries in out report for msg.
func dropped(t *testing.T, out, msg string) int {
	t.Helper()
	n := 0
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, msg) {
			continue
		}
		if m := moreRe.FindStringSubmatch(line); m != nil {
			v, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
			if err != nil {
				t.Fatal(err)
			}
			n += v
		}
	}
	return n
}

func TestLimiterCountsAFlood(t *testing.T) {
	var buf syncBuffer
	lim := NewLimiter(slog.NewTextHandler(&buf, nil), time.Hour, 5)
	log := slog.New(lim)
	for range 100_000 {
		log.Warn("refused a connection", "peerUid", 1001)
	}
	log.Info("something else")
	lim.Flush()
	out := buf.String()
	if got := strings.Count(out, "refused a connection"); got != 6 {
		t.Fatalf("%d lines name the refusal, want 5 and one summary:\n%s", got, out)
	}
	if got := dropped(t, out, "refused a connection"); got != 99_995 {
		t.Fatalf("the summary counts %d, want 99,995:\n%s", got, out)
	}
	if !strings.Contains(out, "… 99,995 more in the last 1h0m0s") || !strings.Contains(out, "peerUid=1001") {
		t.Fatalf("the summary does not read right or lost its attributes:\n%s", out)
	}
	if !strings.Contains(out, "something else") {
		t.Fatalf("another record was held back:\n%s", out)
	}
}

func TestLimiterKeepsChatsApart(t *testing.T) {
	var buf syncBuffer
	lim := NewLimiter(slog.NewTextHandler(&buf, nil), time.Hour, 2)
	log := slog.New(lim)
	for i := range 10 {
		log.Info("harness stderr", "chat", "aaa", "line", i)
		log.Info("harness stderr", "chat", "bbb", "line", i)
	}
	// The chat attribute given with With counts as the record's own.
	log.With("chat", "ccc").Info("harness stderr", "line", 1)
	lim.Flush()
	out := buf.String()
	for _, chat := range []string{"aaa", "bbb"} {
		if got := strings.Count(out, "chat="+chat+" line="); got != 3 {
			t.Fatalf("chat %s: %d lines, want 2 and a summary:\n%s", chat, got, out)
		}
	}
	if got := dropped(t, out, "harness stderr"); got != 16 {
		t.Fatalf("summaries count %d, want 8 for each chat:\n%s", got, out)
	}
	if !strings.Contains(out, "chat=ccc") {
		t.Fatalf("a third chat was held back:\n%s", out)
	}
}

func TestLimiterSummaryComesWithoutAnotherRecord(t *testing.T) {
	var buf syncBuffer
	log := slog.New(NewLimiter(slog.NewTextHandler(&buf, nil), 50*time.Millisecond, 1))
	for range 3 {
		log.Warn("burst")
	}
	wait.Until(t, "the window's summary to be written by its timer", func() bool {
		return strings.Contains(buf.String(), "… 2 more in the last 50ms")
	})
	// A new window passes the record again.
	log.Warn("burst")
	if got := strings.Count(buf.String(), `msg=burst`); got != 2 {
		t.Fatalf("after the window %d plain lines, want 2:\n%s", got, buf.String())
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 14203: "14,203", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestFileRotatesAtTheCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "acpmux-tui.log")
	f, err := Open(path, 1000, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line := strings.Repeat("x", 99) + "\n" // 100 bytes
	for range 45 {
		if _, err := f.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	sizes := map[string]int64{}
	for _, name := range []string{"", ".1", ".2", ".3"} {
		if fi, err := os.Stat(path + name); err == nil {
			sizes[name] = fi.Size()
		}
	}
	// 4500 bytes: two full files rotated away, the oldest dropped, 500 in
	// the current one.
	if sizes[""] != 500 || sizes[".1"] != 1000 || sizes[".2"] != 1000 {
		t.Fatalf("sizes %v, want 500 now and 1000 in .1 and .2", sizes)
	}
	if _, ok := sizes[".3"]; ok {
		t.Fatal("a third rotated file was kept, want two")
	}
}

// TestTwoWritersShareTheRotation: two Files on one path, as the server and
// the TUI have, rotate once between them and lose no record.
func TestTwoWritersShareTheRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "acpmux-tui.log")
	a, err := Open(path, 2000, 50)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(path, 2000, 50)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const each = 200
	var wg sync.WaitGroup
	for name, f := range map[string]*File{"a": a, "b": b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := fmt.Fprintf(f, "%s %04d %s\n", name, i, strings.Repeat(".", 40)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	files, _ := filepath.Glob(path + "*")
	for _, p := range files {
		if strings.HasSuffix(p, ".lock") {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > 2000 {
			t.Errorf("%s holds %d bytes, past the 2000-byte cap", filepath.Base(p), len(data))
		}
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if seen[l] {
				t.Fatalf("line %q written twice", l)
			}
			seen[l] = true
		}
	}
	if len(seen) != 2*each {
		t.Fatalf("%d lines across %d files, want %d", len(seen), len(files)-1, 2*each)
	}
}

func TestOpenRefusesNoCap(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "x.log"), 0, 1); err == nil {
		t.Fatal("a log with no cap was opened")
	}
}

func TestLoggerCloseFlushes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "acpmux-tui.log")
	l, err := OpenLoggerWith(path, Limits{Burst: 1})
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		l.Warn("again")
	}
	l.Close()
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "… 9 more in the last 10s") {
		t.Fatalf("Close wrote no summary:\n%s", data)
	}
}
