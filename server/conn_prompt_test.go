package server

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
)

// TestDoorReadsOnWhileAPromptRuns: a prompt runs on the goroutine that
// read it, and the connection's reading goes on elsewhere once the turn
// outlasts a moment: a call of the same client is answered while a turn
// runs, its session/cancel ends that turn, and the client's prompts after
// a quick turn and after the long one are read and answered as ever.
func TestDoorReadsOnWhileAPromptRuns(t *testing.T) {
	p := newPromptRig(t)
	c := p.doorClient(acpschema.ForTest(t))
	initDoor(t, c)
	resp, err := c.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: p.folders(1)[0], McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	id := string(resp.SessionId)
	prompt := func(text string) sdk.StopReason {
		t.Helper()
		r, err := c.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		if err != nil {
			t.Fatalf("prompt %q: %v", text, err)
		}
		return r.StopReason
	}
	for _, text := range []string{"one", "two"} {
		if reason := prompt(text); reason != sdk.StopReasonEndTurn {
			t.Fatalf("prompt %q ended %q", text, reason)
		}
	}

	slow := make(chan sdk.StopReason, 1)
	go func() { slow <- prompt("slow") }()
	waitFor(t, "the slow turn's chunk", func() bool { return strings.Count(c.Text(id, "agent"), "|") >= 3 })
	if _, err := c.ListSessions(hangCtx(t), sdk.ListSessionsRequest{}); err != nil {
		t.Fatalf("session/list while a turn runs: %v", err)
	}
	if err := c.Cancel(hangCtx(t), sdk.CancelNotification{SessionId: resp.SessionId}); err != nil {
		t.Fatal(err)
	}
	select {
	case reason := <-slow:
		if reason != sdk.StopReasonCancelled {
			t.Fatalf("the slow turn ended %q, want cancelled", reason)
		}
	case <-hangCtx(t).Done():
		t.Fatal("the slow turn did not end after session/cancel")
	}
	if reason := prompt("three"); reason != sdk.StopReasonEndTurn {
		t.Fatalf("the prompt after the slow turn ended %q", reason)
	}
	if got := c.Text(id, "agent"); !strings.Contains(got, "echo: three") {
		t.Fatalf("the agent said %q", got)
	}
}
