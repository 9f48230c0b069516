package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
)

// memory starts n 160x45 chats each running `cat file`, waits until every
// one has exited and drained into its screen, and reports what they cost:
// the growth of this process's RSS and of the Go heap in use, per chat.
// The mux keeps each chat's screen and scrollback after its harness exits,
// as it does for any exited chat, so the screens are what is measured.
func memory(file string, n int) error {
	lines, err := countLines(file)
	if err != nil {
		return err
	}
	want, err := lastLine(file)
	if err != nil {
		return err
	}
	r, err := newRig(map[string]config.HarnessConfig{
		"bench-cat":  catHarness(file),
		"bench-true": {Command: "/bin/true", Kind: harness.KindPlain, Transport: harness.TransportPty},
	})
	if err != nil {
		return err
	}
	defer r.close()
	if lines < r.cfg.Scrollback+benchRows {
		return fmt.Errorf("%s has %d lines; a full scrollback needs at least %d", file, lines, r.cfg.Scrollback+benchRows)
	}

	// One throwaway chat first, so one-time costs (code paged in, runtime
	// pools) land before the baseline rather than in the per-chat figure.
	warm, err := r.create("bench-true")
	if err != nil {
		return err
	}
	if err := r.start(warm); err != nil {
		return err
	}
	r.mux.Wait(warm)
	r.mux.Forget(warm)

	ids := make([]string, n)
	for i := range ids {
		if ids[i], err = r.create("bench-cat"); err != nil {
			return err
		}
	}
	rss0, heap0, err := settledMemory()
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := r.start(id); err != nil {
			return err
		}
	}
	for _, id := range ids {
		r.mux.Wait(id)
		if err := r.checkScreen(id, want); err != nil {
			return err
		}
	}
	rss1, heap1, err := settledMemory()
	if err != nil {
		return err
	}

	emit("bench", "memory")
	emit("chats", n)
	emit("file_lines", lines)
	emit("scrollback", r.cfg.Scrollback)
	emit("rss_before_bytes", rss0)
	emit("rss_after_bytes", rss1)
	emit("rss_per_chat_bytes", (rss1-rss0)/int64(n))
	emit("heap_inuse_before_bytes", heap0)
	emit("heap_inuse_after_bytes", heap1)
	emit("heap_per_chat_bytes", (int64(heap1)-int64(heap0))/int64(n))
	return nil
}

// settledMemory collects garbage, returns freed memory to the OS, and
// reports RSS and the heap in use.
func settledMemory() (rss int64, heapInuse uint64, err error) {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss, err = rssBytes()
	return rss, ms.HeapInuse, err
}
