package main

import (
	"context"
	"log/slog"

	"github.com/acpmux/acpmux-tui/internal/memtrim"
)

// trimMemory gives memory back to the system each time the long-lived
// command `who` (the server, the TUI) goes quiet after a burst of work
// (package memtrim: most of what a small idle Go process holds is the
// runtime's heap slack and the binary's start-up pages, scripts/bench
// memory-10), until stop is called. Each trim is logged at debug level.
func trimMemory(log *slog.Logger, who string) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		memtrim.Run(ctx, memtrim.Options{Trimmed: func(r memtrim.Result) {
			if r.Err != nil {
				log.Warn("memory trim: the binary's pages stay mapped", "process", who, "err", r.Err)
				return
			}
			log.Debug("memory trim", "process", who, "released_bytes", r.Released, "unmapped_bytes", r.Unmapped)
		}})
	}()
	return func() { cancel(); <-done }
}
