package main

import (
	"context"
	"log/slog"

	"github.com/acpmux/acpmux-tui/internal/memtrim"
)

// trimMemory gives the freed heap back to the system each time the
// long-lived command `who` (the server, the TUI) goes quiet after a burst
// of work (package memtrim: a small idle Go process holds more of the
// runtime's slack than of its own data, scripts/bench memory-10), until
// stop is called. Each trim is logged at debug level.
func trimMemory(log *slog.Logger, who string) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		memtrim.Run(ctx, memtrim.Options{Trimmed: func(r memtrim.Result) {
			log.Debug("memory trim", "process", who, "released_bytes", r.Released)
		}})
	}()
	return func() { cancel(); <-done }
}
