package server

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/internal/testharness/doorclient"
	"github.com/acpmux/acpmux-tui/proto"
)

// commandNames are the names of the last available_commands_update a
// client heard for a session, nil when it heard none.
func commandNames(c *doorclient.Client, id string) []string {
	var names []string
	heard := false
	for _, n := range c.Updates() {
		if string(n.SessionId) != id || n.Update.AvailableCommandsUpdate == nil {
			continue
		}
		heard, names = true, []string{}
		for _, cmd := range n.Update.AvailableCommandsUpdate.AvailableCommands {
			name := cmd.Name
			if cmd.Input != nil && cmd.Input.Unstructured != nil {
				name += " <" + cmd.Input.Unstructured.Hint + ">"
			}
			names = append(names, name)
		}
	}
	if !heard {
		return nil
	}
	return names
}

// toolDiffs are the diffs of the tool calls and updates a client heard
// for a session, "PATH: OLD -> NEW" each (OLD "(new)" for a new file).
func toolDiffs(c *doorclient.Client, id string) []string {
	var out []string
	add := func(content []sdk.ToolCallContent) {
		for _, tc := range content {
			if d := tc.Diff; d != nil {
				old := "(new)"
				if d.OldText != nil {
					old = strings.TrimSpace(*d.OldText)
				}
				out = append(out, d.Path+": "+old+" -> "+strings.TrimSpace(d.NewText))
			}
		}
	}
	for _, n := range c.Updates() {
		if string(n.SessionId) != id {
			continue
		}
		if u := n.Update.ToolCall; u != nil {
			add(u.Content)
		}
		if u := n.Update.ToolCallUpdate; u != nil {
			add(u.Content)
		}
	}
	return out
}

// toolKinds are the kinds the tool_call updates a client heard carried.
func toolKinds(c *doorclient.Client, id string) []string {
	var out []string
	for _, n := range c.Updates() {
		if u := n.Update.ToolCall; string(n.SessionId) == id && u != nil {
			out = append(out, string(u.Kind))
		}
	}
	return out
}

