package acp

import (
	"bytes"
	"encoding/json"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/internal/rpcline"
)

// This file writes a session/update notification as the line a connection
// sends. The SDK's own encoding of its unions marshals each one, reads it
// back into a map and marshals the map, for the update and again for its
// content block: some microseconds and dozens of allocations on the way of
// every update, the first of a turn included, between the agent and the
// client. A text chunk, the stream's bulk, is written straight instead;
// any other update goes through encoding/json as before.

// EncodeUpdate is n as one session/update notification line, ending in a
// newline.
func EncodeUpdate(n sdk.SessionNotification) ([]byte, error) {
	if line, ok := textChunkLine(n); ok {
		return line, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{"2.0", MethodUpdate, n})
	return buf.Bytes(), err
}

// textChunkLine writes n when it is a text chunk of the user's, the
// agent's message or its thought and nothing more (no _meta, no
// annotations, no other variant set), with the keys in the order the SDK
// writes them; ok is false for any other update.
func textChunkLine(n sdk.SessionNotification) (line []byte, ok bool) {
	if len(n.Meta) > 0 {
		return nil, false
	}
	u := n.Update
	var (
		kind      string
		meta      map[string]any
		content   sdk.ContentBlock
		messageID *string
	)
	switch {
	case u.AgentMessageChunk != nil:
		c := u.AgentMessageChunk
		kind, meta, content, messageID = "agent_message_chunk", c.Meta, c.Content, c.MessageId
		u.AgentMessageChunk = nil
	case u.AgentThoughtChunk != nil:
		c := u.AgentThoughtChunk
		kind, meta, content, messageID = "agent_thought_chunk", c.Meta, c.Content, c.MessageId
		u.AgentThoughtChunk = nil
	case u.UserMessageChunk != nil:
		c := u.UserMessageChunk
		kind, meta, content, messageID = "user_message_chunk", c.Meta, c.Content, c.MessageId
		u.UserMessageChunk = nil
	default:
		return nil, false
	}
	text := content.Text
	if u != (sdk.SessionUpdate{}) || len(meta) > 0 || text == nil || content != (sdk.ContentBlock{Text: text}) ||
		len(text.Meta) > 0 || text.Annotations != nil {
		return nil, false
	}
	b := make([]byte, 0, len(text.Text)+len(n.SessionId)+160)
	b = append(b, `{"jsonrpc":"2.0","method":"`+MethodUpdate+`","params":{"sessionId":`...)
	b = rpcline.AppendString(b, string(n.SessionId))
	b = append(b, `,"update":{"content":{"text":`...)
	b = rpcline.AppendString(b, text.Text)
	b = append(b, `,"type":"text"}`...)
	if messageID != nil {
		b = append(b, `,"messageId":`...)
		b = rpcline.AppendString(b, *messageID)
	}
	b = append(b, `,"sessionUpdate":"`...)
	b = append(b, kind...)
	b = append(b, "\"}}}\n"...)
	return b, true
}
