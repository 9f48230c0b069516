package server

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/internal/testharness/doorclient"
	"github.com/acpmux/acpmux-tui/proto"
	sdk "github.com/coder/acp-go-sdk"
)

// TestDoorForwardsTerminals: terminal/* of the agent goes to the prompting
// door client that serves terminals (the calls on a terminal to the client
// that made it); a cwd outside the chat's folders is refused before the
// client sees it; a client that serves none leaves them refused as before.
func TestDoorForwardsTerminals(t *testing.T) {
	r := newDoorRig(t, nil)
	v := acpschema.ForTest(t)
	proj := r.folders(1)[0]
	c := r.doorClient(v)
	if _, err := c.Initialize(hangCtx(t), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Terminal: true}}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	var cwds []string
	c.RunTerminal = func(req sdk.CreateTerminalRequest) (string, error) {
		if req.Cwd != nil {
			cwds = append(cwds, *req.Cwd)
		}
		return req.Command + " " + strings.Join(req.Args, " "), nil
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
	prompt(c, "terminal "+proj, "terminal: echo hi exit 0|")
	// The tool call that shows the terminal shows what the client said it
	// printed, to the TUI and every observer.
	shown := "(no tool call shows the terminal)"
	for _, e := range r.srv.opt.Mux.Transcript(id) {
		for _, tc := range e.Content {
			if e.Kind == proto.EntryTool && tc.Type == proto.ToolContentTerminal {
				shown = tc.Text
			}
		}
	}
	if shown != "echo hi" {
		t.Fatalf("the terminal's tool call shows %q, want the client's output %q", shown, "echo hi")
	}
	want := []string{sdk.ClientMethodTerminalCreate, sdk.ClientMethodTerminalWaitForExit, sdk.ClientMethodTerminalOutput, sdk.ClientMethodTerminalRelease}
	if got := c.TerminalRequests(); !slices.Equal(got, want) || !slices.Equal(cwds, []string{proj}) {
		t.Fatalf("the client was sent %q (cwds %q), want %q in %s", got, cwds, want, proj)
	}
	prompt(c, "terminal "+t.TempDir(), "terminal error: Invalid params")
	if got := c.TerminalRequests(); len(got) != len(want) {
		t.Fatalf("a terminal outside the chat's folders reached the client: %q", got)
	}
	c2 := r.doorClient(v)
	initDoor(t, c2)
	prompt(c2, "terminal -", "terminal error: Method not found")
	if got := c2.TerminalRequests(); len(got) != 0 {
		t.Fatalf("a client that serves no terminals was sent %q", got)
	}
	for _, cl := range []*doorclient.Client{c, c2} {
		if err := cl.Invalid(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDoorServesAFileWhenItsClientGoes: a door client that goes away while
// a read forwarded to it waits leaves the read to the server, and the
// agent gets the file from disk.
func TestDoorServesAFileWhenItsClientGoes(t *testing.T) {
	r := newDoorRig(t, nil)
	v := acpschema.ForTest(t)
	proj := r.folders(1)[0]
	inside := filepath.Join(proj, "notes.txt")
	if err := os.WriteFile(inside, []byte("on disk"), 0o644); err != nil {
		t.Fatal(err)
	}
	nc, err := net.Dial("unix", proto.SocketPath(r.home))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	c := doorclient.New(nc, nc, v)
	if _, err := c.Initialize(hangCtx(t), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true}}}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	c.ReadText = func(context.Context, sdk.ReadTextFileRequest) (string, error) {
		nc.Close() // gone, with the request unanswered
		return "", errors.New("gone")
	}
	resp, err := c.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: proj, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	id := string(resp.SessionId)
	go func() {
		_, _ = c.Prompt(context.Background(), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("read " + inside)}})
	}()
	waitFor(t, "the agent's reply with the file from disk, in the transcript", func() bool {
		for _, e := range r.srv.opt.Mux.Transcript(id) {
			if e.Kind == proto.EntryAgent && strings.Contains(e.Text, "read: on disk") {
				return true
			}
		}
		return false
	})
	if got := c.FileRequests(); !slices.Equal(got, []string{"read " + inside}) {
		t.Fatalf("the client was asked %q", got)
	}
}

// TestDoorServesAFileItsClientLeavesUnanswered: a read forwarded to a
// door client that does not answer within the forward timeout is withdrawn
// ($/cancel_request) and served by the server.
func TestDoorServesAFileItsClientLeavesUnanswered(t *testing.T) {
	// The client never answers, so the timeout is what ends the wait: a
	// short one keeps the test short, and no answer can come in time.
	r := newDoorRigWith(t, nil, func(o *Options) { o.ForwardTimeout = 50 * time.Millisecond })
	v := acpschema.ForTest(t)
	proj := r.folders(1)[0]
	inside := filepath.Join(proj, "notes.txt")
	if err := os.WriteFile(inside, []byte("on disk"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := r.doorClient(v)
	if _, err := c.Initialize(hangCtx(t), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true}}}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	withdrawn := make(chan struct{})
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	c.ReadText = func(ctx context.Context, _ sdk.ReadTextFileRequest) (string, error) {
		select {
		case <-ctx.Done():
			close(withdrawn)
		case <-release:
		}
		return "too late", nil
	}
	resp, err := c.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: proj, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("read " + inside)}}); err != nil {
		t.Fatalf("prompt: %v", err)
	}
	if got := c.Text(string(resp.SessionId), "agent"); !strings.Contains(got, "read: on disk|") {
		t.Fatalf("the agent said %q, want the file from disk", got)
	}
	select {
	case <-withdrawn:
	case <-time.After(hangDeadline):
		t.Fatal("the unanswered request was not withdrawn")
	}
	if err := c.Invalid(); err != nil {
		t.Fatal(err)
	}
}
