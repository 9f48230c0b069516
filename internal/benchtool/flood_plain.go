package main

import (
	"fmt"
	"os"

	"github.com/acpmux/acpmux-tui/internal/benchtool/flood"
)

// writePlainFlood writes the plain throughput input to out: megabytes MB
// (10^6 bytes) of Go-like source lines with tabs and no escapes, rounded
// up to a whole block, and its last line.
func writePlainFlood(out string, megabytes float64) error {
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("write plain flood: %w", err)
	}
	n, err := flood.WritePlain(f, int64(megabytes*1e6))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out)
		return fmt.Errorf("write plain flood %s: %w", out, err)
	}
	emit("bench", "flood-plain")
	emit("file", out)
	emit("bytes", n)
	return nil
}
