package client

import (
	"context"
	"encoding/json"

	"github.com/acpmux/acpmux-tui/proto"
)

// This file is the client side of ACP turns as `prompt` runs them: observe
// a chat, get it ready, run a turn, cancel it. The turn runs in the server:
// closing the connection leaves it running there.

// feedQueue is how many notifications an Observer holds for its function
// before the connection's reader waits for it. Past that, the stream backs
// up to the server, which holds it within its own bounds (and tells of
// what it had to drop) rather than let this process's memory grow.
const feedQueue = 16

// Observer hands an observed chat's stream to a function, in order, on a
// goroutine of its own.
type Observer struct {
	id    string
	items chan feedItem
	done  chan struct{}
	ended chan struct{}
}

// feedItem is a notification's entries, or a mark that Sync waits for.
type feedItem struct {
	entries []proto.ObservedEntry
	synced  chan struct{}
}

// ObserveChat streams chat id's updates to fn, one entry at a time and in
// order, until Close or the connection's end. It takes the connection's
// notifications (OnNotify): one observer per connection. fn runs on the
// observer's goroutine and may take its time (print to a slow terminal):
// the stream waits for it.
func (c *Conn) ObserveChat(ctx context.Context, id string, fn func(proto.ObservedEntry)) (*Observer, error) {
	o := &Observer{id: id, items: make(chan feedItem, feedQueue), done: make(chan struct{}), ended: make(chan struct{})}
	go o.run(fn)
	c.OnNotify(func(method string, params json.RawMessage) {
		if method != proto.MethodEntries {
			return
		}
		var p proto.EntriesParams
		if json.Unmarshal(params, &p) != nil || p.ID != id {
			return
		}
		// The reader waits here only when fn is feedQueue notifications
		// behind: that is the backpressure the server expects.
		select {
		case o.items <- feedItem{entries: p.Entries}:
		case <-o.done:
		}
	})
	if err := c.Call(ctx, proto.MethodObserve, proto.ChatParams{ID: id}, nil); err != nil {
		o.Close()
		return nil, remoteError(err)
	}
	// Whoever observes a chat sees its reply: the chat is not announced
	// nor marked unread while the connection lasts.
	if err := c.Call(ctx, proto.MethodLook, proto.LookParams{ID: id}, nil); err != nil {
		o.Close()
		return nil, remoteError(err)
	}
	return o, nil
}

func (o *Observer) run(fn func(proto.ObservedEntry)) {
	defer close(o.ended)
	for {
		select {
		case it := <-o.items:
			for _, e := range it.entries {
				fn(e)
			}
			if it.synced != nil {
				close(it.synced)
			}
		case <-o.done:
			return
		}
	}
}

// Sync returns once every entry that arrived before it was called has been
// handed to fn. A call's answer comes after the notifications the server
// sent before it, so Sync after a call sees everything the call's answer
// follows.
func (o *Observer) Sync() {
	ch := make(chan struct{})
	select {
	case o.items <- feedItem{synced: ch}:
	case <-o.done:
		return
	}
	select {
	case <-ch:
	case <-o.done:
	}
}

// Close stops handing entries to fn and waits until fn has returned. The
// connection keeps observing until it closes.
func (o *Observer) Close() {
	select {
	case <-o.done:
	default:
		close(o.done)
	}
	<-o.ended
}

// ChatReady starts the chat's agent unless it runs, and waits until its
// session is set up; an agent that cannot start is the error, with why.
func (c *Conn) ChatReady(ctx context.Context, id string) error {
	if err := c.Call(ctx, proto.MethodStart, proto.ChatParams{ID: id}, nil); err != nil {
		return remoteError(err)
	}
	if err := c.Call(ctx, proto.MethodReady, proto.ChatParams{ID: id}, nil); err != nil {
		return remoteError(err)
	}
	return nil
}

// RunTurn sends text (and links, as resource_link blocks after it) to the
// chat as one turn and returns its stop reason once it has ended. With
// refusePermissions the server refuses each
// permission request of the turn and tells the observers. Should ctx end
// first, the turn goes on in the server (CancelTurn ends it).
func (c *Conn) RunTurn(ctx context.Context, id, text string, refusePermissions bool, links ...proto.Link) (string, error) {
	var res proto.PromptResult
	p := proto.PromptParams{ID: id, Text: text, RefusePermissions: refusePermissions, Links: links}
	if err := c.Call(ctx, proto.MethodPrompt, p, &res); err != nil {
		return "", remoteError(err)
	}
	return res.StopReason, nil
}

// CancelTurn cancels the chat's running turn; its RunTurn then returns the
// stop reason "cancelled".
func (c *Conn) CancelTurn(ctx context.Context, id string) error {
	return remoteError(c.Call(ctx, proto.MethodCancel, proto.ChatParams{ID: id}, nil))
}
