package acp

import (
	"encoding/base64"
	"path/filepath"
	"slices"
	"strings"

	"github.com/acpmux/acpmux-tui/acp/agent"
	"github.com/acpmux/acpmux-tui/internal/await"
	"github.com/acpmux/acpmux-tui/proto"
	sdk "github.com/coder/acp-go-sdk"
)

// This file is the door's handlers: initialize, then the session methods.
// A session's id is its chat's id.

// listPage is how many chats one session/list answer holds at most.
const listPage = 100

// maxPromptBlocks bounds the content blocks of one prompt.
const maxPromptBlocks = 1024

// initialize answers protocol version 1 and what the door really does. The
// harness new chats get is chosen here: _meta's MetaHarness, else the
// default ACP harness. Prompt capabilities are the least (text and
// resource links): the door cannot ask a harness that has not started.
func (d *Door) initialize(p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	name := ""
	if v, ok := p.Meta[MetaHarness]; ok {
		s, isString := v.(string)
		if !isString {
			return sdk.InitializeResponse{}, errorf(CodeInvalidParams, "Invalid params: _meta.%s must be a harness name", MetaHarness)
		}
		name = s
	}
	h, err := d.b.Harness(name)
	if err != nil {
		return sdk.InitializeResponse{}, err
	}
	d.mu.Lock()
	d.harness, d.inited, d.caps = h, true, p.ClientCapabilities
	d.mu.Unlock()
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{},
			SessionCapabilities: sdk.SessionCapabilities{
				AdditionalDirectories: &sdk.SessionAdditionalDirectoriesCapabilities{},
				List:                  &sdk.SessionListCapabilities{},
				Resume:                &sdk.SessionResumeCapabilities{},
				Fork:                  &sdk.SessionForkCapabilities{},
				Close:                 &sdk.SessionCloseCapabilities{},
				Delete:                &sdk.SessionDeleteCapabilities{},
			},
		},
		AgentInfo:   &sdk.Implementation{Name: AgentName, Version: d.version},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// authenticate: the door lists no auth methods, so any is unknown.
func (d *Door) authenticate(p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, errorf(CodeInvalidParams, "Invalid params: unknown auth method %q (acpmux-tui lists none)", clip(string(p.MethodId)))
}

// checkCwd refuses a cwd that is not an absolute path; that it exists and
// is a folder the store checks.
func checkCwd(cwd string) *Error {
	switch {
	case strings.ContainsRune(cwd, 0):
		return errorf(CodeInvalidParams, "Invalid params: cwd contains a NUL byte")
	case !filepath.IsAbs(cwd):
		return errorf(CodeInvalidParams, "Invalid params: cwd %q is not an absolute path", clip(cwd))
	}
	return nil
}

// newSession makes a chat exactly as `acpmux-tui new` would, with origin
// acp; its folders go through the shared validator, and a refusal names
// every bad entry and writes nothing.
func (d *Door) newSession(p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	if err := checkCwd(p.Cwd); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	d.mu.Lock()
	h := d.harness
	d.mu.Unlock()
	c, err := d.b.NewChat(NewChat{Harness: h, Cwd: p.Cwd, AdditionalDirectories: p.AdditionalDirectories})
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	d.b.SetMcpServers(c.ID, p.McpServers)
	if err := d.b.Open(c.ID, false); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	cfg := d.opened(c.ID)
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(c.ID), Modes: cfg.Modes, ConfigOptions: cfg.ConfigOptions}, nil
}

// listSessions lists the home's ACP chats, listPage at a time; the cursor
// is the last id of the page before, opaque to the client.
func (d *Door) listSessions(p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	var after string
	if p.Cursor != nil && *p.Cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(*p.Cursor)
		if err != nil || len(b) == 0 || len(b) > 64 {
			return sdk.ListSessionsResponse{}, errorf(CodeInvalidParams, "Invalid params: cursor is not one this agent gave")
		}
		after = string(b)
	}
	var cwd string
	if p.Cwd != nil {
		if err := checkCwd(*p.Cwd); err != nil {
			return sdk.ListSessionsResponse{}, err
		}
		cwd = filepath.Clean(*p.Cwd)
		if c, err := filepath.EvalSymlinks(cwd); err == nil {
			cwd = c
		}
	}
	chats, err := d.b.Chats()
	if err != nil {
		return sdk.ListSessionsResponse{}, err
	}
	resp := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for _, c := range chats {
		if after != "" && c.ID <= after || cwd != "" && c.Cwd != cwd {
			continue
		}
		if len(resp.Sessions) == listPage {
			next := base64.RawURLEncoding.EncodeToString([]byte(resp.Sessions[listPage-1].SessionId))
			resp.NextCursor = &next
			break
		}
		resp.Sessions = append(resp.Sessions, sessionInfo(c))
	}
	return resp, nil
}

