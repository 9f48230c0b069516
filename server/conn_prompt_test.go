package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/internal/testharness/doorclient"
	"github.com/acpmux/acpmux-tui/proto"
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

// TestDoorReadsOnWhileAPromptWaitsForItsAgent: a prompt to a chat whose
// agent is starting (held in initialize) waits on the reader's goroutine
// only until it must wait for the agent: the reading goes on then, so a
// call of the same client is answered meanwhile, and the prompt is
// answered once the agent is up.
func TestDoorReadsOnWhileAPromptWaitsForItsAgent(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r, c, sid := doorSessionWith(t, map[string]string{"ACPMUX_FAKE_INIT_GATE": gate})
	id := string(sid)
	// The agent dies; the one started in its place is held in initialize.
	if err := os.Remove(gate); err != nil {
		t.Fatal(err)
	}
	pid := r.srv.opt.Mux.State(id).Pid
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the chat's agent started again, held in initialize", func() bool {
		st := r.srv.opt.Mux.State(id)
		return st.Status == proto.StatusStarting && st.Pid != 0 && st.Pid != pid
	})

	readsOnWhileHeld(t, r, c, sid, "hello", "its agent is held in initialize", gate)
}

// doorSessionWith is a door rig whose fake agent has env, a client of its
// door that has called initialize, and a session the client made.
func doorSessionWith(t *testing.T, env map[string]string) (*rig, *doorclient.Client, sdk.SessionId) {
	t.Helper()
	r := newDoorRig(t, env)
	c := r.doorClient(acpschema.ForTest(t))
	initDoor(t, c)
	resp, err := c.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return r, c, resp.SessionId
}

// readsOnWhileHeld prompts text on session sid and checks that the door
// reads on while the agent holds the prompt (held says how), until the
// file gate is written: once the prompt's turn is claimed, session/list is
// answered and the prompt is not; after the gate, the turn ends.
func readsOnWhileHeld(t *testing.T, r *rig, c *doorclient.Client, sid sdk.SessionId, text, held, gate string) {
	t.Helper()
	answered := make(chan error, 1)
	go func() {
		r, err := c.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: sid, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		if err == nil && r.StopReason != sdk.StopReasonEndTurn {
			err = fmt.Errorf("ended %q", r.StopReason)
		}
		answered <- err
	}()
	waitFor(t, "the prompt's turn to be claimed", func() bool {
		f, _ := r.srv.feedFor(string(sid))
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.turn != nil
	})
	if _, err := c.ListSessions(hangCtx(t), sdk.ListSessionsRequest{}); err != nil {
		t.Fatalf("session/list while a prompt waits because %s: %v", held, err)
	}
	select {
	case err := <-answered:
		t.Fatalf("the prompt was answered (%v) while %s", err, held)
	default:
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-answered:
		if err != nil {
			t.Fatalf("the prompt once the agent took it: %v", err)
		}
	case <-hangCtx(t).Done():
		t.Fatalf("the prompt was not answered once the agent took it (it was held because %s)", held)
	}
}

// TestDoorReadsOnWhileItsAgentDoesNotRead: a prompt larger than an agent's
// stdin holds, to an agent that has stopped reading, waits in the chat's
// queue, not on the reader: a call of the same client is answered
// meanwhile, and once the agent reads again it gets the whole prompt.
func TestDoorReadsOnWhileItsAgentDoesNotRead(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	r, c, sid := doorSessionWith(t, map[string]string{"ACPMUX_FAKE_DEAF_GATE": gate})
	// The agent stopped reading once it answered its session/new; a pipe
	// holds 64 KiB.
	text := strings.Repeat("x", 2<<20) + "\nsize"
	readsOnWhileHeld(t, r, c, sid, text, "its agent does not read", gate)
	if got, want := c.Text(string(sid), "agent"), fmt.Sprintf("size: %d", len(text)); !strings.Contains(got, want) {
		t.Fatalf("the agent said %q, want %q: the whole prompt", got, want)
	}
}
