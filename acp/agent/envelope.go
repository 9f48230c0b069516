package agent

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/acpmux/acpmux-tui/internal/rpcline"
)

// readEnvelope decodes line, valid JSON, as json.Unmarshal into an
// envelope does, and reports false where that would fail. A line whose
// members are named exactly (the common case) is read straight with
// rpcline, its raw values copied; one that names a member in other case
// (json.Unmarshal matches "ID" and "Method" to the fields too) or holds a
// value of another type, and any error member, is left to json.Unmarshal.
// Every line from an agent is read here.
func readEnvelope(line []byte) (msg envelope, ok bool) {
	straight := true
	var jsonrpc, id, method, params, result []byte
	isObject := rpcline.Each(line, func(key, value []byte) bool {
		switch string(key) {
		case `"jsonrpc"`:
			jsonrpc = value
		case `"id"`:
			id = value
		case `"method"`:
			method = value
		case `"params"`:
			params = value
		case `"result"`:
			result = value
		default:
			straight = !envelopeMember(key)
		}
		return straight
	})
	if isObject && straight {
		msg, straight = envelopeOf(jsonrpc, id, method, params, result)
		if straight {
			return msg, true
		}
	}
	msg = envelope{}
	return msg, json.Unmarshal(line, &msg) == nil
}

// envelopeMember reports whether key, a JSON string, may name a member of
// an envelope as json.Unmarshal matches names (escaped, or in other case).
func envelopeMember(key []byte) bool {
	name, ok := rpcline.Unquote(key)
	if !ok {
		return true
	}
	for _, m := range []string{"jsonrpc", "id", "method", "params", "result", "error"} {
		if strings.EqualFold(name, m) {
			return true
		}
	}
	return false
}

// envelopeOf is the envelope of the raw members, false for a value
// json.Unmarshal would decode otherwise than plainly (or refuse).
func envelopeOf(jsonrpc, id, method, params, result []byte) (msg envelope, ok bool) {
	str := func(raw []byte, dst *string) bool {
		if raw == nil {
			return true
		}
		s, ok := rpcline.Unquote(raw)
		*dst = s
		return ok
	}
	if !str(jsonrpc, &msg.JSONRPC) || !str(method, &msg.Method) {
		return envelope{}, false
	}
	if id != nil && string(id) != "null" {
		raw := json.RawMessage(bytes.Clone(id))
		msg.ID = &raw
	}
	if params != nil {
		msg.Params = bytes.Clone(params)
	}
	if result != nil {
		msg.Result = bytes.Clone(result)
	}
	return msg, true
}