func sessionInfo(c Chat) sdk.SessionInfo {
	info := sdk.SessionInfo{
		SessionId: sdk.SessionId(c.ID), Cwd: c.Cwd, Title: sdk.Ptr(c.Name),
		AdditionalDirectories: c.AdditionalDirectories,
		Meta: map[string]any{
			MetaHarnessName:                c.Harness,
			"acpmux/additionalDirectories": nonNil(c.AdditionalDirectories),
			MetaAdditionalFiles:            nonNil(c.AdditionalFiles),
		},
	}
	if c.UpdatedAt != "" {
		info.UpdatedAt = sdk.Ptr(c.UpdatedAt)
	}
	return info
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// reopen checks a load or resume: the chat speaks ACP, the folders the
// client sends (when it sends any) pass the validator and replace the
// chat's, and its MCP servers are kept for the agent's next setup.
func (d *Door) reopen(id, cwd string, dirs []string, mcp []sdk.McpServer, replay bool) error {
	if err := checkCwd(cwd); err != nil {
		return err
	}
	c, err := d.b.Chat(id)
	if err != nil {
		return err
	}
	if len(dirs) > 0 && !slices.Equal(dirs, c.AdditionalDirectories) {
		if err := d.b.SetFolders(id, dirs); err != nil {
			return err
		}
	}
	d.b.SetMcpServers(id, mcp)
	return d.b.Open(id, replay)
}

// loadSession replays the chat's transcript as session/update
// notifications before it answers, then streams live ones.
func (d *Door) loadSession(p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	if err := d.reopen(string(p.SessionId), p.Cwd, p.AdditionalDirectories, p.McpServers, true); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	cfg := d.opened(string(p.SessionId))
	return sdk.LoadSessionResponse{Modes: cfg.Modes, ConfigOptions: cfg.ConfigOptions}, nil
}

// resumeSession attaches to the chat without the replay.
func (d *Door) resumeSession(p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	if err := d.reopen(string(p.SessionId), p.Cwd, p.AdditionalDirectories, p.McpServers, false); err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	cfg := d.opened(string(p.SessionId))
	return sdk.ResumeSessionResponse{Modes: cfg.Modes, ConfigOptions: cfg.ConfigOptions}, nil
}

// forkSession is the TUI's fork: the parent's folders (its own folder
// dropped), the agent's session/fork where it has one. A cwd other than
// the parent's is the fork's project.
func (d *Door) forkSession(p sdk.UnstableForkSessionRequest) (sdk.UnstableForkSessionResponse, error) {
	if err := checkCwd(p.Cwd); err != nil {
		return sdk.UnstableForkSessionResponse{}, err
	}
	parent, err := d.b.Chat(string(p.SessionId))
	if err != nil {
		return sdk.UnstableForkSessionResponse{}, err
	}
	cwd := ""
	if filepath.Clean(p.Cwd) != parent.Cwd {
		cwd = p.Cwd
	}
	c, err := d.b.Fork(parent.ID, cwd)
	if err != nil {
		return sdk.UnstableForkSessionResponse{}, err
	}
	if err := d.b.Open(c.ID, false); err != nil {
		return sdk.UnstableForkSessionResponse{}, err
	}
	cfg := d.opened(c.ID)
	return sdk.UnstableForkSessionResponse{SessionId: sdk.SessionId(c.ID), Modes: cfg.Modes, ConfigOptions: unstableOptions(cfg.ConfigOptions)}, nil
}

// prompt runs one turn of the chat's agent. Text blocks are the prompt's
// text; resource links reach the agent as resource_link blocks after it
// (checked as every prompt's links are: agent.CheckLinks); the other block
// types are refused, as initialize did not advertise them.
func (d *Door) prompt(p sdk.PromptRequest) (sdk.PromptResponse, error) {
	return await.Result(func(done func(sdk.PromptResponse, error)) { d.promptThen(p, done) })
}

// promptThen is prompt without waiting for the turn's end: then hears it
// (Backend.PromptThen).
func (d *Door) promptThen(p sdk.PromptRequest, then func(sdk.PromptResponse, error)) {
	text, links, err := promptInput(p)
	if err != nil {
		then(sdk.PromptResponse{}, err)
		return
	}
	d.b.PromptThen(string(p.SessionId), text, links, func(reason string, err error) {
		if err != nil {
			then(sdk.PromptResponse{}, err)
			return
		}
		then(sdk.PromptResponse{StopReason: sdk.StopReason(reason)}, nil)
	})
}

// promptInput is what a prompt asks: its text blocks joined, and the files
// its resource_link blocks link (checked); any other block, no text and
// no link, or a link refused, is invalid params.
func promptInput(p sdk.PromptRequest) (text string, links []proto.Link, err error) {
	if p.SessionId == "" {
		return "", nil, errorf(CodeInvalidParams, "Invalid params: sessionId is required")
	}
	if len(p.Prompt) > maxPromptBlocks {
		return "", nil, errorf(CodeInvalidParams, "Invalid params: more than %d content blocks", maxPromptBlocks)
	}
	var parts []string
	for i, b := range p.Prompt {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.ResourceLink != nil:
			links = append(links, proto.Link{URI: b.ResourceLink.Uri, Name: b.ResourceLink.Name})
		default:
			return "", nil, errorf(CodeInvalidParams, "Invalid params: prompt[%d]: only text and resource_link blocks are supported (promptCapabilities)", i)
		}
	}
	text = strings.Join(parts, "\n")
	if strings.TrimSpace(text) == "" && len(links) == 0 {
		return "", nil, errorf(CodeInvalidParams, "Invalid params: the prompt has no text")
	}
	if err := agent.CheckLinks(links); err != nil {
		return "", nil, errorf(CodeInvalidParams, "Invalid params: resource_link %v", err)
	}
	return text, links, nil
}

