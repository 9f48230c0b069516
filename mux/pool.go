package mux

import (
	"errors"
	"sync"
	"time"

	"github.com/acpmux/acpmux-tui/chatsvc"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/sessions"
)

// pooledLaunch marks a ptyChat as a prewarmed harness no chat has taken: it
// runs in a reserved, empty home folder with no folders and no chat file.
type pooledLaunch struct {
	harness   string
	home      string
	sessionID string
	// live is the config in effect when it was started: one started
	// under a config since replaced is never handed out (reconfigure.go).
	live *liveConfig
}

// pool keeps prewarmed harnesses per harness name (`[pool] size`).
type pool struct {
	m *Mux
	// chats makes the chats CreateAndStart creates, one that takes a
	// prewarmed harness too: the chat service, with the config in effect.
	chats  *chatsvc.Service
	mu     sync.Mutex
	idle   map[string][]*ptyChat
	closed bool
}

func newPool(m *Mux) *pool {
	chats := chatsvc.New(chatsvc.Options{Store: m.opt.Store, Config: m.config, Table: m.table, Getenv: m.opt.Getenv, Logger: m.opt.Logger})
	return &pool{m: m, chats: chats, idle: map[string][]*ptyChat{}}
}

// Fill starts prewarmed harnesses until each pty harness has its configured
// pool size. Harnesses not installed are skipped. It returns the first error.
func (m *Mux) Fill() error {
	var first error
	for _, spec := range m.table().All() {
		if spec.Transport != harness.TransportPty || m.config().Pool.Size.For(spec.Name) == 0 || !spec.Found(m.opt.Getenv) {
			continue
		}
		if err := m.pool.fill(spec.Name); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (p *pool) fill(name string) error {
	want := p.m.config().Pool.Size.For(name)
	for {
		p.mu.Lock()
		if p.closed || len(p.idle[name]) >= want {
			p.mu.Unlock()
			return nil
		}
		p.mu.Unlock()
		c, err := p.spawn(name)
		if err != nil {
			return err
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			p.discard(c)
			return nil
		}
		p.idle[name] = append(p.idle[name], c)
		p.mu.Unlock()
	}
}

func (p *pool) spawn(name string) (*ptyChat, error) {
	id, home, err := p.m.opt.Store.ReserveHome()
	if err != nil {
		return nil, err
	}
	c := newPtyChat(p.m, id)
	c.pooled = &pooledLaunch{harness: name, home: home, live: p.m.live.Load()}
	if err := c.start(0, 0, false); err != nil {
		_ = p.m.opt.Store.ReleaseHome(id)
		return nil, err
	}
	return c, nil
}

// take hands out a live prewarmed harness of that name, or nil.
func (p *pool) take(name string) *ptyChat {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.idle[name]) > 0 {
		c := p.idle[name][0]
		p.idle[name] = p.idle[name][1:]
		c.mu.Lock()
		current := c.pooled != nil && c.pooled.live == p.m.live.Load()
		c.mu.Unlock()
		if current && c.snapshot().Status.Live() {
			return c
		}
		go p.discard(c)
	}
	return nil
}

// discard stops a prewarmed harness and removes its reserved folder.
func (p *pool) discard(c *ptyChat) {
	c.stop()
	_ = p.m.opt.Store.ReleaseHome(c.id)
}

func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.drain()
}

// PoolSize returns how many prewarmed harnesses of that name are idle.
func (m *Mux) PoolSize(name string) int {
	m.pool.mu.Lock()
	defer m.pool.mu.Unlock()
	return len(m.pool.idle[name])
}

// CreateAndStart creates a chat through the chat service (its checks, its
// worktree) and starts its harness. A chat with no project, no folders and
// no single files takes a prewarmed harness when the pool has one (no new
// spawn); a chat with folders or files never does, because the pooled one
// started without them, nor does a sandboxed chat (the pooled one runs
// unbounded). A caller that must refuse a chat before it takes
// a prewarmed harness checks it first (chatsvc.Service.Check).
func (m *Mux) CreateAndStart(n sessions.NewChat, cols, rows int) (*sessions.Meta, error) {
	if n.Cwd == "" && len(n.AdditionalDirectories) == 0 && len(n.AdditionalFiles) == 0 && n.ID == "" && !m.pool.chats.Sandboxed(n) {
		if c := m.pool.take(n.Harness); c != nil {
			meta, err := m.adopt(c, n, cols, rows)
			if err == nil {
				go func() { _ = m.pool.fill(n.Harness) }()
				return meta, nil
			}
			m.opt.Logger.Warn("prewarmed harness not taken", "err", err)
			go m.pool.discard(c)
		}
	}
	meta, err := m.pool.chats.Create(n)
	if err != nil {
		return nil, err
	}
	return meta, m.Start(meta.ID, cols, rows)
}

func (m *Mux) adopt(c *ptyChat, n sessions.NewChat, cols, rows int) (*sessions.Meta, error) {
	c.mu.Lock()
	n.ID, n.AgentSessionID = c.id, c.pooled.sessionID
	c.mu.Unlock()
	meta, err := m.pool.chats.Create(n)
	if err != nil {
		return nil, err
	}
	// The chat's first start is now, as it takes the harness: its
	// baseline (for review) is recorded as the other chats' is at theirs,
	// and what the prewarmed harness wrote before is not its change.
	adoptAt := time.Now()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, errors.New("mux is closed")
	}
	m.chats[c.id] = c
	m.mu.Unlock()
	c.mu.Lock()
	c.pooled = nil
	c.mu.Unlock()
	c.resize(cols, rows)
	m.recordBaselineLater(meta, adoptAt)
	m.notify(c)
	return meta, nil
}
