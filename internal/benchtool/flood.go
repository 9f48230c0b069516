package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/acpmux/acpmux-tui/internal/benchtool/flood"
)

// writeFlood writes the standard throughput input to out: megabytes MB
// (10^6 bytes) of flood lines, rounded up to a whole line.
func writeFlood(out string, megabytes float64) error {
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("write flood: %w", err)
	}
	n, err := flood.Write(f, int64(megabytes*1e6))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out)
		return fmt.Errorf("write flood %s: %w", out, err)
	}
	emit("bench", "flood")
	emit("file", out)
	emit("bytes", n)
	return nil
}

// parseMegabytes reads the MB argument of the flood subcommand.
func parseMegabytes(s string) (float64, error) {
	mb, err := strconv.ParseFloat(s, 64)
	if err != nil || mb <= 0 || mb > 100_000 {
		return 0, fmt.Errorf("MB %q: want a positive number of megabytes", s)
	}
	return mb, nil
}