// cancel cancels the chat's running turn (a notification: no answer).
func (d *Door) cancel(p sdk.CancelNotification) (struct{}, error) {
	if p.SessionId == "" {
		return struct{}{}, errorf(CodeInvalidParams, "Invalid params: sessionId is required")
	}
	return struct{}{}, d.b.Cancel(string(p.SessionId))
}

// closeSession ends this connection's attachment to the chat: its updates
// stop coming here and the door forgets what it told of it. The chat, its
// agent and a turn it runs go on (ACP would cancel the session's work, but
// the session is a chat the TUI and other clients share), and other
// clients keep their streams. A chat the door drives not (a terminal chat,
// no chat) is refused as load refuses it.
func (d *Door) closeSession(p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	id := string(p.SessionId)
	if _, err := d.b.Chat(id); err != nil {
		return sdk.CloseSessionResponse{}, err
	}
	d.detach(id)
	return sdk.CloseSessionResponse{}, nil
}

// deleteSession removes the chat through the chat service, with rm's
// guards: a refusal (a worktree with work that would be lost) says why and
// leaves the chat as it was.
func (d *Door) deleteSession(p sdk.UnstableDeleteSessionRequest) (sdk.UnstableDeleteSessionResponse, error) {
	id := string(p.SessionId)
	if _, err := d.b.Chat(id); err != nil {
		return sdk.UnstableDeleteSessionResponse{}, err
	}
	if err := d.b.Delete(id); err != nil {
		return sdk.UnstableDeleteSessionResponse{}, err
	}
	d.detach(id)
	return sdk.UnstableDeleteSessionResponse{}, nil
}

// detach stops streaming the chat here and forgets its state.
func (d *Door) detach(id string) {
	d.b.Close(id)
	d.mu.Lock()
	delete(d.sessions, id)
	d.mu.Unlock()
}
