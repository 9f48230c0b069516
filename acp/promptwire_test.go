package acp

import (
	"encoding/json"
	"reflect"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// TestTextPromptReadsWhatTheSDKReads: a prompt of a session id and text
// blocks is read straight into the PromptRequest the SDK decodes of it;
// anything more or other (a _meta, a messageId, a link, a repeated or
// oddly written key, a type that is not "text") is left to the SDK, and the
// door's table answers each as the SDK's decoding does.
func TestTextPromptReadsWhatTheSDKReads(t *testing.T) {
	cases := []struct {
		params   string
		straight bool
	}{
		{`{"sessionId":"k3x9q2","prompt":[{"type":"text","text":"hi"}]}`, true},
		{` { "prompt" : [ { "text" : "a\nb \u00e9 \ud83d\ude00 \"q\"" , "type" : "text" } , {"type":"text","text":""} ] , "sessionId" : "k3\u0078" } `, true},
		{`{"sessionId":"k3x9q2","prompt":[]}`, true},
		{`{"sessionId":"k3x9q2","prompt":[{"type":"text","text":"hi"}],"_meta":{"k":1}}`, false},
		{`{"sessionId":"k3x9q2","prompt":[{"type":"text","text":"hi"}],"messageId":"m1"}`, false},
		{`{"sessionId":"k3x9q2","prompt":[{"type":"resource_link","name":"a","uri":"file:///a"}]}`, false},
		{`{"sessionId":"k3x9q2","prompt":[{"type":"text","text":"hi","annotations":{"priority":1}}]}`, false},
		{`{"sessionId":"k3x9q2","prompt":[{"type":"text","text":"hi","_meta":{}}]}`, false},
		{`{"sessionId":"k3x9q2","prompt":[{"type":"text","text":"a","text":"b"}]}`, false},
		{`{"sessionId":"one","sessionId":"two","prompt":[]}`, false},
		{`{"SessionId":"k3x9q2","prompt":[]}`, false},
		{`{"sessionId":"k3x9q2","prompt":[{"Type":"text","text":"hi"}]}`, false},
		{`{"sessionId":"k3x9q2","prompt":[{"type":"t\u0065xt","text":"hi"}]}`, false},
		{`{"sessionId":"k3x9q2","prompt":[{"type":"text","text":7}]}`, false},
		{`{"sessionId":"k3x9q2","prompt":[{"type":"text"}]}`, false},
		{`{"sessionId":"k3x9q2","prompt":[null]}`, false},
		{`{"sessionId":"k3x9q2","prompt":null}`, false},
		{`{"sessionId":7,"prompt":[]}`, false},
		{`{"sessionId":"k3x9q2"}`, false},
		{`{"sessionId":"k3x9q2","prompt":[{"type":"text","text":"hi"}]`, false},
		{`[1,2]`, false},
		{``, false},
	}
	h := methods[sdk.AgentMethodSessionPrompt]
	for _, tc := range cases {
		raw := json.RawMessage(tc.params)
		p, straight := textPrompt(raw)
		if straight != tc.straight {
			t.Errorf("%s: read straight: %v, want %v", tc.params, straight, tc.straight)
		}
		var want sdk.PromptRequest
		wantErr := decodeParams(raw, &want)
		if wantErr == nil {
			if err := want.Validate(); err != nil {
				wantErr = errorf(CodeInvalidParams, "Invalid params: %v", err)
			}
		}
		if straight && (wantErr != nil || !reflect.DeepEqual(*p, want)) {
			t.Errorf("%s: read %+v, the SDK reads %+v (%v)", tc.params, *p, want, wantErr)
		}
		got, err := h.decode(raw)
		switch {
		case wantErr != nil:
			if err == nil || err.Error() != wantErr.Error() {
				t.Errorf("%s: the table answers %v, the SDK's decoding %v", tc.params, err, wantErr)
			}
		case err != nil:
			t.Errorf("%s: the table refuses with %v, the SDK's decoding takes it", tc.params, err)
		case !reflect.DeepEqual(*got.(*sdk.PromptRequest), want):
			t.Errorf("%s: the table reads %+v, the SDK %+v", tc.params, got, want)
		}
	}
}

// FuzzTextPrompt: whatever params are read straight are read as the SDK
// reads them.
func FuzzTextPrompt(f *testing.F) {
	for _, seed := range []string{
		`{"sessionId":"k3x9q2","prompt":[{"type":"text","text":"hi"}]}`,
		`{"prompt":[{"text":"\u00e9","type":"text"},{"type":"text","text":""}],"sessionId":"s"}`,
		`{"sessionId":"k3x9q2","prompt":[{"type":"image","data":"","mimeType":"image/png"}]}`,
		`{"sessionId":"a","sessionId":"b","prompt":[]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		p, ok := textPrompt(params)
		if !ok {
			return
		}
		var want sdk.PromptRequest
		if err := decodeParams(params, &want); err != nil {
			t.Fatalf("%q: read straight, but the SDK refuses it: %v", params, err)
		}
		if err := want.Validate(); err != nil {
			t.Fatalf("%q: read straight, but the SDK's check refuses it: %v", params, err)
		}
		if !reflect.DeepEqual(*p, want) {
			t.Fatalf("%q: read %+v, the SDK reads %+v", params, *p, want)
		}
	})
}

// BenchmarkTextPrompt: the params of a one-line prompt, read straight.
func BenchmarkTextPrompt(b *testing.B) {
	raw := json.RawMessage(`{"sessionId":"1hj1lc","prompt":[{"type":"text","text":"prompt 5999: what does this function do?"}]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := textPrompt(raw); !ok {
			b.Fatal("not read straight")
		}
	}
}
