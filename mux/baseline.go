package mux

import (
	"sync"
	"time"

	"github.com/acpmux/acpmux-tui/sessions"
)

// baselines records chats' baselines off the chat's lock: git runs for the
// cwd and each folder, then one atomic write of the chat file. Close waits
// for the ones under way.
type baselines struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// recordBaselineLater records, for a chat whose harness has just started for
// the first time (meta has no baseline), what its cwd and folders were at
// at, the moment before the start. It returns at once: the caller holds the
// chat's lock, which drawing waits on, and git may be slow. A harness that
// commits within the milliseconds git takes to answer moves HEAD first; the
// files it writes are still counted by the review, whose mtime side starts
// at at.
func (m *Mux) recordBaselineLater(meta *sessions.Meta, at time.Time) {
	if meta.Baseline != nil {
		return
	}
	b := &m.baselines
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.wg.Add(1)
	id, cwd, folders := meta.ID, meta.Cwd, append([]string(nil), meta.AdditionalDirectories...)
	go func() {
		defer b.wg.Done()
		base := sessions.NewBaseline(at, cwd, folders)
		if _, err := m.opt.Store.RecordBaseline(id, base); err != nil {
			m.opt.Logger.Warn("could not record the chat's baseline for review", "chat", id, "err", err)
		}
	}()
}

// closeBaselines stops new recordings and waits for those under way.
func (m *Mux) closeBaselines() {
	b := &m.baselines
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.wg.Wait()
}
