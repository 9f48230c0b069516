package agent

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"

	"github.com/acpmux/acpmux-tui/proto"
	acp "github.com/coder/acp-go-sdk"
)

// Chat is what a Client serves: the chat the agent's session belongs to.
// Its methods may be called from several goroutines at once.
type Chat interface {
	// Update takes one session/update from the agent, as it came (see
	// Transcript.Apply for the transcript's part of it).
	Update(n acp.SessionNotification)
	// Ask puts a permission request to the user, or to the chat's policy,
	// and returns the option id chosen, or "" for cancelled. ctx ends when
	// the agent withdraws the request or its process ends.
	Ask(ctx context.Context, p proto.Permission) string
	// Wrote hears of a file written through fs/write_text_file.
	Wrote(path string)
	// TerminalOutput hears a terminal's output as the door client that
	// runs it last answered terminal/output (cleaned and bounded by
	// Transcript.TerminalOutput): the tool calls that show that terminal
	// show it.
	TerminalOutput(terminalID, output string)
	// Forwarder is the chat's client that would take method now (a door
	// client that serves files or terminals itself), or nil.
	Forwarder(method string) Forwarder
}

// Client is our side of one ACP connection to an agent, as the SDK calls
// it: the agent's session updates and permission requests go to the chat;
// its file reads and writes are served inside the chat's roots only (or,
// inside them, by a door client that serves files itself), and terminals by
// a door client that serves them, else refused. What the agent writes is
// cleaned (internal/plaintext) where it is kept, so no control sequence of
// its own reaches a terminal.
type Client struct {
	chat    Chat
	roots   Roots
	life    context.Context // ends with the agent's process
	fileCap func() int64
	log     *slog.Logger
	asked   atomic.Uint64 // permission requests so far (Permission.Seq)
}

var _ acp.Client = (*Client)(nil)

// NewClient serves chat's agent, whose process lives as long as life: its
// file requests go through roots (whose folders close when life ends), at
// most maxFileBytes() bytes each (asked at every request: the config may
// change), and what it is refused is logged to log.
func NewClient(chat Chat, roots Roots, life context.Context, maxFileBytes func() int64, log *slog.Logger) *Client {
	return &Client{chat: chat, roots: roots, life: life, fileCap: maxFileBytes, log: log}
}

// SessionUpdate hands the update to the chat.
func (a *Client) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	a.chat.Update(n)
	return nil
}

// RequestPermission asks the chat, cleaning what the agent wrote; the
// request ends when the agent withdraws it or its process ends.
func (a *Client) RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(a.life, cancel)
	defer stop()
	choice := a.chat.Ask(ctx, a.permission(req))
	if choice == "" {
		return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}, nil
	}
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Selected: &acp.RequestPermissionOutcomeSelected{OptionId: acp.PermissionOptionId(choice), Outcome: "selected"}}}, nil
}

// permission is the request as the user sees it, numbered.
func (a *Client) permission(req acp.RequestPermissionRequest) proto.Permission {
	perm := proto.Permission{Title: "a tool call", Seq: a.asked.Add(1), ToolCallID: string(req.ToolCall.ToolCallId)}
	// What the call will do (the diff of an edit, the command to run),
	// cleaned and bounded as a transcript's tool call.
	if req.ToolCall.Kind != nil {
		perm.Kind = ToolKind(*req.ToolCall.Kind)
	}
	if len(req.ToolCall.Content) > 0 {
		perm.Content = PermissionContent(req.ToolCall.Content)
	}
	if req.ToolCall.Title != nil {
		if title := strings.TrimSpace(cleanLine(*req.ToolCall.Title)); title != "" {
			perm.Title = title
		}
	}
	for _, o := range req.Options {
		perm.Options = append(perm.Options, proto.PermissionOption{ID: string(o.OptionId), Name: cleanLine(o.Name), Kind: string(o.Kind)})
	}
	return perm
}

// Terminals are not advertised to agents (clientCapabilities.terminal is
// false); an agent that asks for one anyway is served by the door client
// that prompted the turn when it serves terminals (forward.go), else
// refused as a method not found.
func (a *Client) CreateTerminal(ctx context.Context, req acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return terminal[acp.CreateTerminalResponse](ctx, a, acp.ClientMethodTerminalCreate, req)
}

// KillTerminal goes to the client that created the terminal, as CreateTerminal.
func (a *Client) KillTerminal(ctx context.Context, req acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return terminal[acp.KillTerminalResponse](ctx, a, acp.ClientMethodTerminalKill, req)
}

// TerminalOutput goes to the client that created the terminal, as
// CreateTerminal; its answer is also what the chat's tool calls that show
// the terminal show.
func (a *Client) TerminalOutput(ctx context.Context, req acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	resp, err := terminal[acp.TerminalOutputResponse](ctx, a, acp.ClientMethodTerminalOutput, req)
	if err == nil {
		a.chat.TerminalOutput(string(req.TerminalId), resp.Output)
	}
	return resp, err
}

// ReleaseTerminal goes to the client that created the terminal, as CreateTerminal.
func (a *Client) ReleaseTerminal(ctx context.Context, req acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return terminal[acp.ReleaseTerminalResponse](ctx, a, acp.ClientMethodTerminalRelease, req)
}

// WaitForTerminalExit goes to the client that created the terminal, as CreateTerminal.
func (a *Client) WaitForTerminalExit(ctx context.Context, req acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return terminal[acp.WaitForTerminalExitResponse](ctx, a, acp.ClientMethodTerminalWaitForExit, req)
}

// terminal sends one terminal request on to the client that serves
// terminals (forwardTerminal) and returns its answer as Resp.
func terminal[Resp any](ctx context.Context, a *Client, method string, req any) (Resp, error) {
	var resp Resp
	return resp, a.forwardTerminal(ctx, method, req, &resp)
}
