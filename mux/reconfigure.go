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

// current returns the runtime to start chat id with: c, unless the config
// now gives the chat's harness another transport (pty or ACP) and c runs
// no process, in which case a runtime of the new transport replaces it.
// A runtime whose harness runs is kept: it keeps its process.
func (m *Mux) current(id string, c chatRunner) chatRunner {
	meta, err := m.opt.Store.Load(id)
	if err != nil {
		return c // the start reports it
	}
	spec, ok := m.table().Get(meta.Harness)
	if !ok {
		return c
	}
	_, isACP := c.(*acpChat)
	if isACP == (spec.Transport == harness.TransportACP) {
		return c
	}
	if r, ok := c.(restartChecker); ok && r.live() {
		return c
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.chats[id] != c {
		if now, ok := m.chats[id]; ok {
			return now
		}
	}
	var fresh chatRunner
	if spec.Transport == harness.TransportACP {
		fresh = newACPChat(m, id)
	} else {
		fresh = newPtyChat(m, id)
	}
	m.chats[id] = fresh
	m.opt.Logger.Info("chat's harness changed transport with the config", "chat", id, "transport", spec.Transport)
	return fresh
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
