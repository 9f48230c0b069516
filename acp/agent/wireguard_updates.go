package agent

import (
	"context"
	"encoding/json"

	acp "github.com/coder/acp-go-sdk"
)

// maxJoinedChunk bounds the text of the chunks joined into one update.
const maxJoinedChunk = 64 << 10

// updateApplier is the notificationSink of a chat's connection. It applies
// a session/update as the SDK's handler would (decode, validate, call the
// client) and drops any other notification: acpClient has no handler for
// one (the SDK would answer it method-not-found and drop it too). A few
// drops are logged, not all: a flood of them must not flood the log.
//
// Text chunks of one message that arrive back to back, already read, are
// joined into one update: under a burst the transcript, the observer and
// the screen see a few large chunks instead of a flood of small ones, with
// the same text in the same order. Nothing waits to be joined: the guard
// flushes before it waits for the agent.
type updateApplier struct {
	ctx    context.Context
	client acp.Client
	log    func(msg string, args ...any)
	logged int

	held *acp.SessionNotification // a text chunk that later ones may join
	text []byte                   // its text, and theirs
}

var _ notificationSink = (*updateApplier)(nil)

func (a *updateApplier) take(method string, params json.RawMessage) {
	if method != acp.ClientMethodSessionUpdate {
		a.warn("dropped a notification acpmux-tui does not handle", "method", method)
		return
	}
	n, straight := textChunk(params)
	if !straight {
		if err := json.Unmarshal(params, &n); err != nil {
			a.warn("dropped a session/update that does not decode", "err", err)
			return
		}
	}
	if err := n.Validate(); err != nil {
		a.warn("dropped an invalid session/update", "err", err)
		return
	}
	text, joins := chunkText(&n)
	if a.held != nil {
		if joins && sameMessage(a.held, &n) && len(a.text)+len(text) <= maxJoinedChunk {
			a.text = append(a.text, text...)
			return
		}
		a.flush()
	}
	if joins && len(text) < maxJoinedChunk {
		a.held = &n
		a.text = append(a.text[:0], text...)
		return
	}
	a.apply(n)
}

func (a *updateApplier) flush() {
	if a.held == nil {
		return
	}
	n := a.held
	a.held = nil
	if c := n.Update.AgentMessageChunk; c != nil {
		c.Content.Text.Text = string(a.text)
	} else {
		n.Update.AgentThoughtChunk.Content.Text.Text = string(a.text)
	}
	if cap(a.text) > 2*maxJoinedChunk {
		a.text = nil
	}
	a.apply(*n)
}

func (a *updateApplier) apply(n acp.SessionNotification) {
	if err := a.client.SessionUpdate(a.ctx, n); err != nil {
		a.warn("session/update failed", "err", err)
	}
}

func (a *updateApplier) warn(msg string, args ...any) {
	a.logged++
	switch {
	case a.logged <= 10:
		a.log(msg, args...)
	case a.logged == 11:
		a.log("more notifications from the agent were dropped; no more are logged")
	}
}

// chunkText is the text of an agent message or thought chunk that is plain
// text, nothing more (no _meta, no annotations), so that joining it to the
// next loses nothing.
func chunkText(n *acp.SessionNotification) (string, bool) {
	if len(n.Meta) > 0 {
		return "", false
	}
	var meta map[string]any
	var content acp.ContentBlock
	switch u := n.Update; {
	case u.AgentMessageChunk != nil:
		meta, content = u.AgentMessageChunk.Meta, u.AgentMessageChunk.Content
	case u.AgentThoughtChunk != nil:
		meta, content = u.AgentThoughtChunk.Meta, u.AgentThoughtChunk.Content
	default:
		return "", false
	}
	t := content.Text
	if len(meta) > 0 || t == nil || len(t.Meta) > 0 || t.Annotations != nil {
		return "", false
	}
	return t.Text, true
}

// sameMessage reports whether two chunks belong to one message: the same
// session, the same kind and the same message id.
func sameMessage(a, b *acp.SessionNotification) bool {
	if a.SessionId != b.SessionId {
		return false
	}
	var ida, idb *string
	switch {
	case a.Update.AgentMessageChunk != nil && b.Update.AgentMessageChunk != nil:
		ida, idb = a.Update.AgentMessageChunk.MessageId, b.Update.AgentMessageChunk.MessageId
	case a.Update.AgentThoughtChunk != nil && b.Update.AgentThoughtChunk != nil:
		ida, idb = a.Update.AgentThoughtChunk.MessageId, b.Update.AgentThoughtChunk.MessageId
	default:
		return false
	}
	return (ida == nil) == (idb == nil) && (ida == nil || *ida == *idb)
}
