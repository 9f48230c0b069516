package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/lockedbuf"
	"github.com/coder/acp-go-sdk"
)

// fakeBin is the fake agent, built once in TestMain.
var fakeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "acpfake-test")
	if err != nil {
		panic(err)
	}
	fakeBin = filepath.Join(dir, "acpfake")
	out, err := exec.Command("go", "build", "-o", fakeBin, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build acpfake: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testContext bounds a test by its -timeout deadline (less a margin to
// report), or by a generous default.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithDeadline(t.Context(), testDeadline(t))
	t.Cleanup(cancel)
	return ctx
}

func testDeadline(t *testing.T) time.Time {
	if d, ok := t.Deadline(); ok {
		return d.Add(-5 * time.Second)
	}
	return time.Now().Add(2 * time.Minute)
}

// files are the paths one test shares between its fake processes.
type files struct {
	dir, record, wire, sent, state string
}

func newFiles(t *testing.T) files {
	dir := t.TempDir()
	return files{
		dir:    dir,
		record: filepath.Join(dir, "record.jsonl"),
		wire:   filepath.Join(dir, "wire.jsonl"),
		sent:   filepath.Join(dir, "sent.jsonl"),
		state:  filepath.Join(dir, "state"),
	}
}

// proc is one running fake agent, driven by the SDK's client side.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	conn   *acp.ClientSideConnection
	client *recClient
	stdin  *os.File
	stderr *lockedbuf.Buffer
	log    *lockedbuf.Buffer // the SDK client's own log
	done   chan struct{}     // closed when the process has been waited for
	err    error             // from Wait, once done is closed
}

// start runs the fake with the test's files and the extra environment
// entries ("KEY=VALUE").
func start(t *testing.T, ctx context.Context, f files, env ...string) *proc {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{t: t, client: newRecClient(), stdin: inW, stderr: &lockedbuf.Buffer{}, log: &lockedbuf.Buffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(fakeBin, "--flag", "arg")
	p.cmd.Dir = f.dir
	p.cmd.Env = append(os.Environ(),
		"ACPMUX_FAKE_RECORD="+f.record,
		"ACPMUX_FAKE_WIRE="+f.wire,
		"ACPMUX_FAKE_SENT="+f.sent,
		"ACPMUX_FAKE_STATE="+f.state,
	)
	p.cmd.Env = append(p.cmd.Env, env...)
	p.cmd.Stdin = inR
	p.cmd.Stdout = outW
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	outW.Close()
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	// outR is not closed when the fake exits: its last lines (an update
	// written just before a crash) may still be unread, and closing it
	// would lose them. The fake's end closed with it, so the connection
	// reads them and then EOF; the test's cleanup closes outR.
	t.Cleanup(func() { outR.Close() })
	p.conn = acp.NewClientSideConnection(p.client, inW, outR)
	p.conn.SetLogger(slog.New(slog.NewTextHandler(p.log, nil)))
	// t.Context() is already cancelled when cleanups run: stop with a
	// context of its own, bounded by the same deadline.
	t.Cleanup(func() {
		stopCtx, cancel := context.WithDeadline(context.Background(), testDeadline(t))
		defer cancel()
		p.stop(stopCtx)
	})
	return p
}

// stop closes the fake's stdin, which ends it, and waits for it; past the
// test's deadline it is killed.
func (p *proc) stop(ctx context.Context) {
	p.stdin.Close()
	select {
	case <-p.done:
		return
	default:
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		p.cmd.Process.Kill()
		<-p.done
		p.t.Errorf("acpfake pid %d did not exit after stdin closed", p.cmd.Process.Pid)
	}
}

// wait waits for the process to end on its own and returns Wait's error.
func (p *proc) wait(ctx context.Context) error {
	select {
	case <-p.done:
		return p.err
	case <-ctx.Done():
		p.t.Fatalf("acpfake pid %d still running: %v", p.cmd.Process.Pid, ctx.Err())
		return nil
	}
}

func (p *proc) initialize(ctx context.Context) acp.InitializeResponse {
	p.t.Helper()
	resp, err := p.conn.Initialize(ctx, acp.InitializeRequest{
		ProtocolVersion:    acp.ProtocolVersionNumber,
		ClientInfo:         &acp.Implementation{Name: "acpfake-test", Version: "0"},
		ClientCapabilities: acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}},
	})
	if err != nil {
		p.t.Fatalf("initialize: %v", err)
	}
	return resp
}

func (p *proc) newSession(ctx context.Context, cwd string, dirs []string) acp.SessionId {
	p.t.Helper()
	resp, err := p.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}, AdditionalDirectories: dirs})
	if err != nil {
		p.t.Fatalf("session/new: %v", err)
	}
	return resp.SessionId
}

