package server

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/logfile"
)

// TestRefusedConnectsDoNotFloodTheLog: a stranger that connects 100,000
// times grows the log by a few lines, not a line each; the summary counts
// every refusal that was not written.
func TestRefusedConnectsDoNotFloodTheLog(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "logs", "acpmux-tui.log")
	log, err := logfile.OpenLogger(logPath)
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, rigOpt{
		opt:    func(o *Options) { o.Logger = log.Logger },
		server: func(s *Server) { s.uid = os.Getuid() + 1 },
	})
	const connects = 100_000
	sock := filepath.Join(r.home, "acpmux.sock")
	buf := make([]byte, 1)
	for i := range connects {
		nc, err := net.DialTimeout("unix", sock, hangDeadline)
		if err != nil {
			t.Fatalf("connect %d: %v", i, err)
		}
		// The server closes it unread: wait for that, so the refusals are
		// counted one by one rather than queued in the backlog.
		nc.SetReadDeadline(time.Now().Add(hangDeadline))
		if _, err := nc.Read(buf); err == nil {
			t.Fatalf("connect %d: the stranger was answered", i)
		}
		nc.Close()
	}
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(logPath)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(logPath)
	written := strings.Count(string(data), "refused a connection")
	counted := 0
	for _, m := range regexp.MustCompile(`… ([0-9,]+) more in the last 10s`).FindAllStringSubmatch(string(data), -1) {
		n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		counted += n
	}
	t.Logf("%d refused connects: the log holds %d bytes, %d lines about them, %d counted in summaries", connects, fi.Size(), written, counted)
	// Each 10 s window writes at most the burst and one summary.
	if fi.Size() > 64<<10 {
		t.Fatalf("the log grew to %d bytes for %d refusals:\n%s", fi.Size(), connects, tailOf(string(data), 2000))
	}
	if written-countSummaries(string(data))+counted != connects {
		t.Fatalf("%d written + %d counted, want %d refusals accounted for:\n%s", written-countSummaries(string(data)), counted, connects, tailOf(string(data), 2000))
	}
}

func countSummaries(s string) int { return strings.Count(s, "more in the last") }

func tailOf(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
