package agent

import (
	"encoding/json"
	"reflect"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// TestTextChunkReadsWhatTheSDKReads: a session/update that is a text chunk
// of the agent's message, its thought or the user's message is read
// straight into the notification the SDK decodes of it; anything more or
// other (_meta, annotations, another kind of update, a repeated or oddly
// written key, a null) is left to the SDK.
func TestTextChunkReadsWhatTheSDKReads(t *testing.T) {
	uuid := "0b0d1a52-8f6e-4f2e-9a43-2b8d3c8a1f00"
	cases := []struct {
		params   string
		straight bool
	}{
		{`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}`, true},
		{`{"sessionId":"s1","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hm"},"messageId":"` + uuid + `"}}`, true},
		{` { "update" : { "content" : { "text" : "a\nb \u00e9 \ud83d\ude00 \u001b[31m" , "type" : "text" } , "sessionUpdate" : "user_message_chunk" } , "sessionId" : "s\u0031" } `, true},
		{`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":""}}}`, true},
		{`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}},"_meta":{}}`, false},
		{`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"},"_meta":{"k":1}}}`, false},
		{`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi","annotations":{}}}}`, false},
		{`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"image","data":"","mimeType":"image/png"}}}`, false},
		{`{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"t"}}`, false},
		{`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"},"messageId":null}}`, false},
		{`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}}}`, false},
		{`{"sessionId":"s1","update":{"SessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}`, false},
		{`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"te\u0078t","text":"hi"}}}`, false},
		{`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":7}}}`, false},
		{`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk"}}`, false},
		{`{"sessionId":7,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}`, false},
		{`{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}`, false},
		{`[1]`, false},
	}
	for _, tc := range cases {
		n, straight := textChunk(json.RawMessage(tc.params))
		if straight != tc.straight {
			t.Errorf("%s: read straight: %v, want %v", tc.params, straight, tc.straight)
		}
		if !straight {
			continue
		}
		var want acp.SessionNotification
		if err := json.Unmarshal([]byte(tc.params), &want); err != nil {
			t.Fatalf("%s: %v", tc.params, err)
		}
		if !reflect.DeepEqual(n, want) || n.Validate() != nil {
			t.Errorf("%s: read %+v, the SDK reads %+v", tc.params, n, want)
		}
	}
}

// FuzzTextChunk: whatever session/update params are read straight are
// read as the SDK reads them.
func FuzzTextChunk(f *testing.F) {
	for _, seed := range []string{
		`{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}`,
		`{"sessionId":"s1","update":{"sessionUpdate":"user_message_chunk","content":{"text":"x","type":"text"},"messageId":"m"}}`,
		`{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"t"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		if !json.Valid(params) {
			return // the guard passes on only what decodes
		}
		n, ok := textChunk(params)
		if !ok {
			return
		}
		var want acp.SessionNotification
		if err := json.Unmarshal(params, &want); err != nil {
			t.Fatalf("%q: read straight, but the SDK refuses it: %v", params, err)
		}
		if !reflect.DeepEqual(n, want) {
			t.Fatalf("%q: read %+v, the SDK reads %+v", params, n, want)
		}
	})
}
