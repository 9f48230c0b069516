package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/benchtool/flood"
)

// flood-plain writes the plain flood, and pty-floor reads all of it (and
// the "\r" ONLCR adds to each line) back through a real pty, or fails.
func TestFloodPlainAndPtyFloor(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain.txt")
	if err := run([]string{"flood-plain", file, "0.3"}); err != nil {
		t.Fatalf("flood-plain: %v", err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 300_000 || !bytes.HasSuffix(data, []byte("\n"+flood.PlainLastLine+"\n")) {
		t.Fatalf("flood-plain wrote %d bytes ending %q; want 300,000 or more ending with %q", len(data), data[max(len(data)-40, 0):], flood.PlainLastLine)
	}
	if err := run([]string{"pty-floor", file}); err != nil {
		t.Fatalf("pty-floor: %v", err)
	}
	if err := run([]string{"pty-floor", filepath.Join(t.TempDir(), "absent")}); err == nil {
		t.Error("pty-floor of an absent file succeeded")
	}
}
