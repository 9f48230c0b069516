package mux

import (
	"sync"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
)

// This file holds the config the mux works with, which the server replaces
// when the config file changes: the next start of a chat reads the new
// harness table, and a harness that runs keeps its process.

// liveConfig is the config in effect and the harness table built from it.
type liveConfig struct {
	cfg   *config.Config
	table *harness.Table
}

// config returns the config in effect.
func (m *Mux) config() *config.Config { return m.live.Load().cfg }

// table returns the harness table in effect.
func (m *Mux) table() *harness.Table { return m.live.Load().table }

// Reconfigure puts cfg and table, built from it, in effect: every start
// from now on (a first start, a restart, a respawn after a crash) uses
// them, and a harness that runs keeps its process. The prewarmed harnesses
// started with the old table are stopped, so no new chat takes one; the
// next Fill starts them again as the new config says.
func (m *Mux) Reconfigure(cfg *config.Config, table *harness.Table) {
	if cfg == nil || table == nil {
		return
	}
	m.live.Store(&liveConfig{cfg, table})
	m.pool.drain()
}

// drain stops every idle prewarmed harness.
func (p *pool) drain() {
	p.mu.Lock()
	var all []*ptyChat
	for _, cs := range p.idle {
		all = append(all, cs...)
	}
	p.idle = map[string][]*ptyChat{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range all {
		wg.Add(1)
		go func() { defer wg.Done(); p.discard(c) }()
	}
	wg.Wait()
}
