package acp

import (
	"encoding/json"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/proto"
)

// TestUpdatesTurnTheStreamIntoSessionUpdates: each kind of the chat's
// stream becomes the session/update ACP names for it, valid against the
// pinned schema; the prompting client is not sent its own prompt; a tool
// call is tool_call once, then tool_call_update; a message id that is not
// a UUID, and a status ACP does not know, are left out.
func TestUpdatesTurnTheStreamIntoSessionUpdates(t *testing.T) {
	v := acpschema.ForTest(t)
	d := NewDoor(nil, "test")
	uuid := "0b0d1a52-8f6e-4f2e-9a43-2b8d3c8a1f00"
	cases := []struct {
		in   proto.ObservedEntry
		want string // the sessionUpdate, "" for none
		id   bool   // a messageId is kept
	}{
		{proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryTurnStarted, Text: "mine"}, Own: true}, "", false},
		{proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryTurnStarted, Text: "from the TUI"}}, "user_message_chunk", false},
		{proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryUser, Text: "replayed", MessageID: uuid}}, "user_message_chunk", true},
		{proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryAgent, Text: "hi", MessageID: "not-a-uuid"}}, "agent_message_chunk", false},
		{proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryThought, Text: "hm", MessageID: uuid}}, "agent_thought_chunk", true},
		{proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryTool, ToolCallID: "c1", Title: "Read", ToolStatus: "pending"}}, "tool_call", false},
		{proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryTool, ToolCallID: "c1", ToolStatus: "completed"}}, "tool_call_update", false},
		{proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryTool, ToolCallID: "c2", ToolStatus: "\x1b[31mweird"}}, "tool_call", false},
		{proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryTool}}, "", false},
		{proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryPlan, Plan: []string{"one", "two"}}}, "plan", false},
		{proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryStderr, Text: "noise"}}, "", false},
		{proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryAgent}}, "", false},
	}
	for _, tc := range cases {
		got := d.Updates("k3x9q2", []proto.ObservedEntry{tc.in})
		if tc.want == "" {
			if len(got) != 0 {
				t.Errorf("%+v: sent %d updates, want none", tc.in, len(got))
			}
			continue
		}
		if len(got) != 1 {
			t.Fatalf("%+v: %d updates, want 1", tc.in, len(got))
		}
		line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": MethodUpdate, "params": got[0]})
		if err != nil {
			t.Fatal(err)
		}
		var back struct {
			Params struct {
				SessionID string `json:"sessionId"`
				Update    struct {
					Kind      string  `json:"sessionUpdate"`
					MessageID *string `json:"messageId"`
					Status    *string `json:"status"`
				} `json:"update"`
			} `json:"params"`
		}
		if err := json.Unmarshal(line, &back); err != nil {
			t.Fatal(err)
		}
		u := back.Params.Update
		if u.Kind != tc.want || back.Params.SessionID != "k3x9q2" || (u.MessageID != nil) != tc.id {
			t.Errorf("%+v: sent %s", tc.in, line)
		}
		if u.Status != nil && *u.Status != "pending" && *u.Status != "completed" {
			t.Errorf("%+v: status %q sent", tc.in, *u.Status)
		}
		if v != nil {
			if err := v.ValidateAgentMessage("", line); err != nil {
				t.Errorf("%+v: %v", tc.in, err)
			}
		}
	}
}
