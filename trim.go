package main

import (
	"context"
	"log/slog"

	"github.com/acpmux/acpmux-tui/internal/memtrim"
)

// trimMemory gives the freed heap back to the system, and lets go of the
// binary's pages, a moment after the long-lived command `who` (the
// server, the TUI) starts and each time it goes quiet after a burst of
// work, whether or not a collection ran (package memtrim looks on a timer
// that backs off and stops while nothing happens: a small idle Go process
// holds more of the runtime's slack and of its binary than of its own
// data, scripts/bench memory-10), until stop is called. wake tells it of
// work that mapped code without necessarily allocating much (a harness
// started or ended). Each trim is logged at debug level.
func trimMemory(log *slog.Logger, who string) (wake, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	woken := make(chan struct{}, 1)
	wake = func() {
		select {
		case woken <- struct{}{}:
		default:
		}
	}
	go func() {
		defer close(done)
		memtrim.Run(ctx, memtrim.Options{Wake: woken, Trimmed: func(r memtrim.Result) {
			if r.ImageErr != nil {
				log.Debug("memory trim: the binary's pages stay mapped", "process", who, "err", r.ImageErr)
			}
			log.Debug("memory trim", "process", who, "released_bytes", r.Released, "unmapped_bytes", r.Unmapped)
		}})
	}()
	return wake, func() { cancel(); <-done }
}
