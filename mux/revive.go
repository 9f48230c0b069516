package mux

import "context"

// What a server that starts many chats at once needs (the next server,
// reviving what a server that died ran): to check a start without making
// it, and to know when a start is over.

// CheckStart makes the checks a start of chat id makes (its file, its
// harness, its folder and stored folders through the shared validator)
// without starting anything, and returns the refusal a start would give.
func (m *Mux) CheckStart(id string) error {
	meta, err := m.opt.Store.Load(id)
	if err != nil {
		return err
	}
	_, _, err = m.launchFor(meta)
	return err
}

// WaitStarted waits until the start under way of chat id is over and
// returns why it failed: for an ACP chat, until its session is set up or
// its setup failed (an initialize that timed out wraps ErrInitTimeout);
// for a pty chat, or a chat with no harness running, at once, as Start
// has spawned it. It starts nothing.
func (m *Mux) WaitStarted(ctx context.Context, id string) error {
	r, err := m.existing(id)
	if err != nil {
		return err
	}
	c, ok := r.(*acpChat)
	if !ok {
		return nil
	}
	c.mu.Lock()
	p := c.proc
	c.mu.Unlock()
	if p == nil {
		return nil
	}
	select {
	case <-p.ready:
		return p.err
	case <-ctx.Done():
		return ctx.Err()
	}
}
