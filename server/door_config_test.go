package server

import (
	"encoding/json"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
)

// TestPromptToALiveAgentSkipsTheConfig: a session/prompt to a chat whose
// agent runs starts nothing, so the config is not read again before it;
// one to a chat whose agent does not run may start it, and any other call
// that may start an agent, is read again first.
func TestPromptToALiveAgentSkipsTheConfig(t *testing.T) {
	p := newPromptRig(t)
	c := p.doorClient(acpschema.ForTest(t))
	initDoor(t, c)
	resp, err := c.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: p.folders(1)[0], McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	id := string(resp.SessionId)
	prompt := func(id string) Request {
		params, _ := json.Marshal(sdk.PromptRequest{SessionId: sdk.SessionId(id), Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}})
		return Request{Method: sdk.AgentMethodSessionPrompt, Params: params}
	}
	waitFor(t, "the chat's agent running", func() bool { return p.srv.opt.Mux.State(id).Status.Live() })
	if chat, live := p.srv.promptsALiveAgent(prompt(id)); !live || chat != id {
		t.Fatalf("a prompt to a running agent reads the config again (chat %q, live %v)", chat, live)
	}
	p.srv.opt.Mux.Stop(id)
	waitFor(t, "the chat's agent stopped", func() bool { return !p.srv.opt.Mux.State(id).Status.Live() })
	if _, live := p.srv.promptsALiveAgent(prompt(id)); live {
		t.Fatal("a prompt that may start the agent skips the config")
	}
	for _, req := range []Request{
		{Method: sdk.AgentMethodSessionLoad, Params: json.RawMessage(`{"sessionId":"` + id + `"}`)},
		{Method: sdk.AgentMethodSessionPrompt, Params: json.RawMessage(`{"prompt":[]}`)},
		{Method: sdk.AgentMethodSessionPrompt, Params: json.RawMessage(`{"sessionId":7}`)},
		prompt("nosuchchat"),
	} {
		if _, live := p.srv.promptsALiveAgent(req); live {
			t.Errorf("%s %s skips the config", req.Method, req.Params)
		}
	}
}