// TestDoorToolContentCommandsAndLinks: a door client hears the agent's
// slash commands (available_commands_update, after session/new and again
// on session/load), its tool calls with their kind and content (diffs,
// text), live and in a load's replay, and a permission request with what
// the call will do; a prompt's resource_link blocks reach the agent as
// such, and a link that is no file:// URI of an absolute path is refused.
// Every message is checked against the ACP schema.
func TestDoorToolContentCommandsAndLinks(t *testing.T) {
	r := newDoorRig(t, map[string]string{"ACPMUX_FAKE_COMMANDS": "1"})
	v := acpschema.ForTest(t)
	c := r.doorClient(v)
	initDoor(t, c)
	proj := r.folders(1)[0]
	resp, err := c.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: proj, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	id := string(resp.SessionId)
	wantCmds := []string{"review", "test <package pattern>", "explain <what to explain>"}
	waitFor(t, "the agent's commands at the client after session/new", func() bool {
		return slices.Equal(commandNames(c, id), wantCmds)
	})

	if _, err := c.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("edit-diff")}}); err != nil {
		t.Fatalf("prompt edit-diff: %v", err)
	}
	wantDiffs := []string{
		proj + "/parser.go: package parser\n\nfunc Parse(s string) []string {\n\treturn strings.Fields(s)\n} -> package parser\n\n// Parse splits s into tokens.\nfunc Parse(s string) []string {\n\treturn tokens(s)\n}",
		proj + "/lexer.go: (new) -> package parser\n\nfunc tokens(s string) []string {\n\treturn strings.Fields(s)\n}",
	}
	if got := toolDiffs(c, id); !slices.Equal(got, wantDiffs) {
		t.Errorf("the client heard diffs %q, want %q", got, wantDiffs)
	}
	if got := toolKinds(c, id); !slices.Equal(got, []string{"edit"}) {
		t.Errorf("tool_call kinds %q, want edit", got)
	}
	if _, err := c.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("execute")}}); err != nil {
		t.Fatalf("prompt execute: %v", err)
	}
	output := ""
	for _, n := range c.Updates() {
		if u := n.Update.ToolCallUpdate; u != nil {
			for _, tc := range u.Content {
				if tc.Content != nil && tc.Content.Content.Text != nil {
					output = tc.Content.Content.Text.Text
				}
			}
		}
	}
	if strings.Count(output, "\n") != 82 {
		t.Errorf("the command's output reached the client as %q", output)
	}

	// A permission request carries what the call will do.
	c.Permit = func(context.Context, sdk.RequestPermissionRequest) string { return "allow_once" }
	if _, err := c.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("permission-edit")}}); err != nil {
		t.Fatalf("prompt permission-edit: %v", err)
	}
	asked := c.Asked()
	if len(asked) != 1 {
		t.Fatalf("the client was asked %d times, want once", len(asked))
	}
	tc := asked[0].ToolCall
	if tc.Kind == nil || *tc.Kind != sdk.ToolKindEdit || len(tc.Content) != 1 || tc.Content[0].Diff == nil ||
		tc.Content[0].Diff.Path != proj+"/main.go" || !strings.Contains(tc.Content[0].Diff.NewText, "run()") {
		t.Errorf("the permission request's tool call is %+v, want kind edit with main.go's diff", tc)
	}
	if got := c.Text(id, "agent"); !strings.Contains(got, "permission: allow_once") {
		t.Errorf("the agent said %q", got)
	}

	// resource_link blocks reach the agent as resource_link blocks.
	uri := (&url.URL{Scheme: "file", Path: proj + "/main.go"}).String()
	link := sdk.ResourceLinkBlock("main.go", uri)
	if _, err := c.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("links"), link}}); err != nil {
		t.Fatalf("prompt with a resource_link: %v", err)
	}
	if got, want := c.Text(id, "agent"), "links: main.go "+uri+" -|"; !strings.HasSuffix(got, want) {
		t.Errorf("the agent heard %q, want it to end %q", got, want)
	}
	for _, bad := range []sdk.ContentBlock{
		sdk.ResourceLinkBlock("x", "https://example.com/x"),
		sdk.ResourceLinkBlock("x", "file:relative"),
		sdk.ResourceLinkBlock("a\x1b[2Jb", "file:///a"),
	} {
		_, err := c.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hi"), bad}})
		if code, _, _ := doorclient.AsRefusal(err); code != -32602 || !strings.Contains(err.Error(), "resource_link") {
			t.Errorf("a prompt with resource_link %q: %v, want -32602 naming the link", bad.ResourceLink.Uri, err)
		}
	}

	// Another client loads the session: the commands come with it, and
	// the replay holds the tool calls with their kind and content.
	c2 := r.doorClient(v)
	initDoor(t, c2)
	if _, err := c2.LoadSession(hangCtx(t), sdk.LoadSessionRequest{SessionId: resp.SessionId, Cwd: proj, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	waitFor(t, "the agent's commands at the client that loaded the session", func() bool {
		return slices.Equal(commandNames(c2, id), wantCmds)
	})
	if got := toolDiffs(c2, id); !slices.Contains(got, wantDiffs[0]) || !slices.Contains(got, wantDiffs[1]) {
		t.Errorf("the replay's diffs %q, want %q among them", got, wantDiffs)
	}
	if got := toolKinds(c2, id); len(got) < 3 || !slices.Equal(got[:3], []string{"edit", "execute", "edit"}) {
		t.Errorf("the replay's tool_call kinds %q, want edit, execute, edit", got)
	}

	// A change of the commands reaches both clients.
	if _, err := c.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("commands-withdraw")}}); err != nil {
		t.Fatalf("prompt commands-withdraw: %v", err)
	}
	waitFor(t, "an empty available_commands_update at both clients", func() bool {
		return slices.Equal(commandNames(c, id), []string{}) && slices.Equal(commandNames(c2, id), []string{})
	})
	for _, cl := range []*doorclient.Client{c, c2} {
		if err := cl.Invalid(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPromptLinksAreChecked: _acpmux/prompt refuses a link that is not a
// file:// URI of an absolute path, or has no clean name, or too many, with
// -32602 naming it; nothing reaches the agent.
func TestPromptLinksAreChecked(t *testing.T) {
	p := newPromptRig(t)
	w := p.dial()
	many := make([]proto.Link, proto.MaxPromptLinks+1)
	for i := range many {
		many[i] = proto.Link{URI: "file:///a.go", Name: "a.go"}
	}
	for _, tc := range []struct {
		links []proto.Link
		says  string
	}{
		{[]proto.Link{{URI: "https://example.com/a", Name: "a"}}, "links[0]"},
		{[]proto.Link{{URI: "file:///a.go", Name: "a.go"}, {URI: "file://host/a.go", Name: "a.go"}}, "links[1]"},
		{[]proto.Link{{URI: "file:///a.go", Name: "a\u202e.go"}}, "control"},
		{[]proto.Link{{URI: "file:///a.go"}}, "no name"},
		{many, "at most 64"},
	} {
		e := w.fails(proto.CodeInvalidParams, proto.MethodPrompt, proto.PromptParams{ID: p.chat, Text: "hi", Links: tc.links})
		if !strings.Contains(e.Message, tc.says) {
			t.Errorf("refusal %q does not say %q", e.Message, tc.says)
		}
	}
	for _, e := range p.srv.opt.Mux.Transcript(p.chat) {
		if e.Kind == proto.EntryUser {
			t.Errorf("a refused prompt reached the chat: %q", e.Text)
		}
	}
}
