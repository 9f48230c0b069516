// Package doorclient is an ACP client for tests of acpmux-tui's ACP door,
// built on the client side of github.com/coder/acp-go-sdk. Every line the
// door sends is validated against the pinned ACP schema (the agent side of
// internal/acpschema), answers by the method of the request they answer;
// every line the client sends is validated too. It keeps the session/update
// notifications it is sent, in order.
package doorclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/internal/rpcline"
	sdk "github.com/coder/acp-go-sdk"
)

// Client is one connection to a door.
type Client struct {
	*sdk.ClientSideConnection

	v  *acpschema.Validator
	mu sync.Mutex
	// methods maps the ids of the client's requests to their methods.
	methods map[string]string
	bad     []error
	updates []sdk.SessionNotification
	lines   int // lines read from the door

	// Permit, when set, answers session/request_permission with an option
	// id ("" cancels); it may block (until ctx ends). Unset, every request
	// is cancelled.
	Permit func(ctx context.Context, req sdk.RequestPermissionRequest) string
	asked  []sdk.RequestPermissionRequest

	// ReadText and WriteText, when set, serve fs/read_text_file and
	// fs/write_text_file (as an editor serves its buffers; advertise them
	// in initialize); unset, the request is refused. Either may block
	// until ctx ends. Every file request is kept (FileRequests).
	ReadText  func(ctx context.Context, req sdk.ReadTextFileRequest) (string, error)
	WriteText func(ctx context.Context, req sdk.WriteTextFileRequest) error
	files     []string // "read PATH" or "write PATH", in order

	// RunTerminal, when set, serves terminal/create (advertise terminal in
	// initialize): the terminal's whole output, at once, and it exits 0.
	// Unset, terminal requests are refused. Every terminal request is kept
	// (TerminalRequests).
	RunTerminal func(req sdk.CreateTerminalRequest) (string, error)
	terminals   map[string]string // output by terminal id
	termCalls   []string          // methods, in order
}

// New connects a client to a door that reads w and writes r. With v nil,
// nothing is validated.
func New(w io.Writer, r io.Reader, v *acpschema.Validator) *Client {
	c := &Client{v: v, methods: map[string]string{}}
	in := &lineTap{fn: c.heard}
	out := &lineTap{fn: c.said}
	c.ClientSideConnection = sdk.NewClientSideConnection(c, io.MultiWriter(out, w), io.TeeReader(r, in))
	return c
}

// lineTap calls fn with each complete line written to it.
type lineTap struct {
	buf []byte
	fn  func([]byte)
}

func (t *lineTap) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := bytes.TrimSpace(t.buf[:i])
		if len(line) > 0 {
			t.fn(bytes.Clone(line))
		}
		t.buf = t.buf[i+1:]
	}
}

// said checks a line the client sent and notes its id's method.
func (c *Client) said(line []byte) {
	m, ok := rpcline.Split(line)
	c.mu.Lock()
	defer c.mu.Unlock()
	if ok && m.Method != nil && m.ID != nil {
		method, _ := rpcline.Unquote(m.Method)
		c.methods[string(m.ID)] = method
	}
	if c.v != nil {
		if err := c.v.ValidateClientMessage(line); err != nil {
			c.bad = append(c.bad, fmt.Errorf("client sent: %w\n\t%s", err, clip(line)))
		}
	}
}

// heard checks a line the door sent.
func (c *Client) heard(line []byte) {
	m, _ := rpcline.Split(line)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lines++
	if c.v == nil {
		return
	}
	method := ""
	if m.Method == nil {
		method = c.methods[string(m.ID)]
		if method == "" && string(m.ID) == "null" {
			return // an answer to a line that could not be read: nothing to check it by
		}
	}
	if err := c.v.ValidateAgentMessage(method, line); err != nil {
		c.bad = append(c.bad, fmt.Errorf("door sent: %w\n\t%s", err, clip(line)))
	}
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// Invalid returns every message that broke the schema, joined.
func (c *Client) Invalid() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return errors.Join(c.bad...)
}

// Updates returns the session/update notifications heard so far.
func (c *Client) Updates() []sdk.SessionNotification {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.SessionNotification(nil), c.updates...)
}

// Text is the text of the session's updates of one kind ("agent", "user"
// or "thought"), joined.
func (c *Client) Text(session, kind string) string {
	var b strings.Builder
	for _, n := range c.Updates() {
		if string(n.SessionId) != session {
			continue
		}
		u := n.Update
		var block *sdk.ContentBlock
		switch {
		case kind == "agent" && u.AgentMessageChunk != nil:
			block = &u.AgentMessageChunk.Content
		case kind == "user" && u.UserMessageChunk != nil:
			block = &u.UserMessageChunk.Content
		case kind == "thought" && u.AgentThoughtChunk != nil:
			block = &u.AgentThoughtChunk.Content
		}
		if block != nil && block.Text != nil {
			b.WriteString(block.Text.Text)
			b.WriteString("|")
		}
	}
	return b.String()
}

// Forget drops the updates heard so far.
func (c *Client) Forget() {
	c.mu.Lock()
	c.updates = nil
	c.mu.Unlock()
}

// SessionUpdate keeps an update.
func (c *Client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	c.mu.Unlock()
	return nil
}