// prompt runs one turn and returns its stop reason and the agent's text.
// The SDK delivers every session/update sent before the response before
// Prompt returns, so the text is complete.
func (p *proc) prompt(ctx context.Context, sid acp.SessionId, text string) (acp.StopReason, string) {
	p.t.Helper()
	mark := p.client.count()
	resp, err := p.conn.Prompt(ctx, acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	if err != nil {
		p.t.Fatalf("session/prompt %q: %v", text, err)
	}
	return resp.StopReason, agentText(p.client.since(mark))
}

// recClient is the client side: it records updates and serves the agent's
// requests from test-controlled data.
type recClient struct {
	mu      sync.Mutex
	updates []acp.SessionNotification
	changed chan struct{}

	answer  func(acp.RequestPermissionRequest) acp.RequestPermissionOutcome
	asked   []acp.RequestPermissionRequest
	files   map[string]string // what fs/read_text_file serves; others fail
	written map[string]string // what fs/write_text_file received
}

func newRecClient() *recClient {
	return &recClient{
		changed: make(chan struct{}, 1),
		answer: func(acp.RequestPermissionRequest) acp.RequestPermissionOutcome {
			return acp.NewRequestPermissionOutcomeSelected("allow_once")
		},
		files:   map[string]string{},
		written: map[string]string{},
	}
}

func (c *recClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	c.mu.Unlock()
	select {
	case c.changed <- struct{}{}:
	default:
	}
	return nil
}

// setAnswer sets how permission requests are answered.
func (c *recClient) setAnswer(outcome acp.RequestPermissionOutcome) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.answer = func(acp.RequestPermissionRequest) acp.RequestPermissionOutcome { return outcome }
}

// serve makes fs/read_text_file of path answer content.
func (c *recClient) serve(path, content string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.files[path] = content
}

// permissionRequests returns the permission requests received so far.
func (c *recClient) permissionRequests() []acp.RequestPermissionRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]acp.RequestPermissionRequest(nil), c.asked...)
}

// writtenTo returns what fs/write_text_file wrote to path.
func (c *recClient) writtenTo(path string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.written[path]
}

func (c *recClient) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.updates)
}

func (c *recClient) since(mark int) []acp.SessionNotification {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]acp.SessionNotification(nil), c.updates[mark:]...)
}

// waitFor waits until ok holds for the updates received so far.
func (c *recClient) waitFor(ctx context.Context, ok func([]acp.SessionNotification) bool) error {
	for {
		if ok(c.since(0)) {
			return nil
		}
		select {
		case <-c.changed:
		case <-ctx.Done():
			return fmt.Errorf("waiting for session updates: %w", ctx.Err())
		}
	}
}

func (c *recClient) RequestPermission(_ context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, p)
	answer := c.answer
	c.mu.Unlock()
	return acp.RequestPermissionResponse{Outcome: answer(p)}, nil
}

func (c *recClient) ReadTextFile(_ context.Context, p acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	content, ok := c.files[p.Path]
	if !ok {
		return acp.ReadTextFileResponse{}, &acp.RequestError{Code: -32602, Message: "outside the chat's folders: " + p.Path}
	}
	return acp.ReadTextFileResponse{Content: content}, nil
}

func (c *recClient) WriteTextFile(_ context.Context, p acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.written[p.Path] = p.Content
	return acp.WriteTextFileResponse{}, nil
}

func (c *recClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalCreate)
}

func (c *recClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalKill)
}

func (c *recClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalOutput)
}

func (c *recClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalRelease)
}

func (c *recClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalWaitForExit)
}

// agentText joins the agent_message_chunk texts of updates.
func agentText(updates []acp.SessionNotification) string {
	var b strings.Builder
	for _, n := range updates {
		if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
			b.WriteString(c.Content.Text.Text)
		}
	}
	return b.String()
}

// describe renders updates as "kind:text" strings, for order assertions.
func describe(updates []acp.SessionNotification) []string {
	var out []string
	for _, n := range updates {
		u := n.Update
		switch {
		case u.UserMessageChunk != nil:
			out = append(out, "user:"+u.UserMessageChunk.Content.Text.Text)
		case u.AgentMessageChunk != nil:
			out = append(out, "agent:"+u.AgentMessageChunk.Content.Text.Text)
		case u.AgentThoughtChunk != nil:
			out = append(out, "thought:"+u.AgentThoughtChunk.Content.Text.Text)
		case u.ToolCall != nil:
			out = append(out, fmt.Sprintf("tool_call:%s:%s", u.ToolCall.Title, u.ToolCall.Status))
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
			out = append(out, "tool_call_update:"+string(*u.ToolCallUpdate.Status))
		case u.Plan != nil:
			out = append(out, fmt.Sprintf("plan:%d", len(u.Plan.Entries)))
		default:
			out = append(out, "other")
		}
	}
	return out
}

// requestCode is the JSON-RPC error code of err, or 0.
func requestCode(err error) int {
	var re *acp.RequestError
	if errors.As(err, &re) {
		return re.Code
	}
	return 0
}

// wireLines reads a JSONL file written by the fake, one raw message per
// element.
func wireLines(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// wireMessage is the part of a JSON-RPC message the tests look at.
type wireMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
}

// requestsFor returns the params of every message with method in a wire
// file, raw and decoded to a map.
func requestsFor(t *testing.T, path, method string) []map[string]json.RawMessage {
	t.Helper()
	var out []map[string]json.RawMessage
	for _, l := range wireLines(t, path) {
		var m wireMessage
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("%s: bad line %s: %v", path, l, err)
		}
		if m.Method != method {
			continue
		}
		var params map[string]json.RawMessage
		if err := json.Unmarshal(m.Params, &params); err != nil {
			t.Fatalf("%s: params of %s: %v", path, l, err)
		}
		out = append(out, params)
	}
	return out
}
