package mux

import (
	"context"
	"fmt"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/acp/agent"
	"github.com/acpmux/acpmux-tui/proto"
)

// mcpServers holds, per chat, the MCP servers an ACP client of the door
// asked its agent to get. They live in memory only: they may carry
// credentials (env, headers), which have no place in a chat file, and an
// ACP client sends them again with every session/new, load and resume.
type mcpServers struct {
	mu   sync.Mutex
	byID map[string][]acp.McpServer
}

// SetMcpServers sets the MCP servers the chat's agent gets at its next
// session setup (session/new, load or resume); nil or empty gives none.
// A running agent keeps the ones it has until it starts again.
func (m *Mux) SetMcpServers(id string, servers []acp.McpServer) {
	m.mcp.mu.Lock()
	defer m.mcp.mu.Unlock()
	if len(servers) == 0 {
		delete(m.mcp.byID, id)
		return
	}
	if m.mcp.byID == nil {
		m.mcp.byID = map[string][]acp.McpServer{}
	}
	m.mcp.byID[id] = append([]acp.McpServer(nil), servers...)
}

// mcpServersFor is the chat's MCP servers for a session request: never
// nil, as the field is required.
func (m *Mux) mcpServersFor(id string) []acp.McpServer {
	m.mcp.mu.Lock()
	defer m.mcp.mu.Unlock()
	return append([]acp.McpServer{}, m.mcp.byID[id]...)
}

func (m *Mux) acpChat(id string) (*acpChat, error) {
	c, err := m.chat(id)
	if err != nil {
		return nil, err
	}
	a, ok := c.(*acpChat)
	if !ok {
		return nil, fmt.Errorf("chat %s does not speak ACP", id)
	}
	return a, nil
}

// Prompt runs one ACP turn with text and the files it links (a
// resource_link block each, after the text; refused when agent.CheckLinks
// refuses them), starting the harness and its session first if needed, and
// returns the stop reason when the turn ends. The transcript streams
// through Changes meanwhile.
func (m *Mux) Prompt(ctx context.Context, id, text string, links ...proto.Link) (string, error) {
	reason, err := waitTurn(ctx, func(then turnThen) { m.PromptThen(ctx, id, text, links, then) })
	return string(reason), err
}

// PromptThen is Prompt without waiting for the turn's end: it returns once
// the prompt is on its way to the agent (or refused), and then hears the
// end, once: on the goroutine that read the agent's answer, which it must
// not keep waiting, or on this one for a turn that never started. Before
// anything on the way blocks (the harness or its session starting), it
// tells ctx's caller (agent.Waiting).
func (m *Mux) PromptThen(ctx context.Context, id, text string, links []proto.Link, then func(acp.StopReason, error)) {
	if err := agent.CheckLinks(links); err != nil {
		then("", err)
		return
	}
	c, err := m.acpChat(id)
	if err != nil {
		then("", err)
		return
	}
	c.promptThen(ctx, text, links, then)
}

// Cancel cancels the chat's running ACP turn (session/cancel).
func (m *Mux) Cancel(id string) error {
	c, err := m.acpChat(id)
	if err != nil {
		return err
	}
	return c.cancelTurn()
}

// AnswerPermission answers the chat's pending permission card with one of
// its option ids, or "" to cancel it.
func (m *Mux) AnswerPermission(id, optionID string) error {
	c, err := m.acpChat(id)
	if err != nil {
		return err
	}
	c.mu.Lock()
	card := c.card
	c.mu.Unlock()
	if card == nil {
		return fmt.Errorf("chat %s has no pending permission request", id)
	}
	select {
	case card.answer <- optionID:
	default:
	}
	return nil
}

// OnPermission sets fn to hear each permission request of an ACP chat
// that waits as a card (fn runs on the agent's request, so it must not
// wait); nil stops. Whoever answers the card first, with AnswerPermission
// or AnswerPermissionSeq, wins. The func fn returns, when not nil, is
// called once the card is no longer waiting (answered, or its turn gone).
func (m *Mux) OnPermission(id string, fn func(proto.Permission) func()) error {
	c, err := m.acpChat(id)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.onCard = fn
	c.mu.Unlock()
	return nil
}

// AnswerPermissionSeq answers the chat's waiting permission card numbered
// seq (Permission.Seq) with one of its option ids, or "" to cancel it. It
// reports whether that card still waited: another answer may have come
// first.
func (m *Mux) AnswerPermissionSeq(id string, seq uint64, optionID string) (bool, error) {
	c, err := m.acpChat(id)
	if err != nil {
		return false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := c.card; k != nil; k = k.next {
		if k.Seq != seq {
			continue
		}
		select {
		case k.answer <- optionID:
			return true, nil
		default:
			return false, nil
		}
	}
	return false, nil
}

// Transcript returns a copy of an ACP chat's transcript.
func (m *Mux) Transcript(id string) []proto.Entry {
	c, err := m.existing(id)
	if err != nil {
		return nil
	}
	if a, ok := c.(*acpChat); ok {
		return a.entries()
	}
	return nil
}

// TranscriptSince is an ACP chat's transcript for a client that holds it
// as of change since of transcript epoch: only what changed after, when
// that is what it holds (proto.TranscriptResult.Delta), else the whole.
// ok is false for a chat that is not an ACP chat.
func (m *Mux) TranscriptSince(id string, epoch, since uint64) (proto.TranscriptResult, bool) {
	c, err := m.existing(id)
	if err != nil {
		return proto.TranscriptResult{}, false
	}
	a, ok := c.(*acpChat)
	if !ok {
		return proto.TranscriptResult{}, false
	}
	return a.since(epoch, since), true
}

// SetPermissionPolicy makes an ACP chat answer permission requests with
// policy instead of a card (nil restores the card).
func (m *Mux) SetPermissionPolicy(id string, policy PermissionPolicy) error {
	c, err := m.acpChat(id)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.permit = policy
	c.mu.Unlock()
	return nil
}

// Observe streams an ACP chat's transcript updates as they arrive (each
// chunk as its own Entry) to fn; nil stops.
func (m *Mux) Observe(id string, fn func(proto.Entry)) error {
	c, err := m.acpChat(id)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.observer = fn
	c.mu.Unlock()
	return nil
}

// WaitReady starts an ACP chat if needed and waits until its session is set
// up, returning why it could not be.
func (m *Mux) WaitReady(ctx context.Context, id string) error {
	c, err := m.acpChat(id)
	if err != nil {
		return err
	}
	_, err = c.ready(ctx)
	return err
}
