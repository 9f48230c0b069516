package acp

import (
	"encoding/json"
	"strings"
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
		line := updateLine(t, v, got[0])
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
	}
}

// updateLine is n as the door writes it, a session/update notification's
// line, checked against the pinned ACP schema (when v has it).
func updateLine(t *testing.T, v *acpschema.Validator, n any) []byte {
	t.Helper()
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": MethodUpdate, "params": n})
	if err != nil {
		t.Fatal(err)
	}
	if v != nil {
		if err := v.ValidateAgentMessage("", line); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
	return line
}

// TestUpdatesCarryToolContentAndCommands: a tool call's kind and content
// go to the client (a diff with oldText left out for a new file, a text, a
// terminal; a cut text with its size under _meta), and a change of the agent's commands is an
// available_commands_update (an empty one when it withdraws them), each
// valid against the pinned schema.
func TestUpdatesCarryToolContentAndCommands(t *testing.T) {
	v := acpschema.ForTest(t)
	old := "old\n"
	content := []proto.ToolContent{
		{Type: proto.ToolContentDiff, Path: "/a.go", OldText: &old, NewText: "new\n", Size: 3 << 20},
		{Type: proto.ToolContentDiff, Path: "/b.go", NewText: "fresh\n"},
		{Type: proto.ToolContentText, Text: "out\n"},
		{Type: proto.ToolContentTerminal, TerminalID: "t1"},
	}
	cfg := SessionConfig{Commands: []proto.Command{{Name: "review", Description: "Review"}, {Name: "test", Description: "Run", Hint: "pattern"}}}
	d := NewDoor(configBackend{cfg: &cfg}, "test")
	got := d.Updates("k3x9q2", []proto.ObservedEntry{
		{Entry: proto.Entry{Kind: proto.EntryTool, ToolCallID: "c1", Title: "Edit", ToolStatus: "pending", ToolKind: "edit", Content: content}},
		{Entry: proto.Entry{Kind: proto.EntryTool, ToolCallID: "c1", ToolStatus: "completed", ToolKind: "execute", Content: []proto.ToolContent{}}},
		{Entry: proto.Entry{Kind: EntrySessionConfig}},
	})
	cfg.Commands = nil
	got = append(got, d.Updates("k3x9q2", []proto.ObservedEntry{{Entry: proto.Entry{Kind: EntrySessionConfig}}})...)
	var lines []string
	for _, n := range got {
		line := updateLine(t, v, n)
		var back struct {
			Params struct {
				Update json.RawMessage `json:"update"`
			} `json:"params"`
		}
		if err := json.Unmarshal(line, &back); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(back.Params.Update))
	}
	want := []string{
		`{"content":[{"_meta":{"acpmux/size":3145728},"newText":"new\n","oldText":"old\n","path":"/a.go","type":"diff"},{"newText":"fresh\n","path":"/b.go","type":"diff"},{"content":{"text":"out\n","type":"text"},"type":"content"},{"terminalId":"t1","type":"terminal"}],"kind":"edit","sessionUpdate":"tool_call","status":"pending","title":"Edit","toolCallId":"c1"}`,
		// The SDK leaves an empty content list out: a client keeps the
		// call's content (ACP has no way to say "none" but an empty list).
		`{"kind":"execute","sessionUpdate":"tool_call_update","status":"completed","toolCallId":"c1"}`,
		`{"availableCommands":[{"description":"Review","name":"review"},{"description":"Run","input":{"hint":"pattern"},"name":"test"}],"sessionUpdate":"available_commands_update"}`,
		`{"availableCommands":[],"sessionUpdate":"available_commands_update"}`,
	}
	if len(lines) != len(want) {
		t.Fatalf("sent %d updates:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("update %d:\n got %s\nwant %s", i, lines[i], want[i])
		}
	}
}

// configBackend is a Backend whose SessionConfig is *cfg (the rest is
// not called).
type configBackend struct {
	Backend
	cfg *SessionConfig
}

func (b configBackend) SessionConfig(string) SessionConfig { return *b.cfg }

// TestUpdatesCarryAUserMessagesLinks: a user message's links follow its
// text as resource_link chunks, and so do those of another client's
// prompt, but not of the client's own.
func TestUpdatesCarryAUserMessagesLinks(t *testing.T) {
	v := acpschema.ForTest(t)
	d := NewDoor(nil, "test")
	links := []proto.Link{{URI: "file:///src/a.go", Name: "a.go"}}
	got := d.Updates("k3x9q2", []proto.ObservedEntry{
		{Entry: proto.Entry{Kind: proto.EntryUser, Text: "look", Links: links}},
		{Entry: proto.Entry{Kind: proto.EntryTurnStarted, Text: "theirs", Links: links}},
		{Entry: proto.Entry{Kind: proto.EntryTurnStarted, Text: "mine", Links: links}, Own: true},
	})
	var kinds []string
	for _, n := range got {
		updateLine(t, v, n)
		c := n.Update.UserMessageChunk
		switch {
		case c == nil:
			kinds = append(kinds, "other")
		case c.Content.ResourceLink != nil:
			kinds = append(kinds, "link "+c.Content.ResourceLink.Uri)
		case c.Content.Text != nil:
			kinds = append(kinds, "text "+c.Content.Text.Text)
		}
	}
	want := "text look|link file:///src/a.go|text theirs|link file:///src/a.go"
	if strings.Join(kinds, "|") != want {
		t.Errorf("sent %q, want %q", strings.Join(kinds, "|"), want)
	}
}
