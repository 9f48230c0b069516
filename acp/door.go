// Package acp is ACP in one place. This package is the door: the agent
// side that ACP clients (Zed, acpx, an SDK script) talk to, through
// `acpmux-tui acp` on stdio or straight on the server's socket. The door
// turns ACP's session methods into the server's chats: session/new makes a
// chat with its folders through the shared validator, session/prompt runs a
// turn of the chat's own agent, and the agent's updates come back as
// session/update. The client side (our end of each chat's agent) is its
// subpackage acp/agent.
//
// The door is a table of methods (one typed handler each, see handle) over
// a Backend that the server implements per connection; the server keeps
// the guard, the line and queue limits and the admission rules it has for
// every connection.
package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/acpmux/acpmux-tui/proto"
	sdk "github.com/coder/acp-go-sdk"
)

// AgentName is what initialize answers in agentInfo.name.
const AgentName = "acpmux-tui"

// MetaHarness is the key of initialize's _meta that names the harness new
// chats get (`acpmux-tui acp --harness NAME` puts it there).
const MetaHarness = "acpmux/harness"

// Keys the door adds under _meta of a session/list entry.
const (
	MetaAdditionalFiles = "acpmux/additionalFiles"
	MetaHarnessName     = "acpmux/harness"
)

// JSON-RPC codes the door answers with.
const (
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	CodeNotFound       = -32002
)

// Error is a JSON-RPC error a handler answers with. Raw, when set, is the
// whole error object already encoded (a folder refusal's RPCError).
type Error struct {
	Code    int
	Message string
	Data    any
	Raw     json.RawMessage
}

// Error returns the message with its code.
func (e *Error) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

func errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Chat is one chat as the door shows it.
type Chat struct {
	ID                    string
	Name                  string
	Harness               string
	Cwd                   string
	AdditionalDirectories []string
	AdditionalFiles       []string
	// UpdatedAt is RFC 3339: the last update heard, else its creation.
	UpdatedAt string
}

// NewChat is what session/new asks of the backend.
type NewChat struct {
	Harness               string
	Cwd                   string
	AdditionalDirectories []string
}

// Backend is what the door needs of the server, for one connection. Its
// errors may be *Error (answered as they are) or any error of the server's,
// which the server turns into an answer itself.
type Backend interface {
	// Harness checks that name is an ACP harness of the table, or picks
	// the default ACP harness for "".
	Harness(name string) (string, error)
	// NewChat creates a chat (origin acp), its folders through the shared
	// validator; nothing is written on a refusal.
	NewChat(n NewChat) (Chat, error)
	// Chats lists the chats whose harness speaks ACP.
	Chats() ([]Chat, error)
	// Chat is one of them; a chat that does not speak ACP is an error.
	Chat(id string) (Chat, error)
	// SetFolders replaces a chat's additional folders (the shared
	// validator first).
	SetFolders(id string, dirs []string) error
	// SetMcpServers keeps the MCP servers the chat's agent is to get at
	// its next session setup.
	SetMcpServers(id string, servers []sdk.McpServer)
	// Open starts the chat's agent if needed and waits for its session,
	// then streams the chat's updates to this connection (Updates), the
	// whole transcript first when replay is set, before it returns.
	Open(id string, replay bool) error
	// PromptThen runs one turn with text and the files it links
	// (resource_link blocks, checked), and then hears its stop reason (or
	// error) once every update of it has been queued for this connection.
	// It returns once the prompt is on its way to the agent; then may be
	// called on the goroutine that read the agent's answer, which it must
	// not keep waiting.
	PromptThen(id, text string, links []proto.Link, then func(reason string, err error))
	// Cancel cancels the chat's running turn.
	Cancel(id string) error
	// Fork makes the TUI's fork of a chat (its folders, its own folder
	// dropped; cwd, when set, is the fork's project).
	Fork(id, cwd string) (Chat, error)
	// Close stops streaming the chat to this connection; the chat, its
	// agent and the other clients go on.
	Close(id string)
	// Delete removes the chat as `acpmux-tui rm` does (its agent stopped,
	// its file removed), refused with the reason where rm refuses without
	// --force: a worktree with uncommitted or unmerged work, a worktree
	// other chats run in, an own folder with files in it.
	Delete(id string) error
	// SessionConfig is the chat's modes and configuration options as its
	// agent last told them.
	SessionConfig(id string) SessionConfig
	// SetMode sends session/set_mode to the chat's agent; an error of the
	// agent's is answered as the agent answered it.
	SetMode(id, modeID string) error
	// SetConfigOption sends session/set_config_option to the chat's agent
	// and returns the options it answers.
	SetConfigOption(id string, req sdk.SetSessionConfigOptionRequest) ([]sdk.SessionConfigOption, error)
	// Request sends a request of the door's to the client (its id is JSON).
	Request(method string, id json.RawMessage, params any) error
	// Notify sends a notification of the door's to the client.
	Notify(method string, params any) error
}

// Door is the ACP agent side of one connection.
type Door struct {
	b       Backend
	version string // what initialize answers in agentInfo.version

	mu       sync.Mutex
	harness  string // the harness new chats get, chosen at initialize
	inited   bool
	onceOnly bool                     // only answers that grant nothing lasting (GrantOnceOnly)
	sessions map[string]*sessionState // the chats this connection streams
	asks     map[string]ask           // permission requests sent, by JSON id
	forwards map[string]*forwardCall  // agents' requests forwarded, by JSON id (forward.go)
	nextAsk  uint64
	caps     sdk.ClientCapabilities // what the client said at initialize it serves
}