// RequestPermission answers with Permit, keeping the request.
func (c *Client) RequestPermission(ctx context.Context, req sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, req)
	permit := c.Permit
	c.mu.Unlock()
	choice := ""
	if permit != nil {
		choice = permit(ctx, req)
	}
	if choice == "" {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(sdk.PermissionOptionId(choice))}, nil
}

// Asked returns the permission requests the client was sent.
func (c *Client) Asked() []sdk.RequestPermissionRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.RequestPermissionRequest(nil), c.asked...)
}

var errNotOffered = errors.New("not offered by this client")

// ReadTextFile answers with ReadText, keeping the request.
func (c *Client) ReadTextFile(ctx context.Context, req sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	c.files = append(c.files, "read "+req.Path)
	read := c.ReadText
	c.mu.Unlock()
	if read == nil {
		return sdk.ReadTextFileResponse{}, errNotOffered
	}
	text, err := read(ctx, req)
	if err != nil {
		return sdk.ReadTextFileResponse{}, err
	}
	return sdk.ReadTextFileResponse{Content: text}, nil
}

// WriteTextFile answers with WriteText, keeping the request.
func (c *Client) WriteTextFile(ctx context.Context, req sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	c.files = append(c.files, "write "+req.Path)
	write := c.WriteText
	c.mu.Unlock()
	if write == nil {
		return sdk.WriteTextFileResponse{}, errNotOffered
	}
	return sdk.WriteTextFileResponse{}, write(ctx, req)
}

// FileRequests returns the file requests the client was sent, as "read
// PATH" or "write PATH", in order.
func (c *Client) FileRequests() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.files...)
}

// terminal notes a terminal request and returns RunTerminal.
func (c *Client) terminal(method string) func(sdk.CreateTerminalRequest) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.termCalls = append(c.termCalls, method)
	return c.RunTerminal
}

// TerminalRequests returns the terminal methods the client was sent, in
// order.
func (c *Client) TerminalRequests() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.termCalls...)
}

// output is a terminal's output, ok false for an unknown terminal.
func (c *Client) output(id string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out, ok := c.terminals[id]
	return out, ok
}

var errNoTerminal = errors.New("no such terminal")

// CreateTerminal runs RunTerminal.
func (c *Client) CreateTerminal(_ context.Context, req sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	run := c.terminal(sdk.ClientMethodTerminalCreate)
	if run == nil {
		return sdk.CreateTerminalResponse{}, errNotOffered
	}
	out, err := run(req)
	if err != nil {
		return sdk.CreateTerminalResponse{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.terminals == nil {
		c.terminals = map[string]string{}
	}
	id := fmt.Sprintf("term-%d", len(c.termCalls))
	c.terminals[id] = out
	return sdk.CreateTerminalResponse{TerminalId: id}, nil
}

// KillTerminal kills nothing: the terminal has exited.
func (c *Client) KillTerminal(_ context.Context, req sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	c.terminal(sdk.ClientMethodTerminalKill)
	if _, ok := c.output(req.TerminalId); !ok {
		return sdk.KillTerminalResponse{}, errNoTerminal
	}
	return sdk.KillTerminalResponse{}, nil
}

// TerminalOutput is the terminal's output.
func (c *Client) TerminalOutput(_ context.Context, req sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	c.terminal(sdk.ClientMethodTerminalOutput)
	out, ok := c.output(req.TerminalId)
	if !ok {
		return sdk.TerminalOutputResponse{}, errNoTerminal
	}
	zero := 0
	return sdk.TerminalOutputResponse{Output: out, ExitStatus: &sdk.TerminalExitStatus{ExitCode: &zero}}, nil
}

// ReleaseTerminal forgets the terminal.
func (c *Client) ReleaseTerminal(_ context.Context, req sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	c.terminal(sdk.ClientMethodTerminalRelease)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.terminals[req.TerminalId]; !ok {
		return sdk.ReleaseTerminalResponse{}, errNoTerminal
	}
	delete(c.terminals, req.TerminalId)
	return sdk.ReleaseTerminalResponse{}, nil
}

// WaitForTerminalExit answers exit status 0 at once.
func (c *Client) WaitForTerminalExit(_ context.Context, req sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	c.terminal(sdk.ClientMethodTerminalWaitForExit)
	if _, ok := c.output(req.TerminalId); !ok {
		return sdk.WaitForTerminalExitResponse{}, errNoTerminal
	}
	zero := 0
	return sdk.WaitForTerminalExitResponse{ExitCode: &zero}, nil
}

// FolderRefusal is the data of a -32602 folder refusal.
type FolderRefusal struct {
	Count   int `json:"count"`
	Entries []struct {
		Index  int    `json:"index"`
		Path   string `json:"path"`
		Reason string `json:"reason"`
	} `json:"entries"`
}

// AsRefusal reads err as a JSON-RPC error of the SDK: its code and, for a
// folder refusal, its data.
func AsRefusal(err error) (code int, data FolderRefusal, ok bool) {
	var re *sdk.RequestError
	if !errors.As(err, &re) {
		return 0, FolderRefusal{}, false
	}
	if re.Data != nil {
		b, _ := json.Marshal(re.Data)
		_ = json.Unmarshal(b, &data)
	}
	return re.Code, data, true
}
