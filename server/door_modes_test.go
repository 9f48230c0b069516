package server

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/internal/testharness/doorclient"
	sdk "github.com/coder/acp-go-sdk"
)

// modeUpdates are the current_mode_update ids a client heard for a session.
func modeUpdates(c *doorclient.Client, id string) []string {
	var out []string
	for _, n := range c.Updates() {
		if string(n.SessionId) == id && n.Update.CurrentModeUpdate != nil {
			out = append(out, string(n.Update.CurrentModeUpdate.CurrentModeId))
		}
	}
	return out
}

// modelUpdates are the "model" values of the config_option_updates a
// client heard for a session.
func modelUpdates(c *doorclient.Client, id string) []string {
	var out []string
	for _, n := range c.Updates() {
		if string(n.SessionId) != id || n.Update.ConfigOptionUpdate == nil {
			continue
		}
		for _, o := range n.Update.ConfigOptionUpdate.ConfigOptions {
			if o.Select != nil && o.Select.Id == "model" {
				out = append(out, string(o.Select.CurrentValue))
			}
		}
	}
	return out
}

func model(opts []sdk.SessionConfigOption) string {
	for _, o := range opts {
		if o.Select != nil && o.Select.Id == "model" {
			return string(o.Select.CurrentValue)
		}
	}
	return ""
}