// NewDoor is the door of one connection over b; version is acpmux-tui's.
func NewDoor(b Backend, version string) *Door {
	return &Door{b: b, version: version, sessions: map[string]*sessionState{}}
}

// handler is one method of the table: decode reads its params (into a
// *P), call makes the call with them.
type handler struct {
	decode func(raw json.RawMessage) (any, error)
	call   func(d *Door, params any) (any, error)
}

// validator is a params type that checks its required fields (the SDK's
// types do).
type validator interface{ Validate() error }

// handle makes a handler of f: params decode into P (left out: its zero
// value), P's Validate runs when it has one, and f's result is the answer.
func handle[P, R any](f func(d *Door, p P) (R, error)) handler {
	return handler{
		decode: func(raw json.RawMessage) (any, error) {
			p := new(P)
			if err := decodeParams(raw, p); err != nil {
				return nil, err
			}
			if v, ok := any(p).(validator); ok {
				if err := v.Validate(); err != nil {
					return nil, errorf(CodeInvalidParams, "Invalid params: %v", err)
				}
			}
			return p, nil
		},
		call: func(d *Door, params any) (any, error) {
			r, err := f(d, *params.(*P))
			if err != nil {
				return nil, err
			}
			return r, nil
		},
	}
}

// methods is the door's table: ACP method name → handler.
var methods = map[string]handler{
	sdk.AgentMethodInitialize:    handle((*Door).initialize),
	sdk.AgentMethodAuthenticate:  handle((*Door).authenticate),
	sdk.AgentMethodSessionNew:    handle((*Door).newSession),
	sdk.AgentMethodSessionList:   handle((*Door).listSessions),
	sdk.AgentMethodSessionLoad:   handle((*Door).loadSession),
	sdk.AgentMethodSessionResume: handle((*Door).resumeSession),
	sdk.AgentMethodSessionFork:   handle((*Door).forkSession),
	sdk.AgentMethodSessionPrompt: withFastDecode(handle((*Door).prompt), textPrompt), // a text prompt read straight (promptwire.go)
	sdk.AgentMethodSessionCancel: handle((*Door).cancel),
	sdk.AgentMethodSessionClose:  handle((*Door).closeSession),
	sdk.AgentMethodSessionDelete: handle((*Door).deleteSession),
	// These go to the chat's agent, which answers (config.go).
	sdk.AgentMethodSessionSetMode:         handle((*Door).setMode),
	sdk.AgentMethodSessionSetConfigOption: handle((*Door).setConfigOption),
}

// Starts reports whether method is ACP's first call, which makes a
// connection speak ACP.
func Starts(method string) bool { return method == sdk.AgentMethodInitialize }

// StartsHarness reports whether method may start a chat's agent (the
// server reads its config again first).
func StartsHarness(method string) bool {
	switch method {
	case sdk.AgentMethodSessionNew, sdk.AgentMethodSessionLoad, sdk.AgentMethodSessionResume,
		sdk.AgentMethodSessionPrompt, sdk.AgentMethodSessionFork,
		sdk.AgentMethodSessionSetMode, sdk.AgentMethodSessionSetConfigOption:
		return true
	}
	return false
}

// Call answers one request (or notification) of the connection.
func (d *Door) Call(method string, params json.RawMessage) (any, error) {
	h, p, err := d.decode(method, params)
	if err != nil {
		return nil, err
	}
	return h.call(d, p)
}

// CallThen is Call, whose answer then hears; a session/prompt returns once
// the prompt is on its way to the agent, and then hears the answer as
// Backend.PromptThen tells it. Any other call is answered before CallThen
// returns.
func (d *Door) CallThen(method string, params json.RawMessage, then func(any, error)) {
	h, p, err := d.decode(method, params)
	if err != nil {
		then(nil, err)
		return
	}
	if method != sdk.AgentMethodSessionPrompt {
		then(h.call(d, p))
		return
	}
	d.promptThen(*p.(*sdk.PromptRequest), func(resp sdk.PromptResponse, err error) {
		if err != nil {
			then(nil, err)
			return
		}
		then(resp, nil)
	})
}

// decode finds method's handler and reads params for it.
func (d *Door) decode(method string, params json.RawMessage) (handler, any, error) {
	h, ok := methods[method]
	if !ok {
		return handler{}, nil, errorf(CodeMethodNotFound, "Method not found: %q", clip(method))
	}
	if method != sdk.AgentMethodInitialize {
		d.mu.Lock()
		inited := d.inited
		d.mu.Unlock()
		if !inited {
			return handler{}, nil, errorf(CodeInvalidRequest, "Invalid Request: initialize first")
		}
	}
	p, err := h.decode(params)
	if err != nil {
		return handler{}, nil, err
	}
	return h, p, nil
}

// decodeParams decodes params into v; params left out decode as {}.
func decodeParams(raw json.RawMessage, v any) *Error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	if raw[0] != '{' {
		return errorf(CodeInvalidParams, "Invalid params: params must be an object")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return errorf(CodeInvalidParams, "Invalid params: %s must not be %s", te.Field, te.Value)
		}
		return errorf(CodeInvalidParams, "Invalid params: %v", err)
	}
	return nil
}

// clip keeps a hostile name out of a long error message.
func clip(s string) string {
	if len(s) <= 120 {
		return s
	}
	return strings.ToValidUTF8(s[:120], "") + "…"
}

// Methods lists the ACP methods the door answers.
func Methods() []string {
	names := make([]string, 0, len(methods))
	for m := range methods {
		names = append(names, m)
	}
	slices.Sort(names)
	return names
}
