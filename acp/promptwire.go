package acp

import (
	"bytes"
	"encoding/json"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/internal/rpcline"
)

// This file reads the params of the common session/prompt, a session id
// and text blocks, straight. The SDK's decoding of a content block reads
// it three times (into a map, its type, then the variant) on the way of
// every prompt from the client to the agent; params of any other shape
// are still decoded by the SDK, so what a prompt means, and how a bad one
// is refused, is the SDK's.

// textPrompt returns the params of session/prompt when raw is exactly
// {"sessionId": string, "prompt": [text blocks]}, each text block exactly
// {"type": "text", "text": string} (the members in any order, each once,
// the keys written plainly): the same PromptRequest the SDK decodes of
// them. ok is false for anything else.
func textPrompt(raw json.RawMessage) (p *sdk.PromptRequest, ok bool) {
	if !json.Valid(raw) {
		return nil, false
	}
	var session, prompt []byte
	simple := true
	isObject := rpcline.Each(raw, func(key, value []byte) bool {
		switch {
		case string(key) == `"sessionId"` && session == nil && value[0] == '"':
			session = value
		case string(key) == `"prompt"` && prompt == nil && value[0] == '[':
			prompt = value
		default:
			simple = false
		}
		return simple
	})
	if !isObject || !simple || session == nil || prompt == nil {
		return nil, false
	}
	id, ok := rpcline.Unquote(session)
	if !ok {
		return nil, false
	}
	p = &sdk.PromptRequest{SessionId: sdk.SessionId(id), Prompt: []sdk.ContentBlock{}}
	rpcline.Elements(prompt, func(b []byte) bool {
		var text string
		if text, ok = textBlock(b); ok {
			p.Prompt = append(p.Prompt, sdk.TextBlock(text))
		}
		return ok
	})
	if !ok {
		return nil, false
	}
	return p, true
}

// textBlock returns the text of a block that is exactly {"type": "text",
// "text": string}.
func textBlock(raw json.RawMessage) (text string, ok bool) {
	var kind, value []byte
	simple := true
	isObject := rpcline.Each(raw, func(key, v []byte) bool {
		switch {
		case string(key) == `"type"` && kind == nil:
			kind = v
		case string(key) == `"text"` && value == nil && v[0] == '"':
			value = v
		default:
			simple = false
		}
		return simple
	})
	if !isObject || !simple || !bytes.Equal(kind, []byte(`"text"`)) || value == nil {
		return "", false
	}
	return rpcline.Unquote(value)
}

// withFastDecode is h with its params tried first by fast, which returns
// what h's own decoding would, or false to leave them to it.
func withFastDecode[P any](h handler, fast func(raw json.RawMessage) (*P, bool)) handler {
	slow := h.decode
	h.decode = func(raw json.RawMessage) (any, error) {
		if p, ok := fast(raw); ok {
			return p, nil
		}
		return slow(raw)
	}
	return h
}
