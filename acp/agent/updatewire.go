package agent

import (
	"bytes"
	"encoding/json"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/internal/rpcline"
)

// This file reads the params of the agent's commonest notification, a
// session/update that is a text chunk, straight. The SDK's decoding of the
// update's union and of its content block reads each three times (into a
// map, its tag, then the variant) on the way of every update from the
// agent to the transcript and the clients; params of any other shape are
// still decoded by the SDK.

// textChunk returns the params of a session/update when they are exactly
// {"sessionId": string, "update": {"sessionUpdate": "agent_message_chunk"
// | "agent_thought_chunk" | "user_message_chunk", "content": {"type":
// "text", "text": string}, and "messageId": string or not}} (the members in
// any order, each once, the keys written plainly): the notification the
// SDK decodes of them. ok is false for anything else. params must be
// valid JSON.
func textChunk(params json.RawMessage) (n acp.SessionNotification, ok bool) {
	var session, update []byte
	if !plainMembers(params, func(key, v []byte) bool {
		switch {
		case string(key) == `"sessionId"` && session == nil && v[0] == '"':
			session = v
		case string(key) == `"update"` && update == nil && v[0] == '{':
			update = v
		default:
			return false
		}
		return true
	}) || session == nil || update == nil {
		return n, false
	}
	var kind, content, messageID []byte
	if !plainMembers(update, func(key, v []byte) bool {
		switch {
		case string(key) == `"sessionUpdate"` && kind == nil:
			kind = v
		case string(key) == `"content"` && content == nil && v[0] == '{':
			content = v
		case string(key) == `"messageId"` && messageID == nil && v[0] == '"':
			messageID = v
		default:
			return false
		}
		return true
	}) || content == nil {
		return n, false
	}
	var typ, text []byte
	if !plainMembers(content, func(key, v []byte) bool {
		switch {
		case string(key) == `"type"` && typ == nil:
			typ = v
		case string(key) == `"text"` && text == nil && v[0] == '"':
			text = v
		default:
			return false
		}
		return true
	}) || !bytes.Equal(typ, []byte(`"text"`)) || text == nil {
		return n, false
	}
	sessionID, ok1 := rpcline.Unquote(session)
	chunk, ok2 := rpcline.Unquote(text)
	if !ok1 || !ok2 {
		return n, false
	}
	n.SessionId = acp.SessionId(sessionID)
	block := acp.ContentBlockText{Type: "text", Text: chunk}
	var id *string
	if messageID != nil {
		s, ok := rpcline.Unquote(messageID)
		if !ok {
			return n, false
		}
		id = &s
	}
	c := acp.ContentBlock{Text: &block}
	switch string(kind) {
	case `"agent_message_chunk"`:
		n.Update.AgentMessageChunk = &acp.SessionUpdateAgentMessageChunk{Content: c, MessageId: id, SessionUpdate: "agent_message_chunk"}
	case `"agent_thought_chunk"`:
		n.Update.AgentThoughtChunk = &acp.SessionUpdateAgentThoughtChunk{Content: c, MessageId: id, SessionUpdate: "agent_thought_chunk"}
	case `"user_message_chunk"`:
		n.Update.UserMessageChunk = &acp.SessionUpdateUserMessageChunk{Content: c, MessageId: id, SessionUpdate: "user_message_chunk"}
	default:
		return n, false
	}
	return n, true
}

// plainMembers calls member with each member of the object obj (valid
// JSON), its key raw, while it returns true; false when obj is no object
// or member refused one.
func plainMembers(obj []byte, member func(key, v []byte) bool) bool {
	all := true
	return rpcline.Each(obj, func(key, v []byte) bool {
		all = member(key, v)
		return all
	}) && all
}
