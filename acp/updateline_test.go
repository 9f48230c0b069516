package acp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
)

// TestEncodeUpdateWritesWhatTheSDKWrites: every update's line says what
// the SDK's own encoding says (the same JSON, valid against the pinned
// schema), one line ending in a newline; a plain text chunk takes the
// straight way, and anything more (annotations, _meta, another variant
// beside it, another kind of update) the SDK's.
func TestEncodeUpdateWritesWhatTheSDKWrites(t *testing.T) {
	v := acpschema.ForTest(t)
	uuid := "0b0d1a52-8f6e-4f2e-9a43-2b8d3c8a1f00"
	hostile := "<b>&amp;</b> \"quoted\" \\ \u2028\u2029 é \x01\x1b[31m \xff\xfe tab\there\nnew line"
	annotated := sdk.TextBlock("noted")
	annotated.Text.Annotations = &sdk.Annotations{Priority: sdk.Ptr(0.5)}
	metaText := sdk.TextBlock("meta")
	metaText.Text.Meta = map[string]any{"k": "v"}
	both := sdk.UpdateAgentMessageText("both")
	both.AgentThoughtChunk = &sdk.SessionUpdateAgentThoughtChunk{Content: sdk.TextBlock("thought")}
	cases := []struct {
		name     string
		n        sdk.SessionNotification
		straight bool
	}{
		{"agent text", sdk.SessionNotification{SessionId: "k3x9q2", Update: sdk.UpdateAgentMessageText("hello")}, true},
		{"thought", sdk.SessionNotification{SessionId: "k3x9q2", Update: sdk.UpdateAgentThoughtText("hm")}, true},
		{"user text", sdk.SessionNotification{SessionId: "k3x9q2", Update: sdk.UpdateUserMessageText("look")}, true},
		{"hostile text", sdk.SessionNotification{SessionId: "k3x9q2", Update: sdk.UpdateAgentMessageText(hostile)}, true},
		{"empty text", sdk.SessionNotification{SessionId: "k3x9q2", Update: sdk.UpdateAgentMessageText("")}, true},
		{"message id", sdk.SessionNotification{SessionId: "k3x9q2", Update: chunk(sdk.UpdateAgentMessageText("hi"), uuid)}, true},
		{"thought id", sdk.SessionNotification{SessionId: "k3x9q2", Update: chunk(sdk.UpdateAgentThoughtText("hm"), uuid)}, true},
		{"user id", sdk.SessionNotification{SessionId: "k3x9q2", Update: chunk(sdk.UpdateUserMessageText("me"), uuid)}, true},
		{"annotated", sdk.SessionNotification{SessionId: "k3x9q2", Update: sdk.SessionUpdate{AgentMessageChunk: &sdk.SessionUpdateAgentMessageChunk{Content: annotated}}}, false},
		{"text meta", sdk.SessionNotification{SessionId: "k3x9q2", Update: sdk.SessionUpdate{AgentMessageChunk: &sdk.SessionUpdateAgentMessageChunk{Content: metaText}}}, false},
		{"chunk meta", sdk.SessionNotification{SessionId: "k3x9q2", Update: sdk.SessionUpdate{UserMessageChunk: &sdk.SessionUpdateUserMessageChunk{Content: sdk.TextBlock("x"), Meta: map[string]any{"k": 1}}}}, false},
		{"notification meta", sdk.SessionNotification{SessionId: "k3x9q2", Meta: map[string]any{"k": true}, Update: sdk.UpdateAgentMessageText("x")}, false},
		{"two variants", sdk.SessionNotification{SessionId: "k3x9q2", Update: both}, false},
		{"link", sdk.SessionNotification{SessionId: "k3x9q2", Update: sdk.SessionUpdate{UserMessageChunk: &sdk.SessionUpdateUserMessageChunk{Content: sdk.ResourceLinkBlock("a.go", "file:///a.go")}}}, false},
		{"tool call", sdk.SessionNotification{SessionId: "k3x9q2", Update: sdk.StartToolCall("c1", "Read <a>", sdk.WithStartStatus(sdk.ToolCallStatusPending))}, false},
		{"plan", sdk.SessionNotification{SessionId: "k3x9q2", Update: sdk.UpdatePlan(sdk.PlanEntry{Content: "one", Priority: sdk.PlanEntryPriorityMedium, Status: sdk.PlanEntryStatusPending})}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			line, err := EncodeUpdate(tc.n)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasSuffix(line, []byte("\n")) || bytes.Count(line, []byte("\n")) != 1 {
				t.Fatalf("not one line ending in a newline: %q", line)
			}
			if _, straight := textChunkLine(tc.n); straight != tc.straight {
				t.Errorf("straight way taken: %v, want %v", straight, tc.straight)
			}
			if tc.name != "two variants" { // the schema refuses an update of two kinds
				if err := v.ValidateAgentMessage("", bytes.TrimSpace(line)); err != nil {
					t.Errorf("%s: %v", line, err)
				}
			}
			want, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": MethodUpdate, "params": tc.n})
			if err != nil {
				t.Fatal(err)
			}
			var got, sdkSays any
			if err := json.Unmarshal(line, &got); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			if err := json.Unmarshal(want, &sdkSays); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, sdkSays) {
				t.Errorf("line says\n%s\nthe SDK says\n%s", line, want)
			}
		})
	}
}