// TestDoorModesAndConfigOptions: the agent's modes and config options ride
// on session/new and load; session/set_mode and session/set_config_option
// reach the agent and answer as it answers, and every client of the chat
// hears the change, as it hears a change the agent makes itself.
func TestDoorModesAndConfigOptions(t *testing.T) {
	wire := filepath.Join(t.TempDir(), "wire.jsonl")
	r := newDoorRig(t, map[string]string{"ACPMUX_FAKE_MODES": "1", "ACPMUX_FAKE_WIRE": wire})
	v := acpschema.ForTest(t)
	c := r.doorClient(v)
	initDoor(t, c)
	proj := r.folders(1)[0]
	resp, err := c.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: proj, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	id := string(resp.SessionId)
	if resp.Modes == nil || resp.Modes.CurrentModeId != "ask" || len(resp.Modes.AvailableModes) != 2 || model(resp.ConfigOptions) != "fast" {
		t.Fatalf("session/new answered modes %+v, options %+v: want the agent's (ask of 2, model fast)", resp.Modes, resp.ConfigOptions)
	}
	c2 := r.doorClient(v)
	initDoor(t, c2)
	load, err := c2.LoadSession(hangCtx(t), sdk.LoadSessionRequest{SessionId: resp.SessionId, Cwd: proj, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/load: %v", err)
	}
	if load.Modes == nil || load.Modes.CurrentModeId != "ask" || model(load.ConfigOptions) != "fast" {
		t.Fatalf("session/load answered modes %+v, options %+v", load.Modes, load.ConfigOptions)
	}

	if _, err := c.SetSessionMode(hangCtx(t), sdk.SetSessionModeRequest{SessionId: resp.SessionId, ModeId: "code"}); err != nil {
		t.Fatalf("session/set_mode: %v", err)
	}
	waitFor(t, "current_mode_update code at both clients", func() bool {
		return slices.Equal(modeUpdates(c, id), []string{"code"}) && slices.Equal(modeUpdates(c2, id), []string{"code"})
	})
	parent, err := r.store.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(wire)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"session/set_mode"`) || !strings.Contains(string(b), `"sessionId":"`+parent.AgentSessionID+`"`) || !strings.Contains(string(b), `"modeId":"code"`) {
		t.Fatalf("no session/set_mode code for the agent's session %s reached it:\n%s", parent.AgentSessionID, b)
	}
	// The agent's refusal is the answer.
	_, err = c.SetSessionMode(hangCtx(t), sdk.SetSessionModeRequest{SessionId: resp.SessionId, ModeId: "nosuch"})
	if code, _, _ := doorclient.AsRefusal(err); code != -32602 || !strings.Contains(err.Error(), `unknown mode \"nosuch\"`) && !strings.Contains(err.Error(), `unknown mode "nosuch"`) {
		t.Fatalf("set_mode to an unknown mode: %v, want the agent's -32602", err)
	}

	set, err := c2.SetSessionConfigOption(hangCtx(t), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: resp.SessionId, ConfigId: "model", Value: "smart"}})
	if err != nil || model(set.ConfigOptions) != "smart" {
		t.Fatalf("session/set_config_option: %+v %v", set, err)
	}
	waitFor(t, "config_option_update smart at both clients", func() bool {
		return slices.Equal(modelUpdates(c, id), []string{"smart"}) && slices.Equal(modelUpdates(c2, id), []string{"smart"})
	})

	// A change the agent makes itself, in a turn, reaches both too.
	if _, err := c2.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("mode ask")}}); err != nil {
		t.Fatalf("prompt: %v", err)
	}
	waitFor(t, "the agent's own current_mode_update ask at both clients", func() bool {
		return slices.Equal(modeUpdates(c, id), []string{"code", "ask"}) && slices.Equal(modeUpdates(c2, id), []string{"code", "ask"})
	})
	// A client that comes now is answered with the modes as they are.
	c3 := r.doorClient(v)
	initDoor(t, c3)
	res, err := c3.ResumeSession(hangCtx(t), sdk.ResumeSessionRequest{SessionId: resp.SessionId, Cwd: proj})
	if err != nil || res.Modes == nil || res.Modes.CurrentModeId != "ask" || model(res.ConfigOptions) != "smart" {
		t.Fatalf("session/resume answered %+v %v", res, err)
	}
	for _, cl := range []*doorclient.Client{c, c2, c3} {
		if err := cl.Invalid(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDoorForwardsFileRequests: an fs/* request of the agent inside the
// chat's roots goes to the door client that prompted, when it serves
// files, and its answer reaches the agent; one outside the roots is refused
// without the client asked; a client that does not serve files has the
// server serve them.
func TestDoorForwardsFileRequests(t *testing.T) {
	r := newDoorRig(t, nil)
	v := acpschema.ForTest(t)
	// The fake's write command takes a path without spaces.
	proj := filepath.Join(t.TempDir(), "proj")
	if err := os.Mkdir(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(proj, "notes.txt")
	if err := os.WriteFile(inside, []byte("on disk"), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := r.doorClient(v)
	if _, err := c.Initialize(hangCtx(t), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	written := map[string]string{}
	c.ReadText = func(_ context.Context, req sdk.ReadTextFileRequest) (string, error) { return "in the buffer", nil }
	c.WriteText = func(_ context.Context, req sdk.WriteTextFileRequest) error {
		written[req.Path] = req.Content
		return nil
	}
	resp, err := c.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: proj, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	id := string(resp.SessionId)
	prompt := func(cl *doorclient.Client, text, want string) {
		t.Helper()
		cl.Forget()
		if _, err := cl.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}}); err != nil {
			t.Fatalf("prompt %q: %v", text, err)
		}
		if got := cl.Text(id, "agent"); !strings.Contains(got, want) {
			t.Fatalf("prompt %q: the agent said %q, want %q", text, got, want)
		}
	}
	prompt(c, "read "+inside, "read: in the buffer|")
	if got := c.FileRequests(); !slices.Equal(got, []string{"read " + inside}) {
		t.Fatalf("the client was asked %q", got)
	}
	prompt(c, "read "+secret, "read error: Invalid params")
	fresh := filepath.Join(proj, "fresh.txt")
	prompt(c, "write "+fresh+" hello there", "wrote|")
	if got := c.FileRequests(); !slices.Equal(got, []string{"read " + inside, "write " + fresh}) {
		t.Fatalf("the client was asked %q: the read outside the roots must not reach it", got)
	}
	if written[fresh] != "hello there" {
		t.Fatalf("the client was given %q", written)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Fatalf("the server wrote the file the client took: %v", err)
	}
	// A write outside the roots is refused before the client sees it.
	prompt(c, "write "+filepath.Join(filepath.Dir(secret), "x.txt")+" no", "write error: Invalid params")

	// A client that does not serve files: the server serves them.
	c2 := r.doorClient(v)
	initDoor(t, c2)
	prompt(c2, "read "+inside, "read: on disk|")
	if got := c.FileRequests(); len(got) != 2 {
		t.Fatalf("the first client was asked for the second's turn: %q", got)
	}
	if got := c2.FileRequests(); len(got) != 0 {
		t.Fatalf("a client that serves no files was asked %q", got)
	}
	for _, cl := range []*doorclient.Client{c, c2} {
		if err := cl.Invalid(); err != nil {
			t.Fatal(err)
		}
	}
}
