package mux

import (
	"context"
	"errors"
	"fmt"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// Permission is a permission request from an agent, shown as a card the user
// answers from the keyboard.
type Permission struct {
	// Title names the tool call that asks.
	Title string
	// Options are the agent's choices, in its order.
	Options []PermissionOption
}

// PermissionOption is one answer to a permission request.
type PermissionOption struct {
	ID   string
	Name string
	// Kind is allow_once, allow_always, reject_once or reject_always.
	Kind string
}

// PermissionPolicy answers permission requests without asking (the prompt
// command refuses them all). It returns the option id, or "" to cancel.
type PermissionPolicy func(Permission) string

type permissionCard struct {
	Permission
	answer chan string
}

// RefuseAll is the PermissionPolicy of `acpmux-tui prompt`: the first reject
// option, or a cancelled outcome when the agent offers none.
func RefuseAll(p Permission) string {
	for _, o := range p.Options {
		if strings.HasPrefix(o.Kind, "reject") {
			return o.ID
		}
	}
	return ""
}

// acpClient is the client side of one ACP connection: it takes the agent's
// session updates into the transcript, asks the user for permissions, and
// serves file reads and writes inside the chat's roots only.
type acpClient struct {
	chat *acpChat
	proc *acpProcess
}

var _ acp.Client = (*acpClient)(nil)

func (a *acpClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c := a.chat
	u := n.Update
	var entry *Entry
	c.mu.Lock()
	switch {
	case u.UserMessageChunk != nil:
		c.log.appendText(EntryUser, contentText(u.UserMessageChunk.Content))
		entry = &Entry{Kind: EntryUser, Text: contentText(u.UserMessageChunk.Content)}
	case u.AgentMessageChunk != nil:
		text := contentText(u.AgentMessageChunk.Content)
		c.log.appendText(EntryAgent, text)
		entry = &Entry{Kind: EntryAgent, Text: text}
	case u.AgentThoughtChunk != nil:
		text := contentText(u.AgentThoughtChunk.Content)
		c.log.appendText(EntryThought, text)
		entry = &Entry{Kind: EntryThought, Text: text}
	case u.ToolCall != nil:
		c.log.tool(string(u.ToolCall.ToolCallId), u.ToolCall.Title, string(u.ToolCall.Status))
		entry = &Entry{Kind: EntryTool, ToolCallID: string(u.ToolCall.ToolCallId), Title: u.ToolCall.Title, ToolStatus: string(u.ToolCall.Status)}
	case u.ToolCallUpdate != nil:
		title, status := "", ""
		if u.ToolCallUpdate.Title != nil {
			title = *u.ToolCallUpdate.Title
		}
		if u.ToolCallUpdate.Status != nil {
			status = string(*u.ToolCallUpdate.Status)
		}
		c.log.tool(string(u.ToolCallUpdate.ToolCallId), title, status)
		entry = &Entry{Kind: EntryTool, ToolCallID: string(u.ToolCallUpdate.ToolCallId), Title: title, ToolStatus: status}
	case u.Plan != nil:
		items := make([]string, len(u.Plan.Entries))
		for i, e := range u.Plan.Entries {
			items[i] = fmt.Sprintf("[%s] %s", e.Status, e.Content)
		}
		c.log.plan(items)
		entry = &Entry{Kind: EntryPlan, Plan: items}
	}
	observer := c.observer
	c.mu.Unlock()
	if entry != nil && observer != nil {
		observer(*entry)
	}
	c.m.notify(c)
	return nil
}

func contentText(b acp.ContentBlock) string {
	switch {
	case b.Text != nil:
		return b.Text.Text
	case b.ResourceLink != nil:
		return "[" + b.ResourceLink.Name + "](" + b.ResourceLink.Uri + ")"
	case b.Image != nil:
		return "[image]"
	case b.Audio != nil:
		return "[audio]"
	case b.Resource != nil:
		return "[resource]"
	}
	return ""
}

// RequestPermission shows a card and waits for the user's answer (or the
// chat's policy, or the turn's end).
func (a *acpClient) RequestPermission(ctx context.Context, req acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c := a.chat
	perm := Permission{Title: "a tool call"}
	if req.ToolCall.Title != nil && *req.ToolCall.Title != "" {
		perm.Title = *req.ToolCall.Title
	}
	for _, o := range req.Options {
		perm.Options = append(perm.Options, PermissionOption{ID: string(o.OptionId), Name: o.Name, Kind: string(o.Kind)})
	}
	card := &permissionCard{Permission: perm, answer: make(chan string, 1)}
	c.mu.Lock()
	policy := c.permit
	if policy == nil {
		c.card = card
		c.state.Attention = true
	}
	c.mu.Unlock()
	var choice string
	if policy != nil {
		choice = policy(perm)
	} else {
		c.m.notify(c)
		select {
		case choice = <-card.answer:
		case <-ctx.Done():
		case <-a.proc.ctx.Done():
		}
		c.mu.Lock()
		if c.card == card {
			c.card = nil
		}
		c.mu.Unlock()
		c.m.notify(c)
	}
	if choice == "" {
		return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}, nil
	}
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Selected: &acp.RequestPermissionOutcomeSelected{OptionId: acp.PermissionOptionId(choice), Outcome: "selected"}}}, nil
}

// Terminals are not advertised to agents (clientCapabilities.terminal is
// false), so these are never called by a conforming agent.
func (a *acpClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.NewMethodNotFound("terminal/create")
}

// KillTerminal is not supported: terminals are not advertised.
func (a *acpClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, acp.NewMethodNotFound("terminal/kill")
}

// TerminalOutput is not supported: terminals are not advertised.
func (a *acpClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, acp.NewMethodNotFound("terminal/output")
}

// ReleaseTerminal is not supported: terminals are not advertised.
func (a *acpClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, acp.NewMethodNotFound("terminal/release")
}

// WaitForTerminalExit is not supported: terminals are not advertised.
func (a *acpClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, acp.NewMethodNotFound("terminal/wait_for_exit")
}

// prompt runs one turn: the folder note first when it is due, the user's
// text, and waits for the turn to end.
func (c *acpChat) prompt(ctx context.Context, text string) (acp.StopReason, error) {
	p, err := c.ready(ctx)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	if c.state.TurnActive {
		c.mu.Unlock()
		return "", errors.New("a turn is already running: wait for it or cancel it")
	}
	blocks := []acp.ContentBlock{}
	if p.noteDue {
		blocks = append(blocks, acp.TextBlock(FolderNote(p.folders)))
		p.noteDue = false
	}
	blocks = append(blocks, acp.TextBlock(text))
	turnCtx, cancel := context.WithCancel(ctx)
	p.turnCancel = cancel
	c.state.TurnActive, c.state.Status, c.state.Attention = true, StatusRunning, false
	c.log.add(Entry{Kind: EntryUser, Text: text})
	c.mu.Unlock()
	c.m.notify(c)

	resp, err := p.conn.Prompt(turnCtx, acp.PromptRequest{SessionId: p.sessionID, Prompt: blocks})
	cancel()
	c.mu.Lock()
	if c.proc == p {
		c.state.TurnActive = false
		c.state.Status = StatusWaiting
		c.state.Attention = true
	}
	switch {
	case err != nil:
		c.log.add(Entry{Kind: EntryError, Text: c.explain("session/prompt", err, nil).Error()})
	case resp.StopReason != acp.StopReasonEndTurn:
		c.log.add(Entry{Kind: EntryNote, Text: "turn ended: " + string(resp.StopReason)})
	}
	c.mu.Unlock()
	c.m.notify(c)
	if err != nil {
		return "", c.explain("session/prompt", err, nil)
	}
	return resp.StopReason, nil
}

// cancelTurn sends session/cancel for the running turn.
func (c *acpChat) cancelTurn() error {
	c.mu.Lock()
	p := c.proc
	active := c.state.TurnActive
	card := c.card
	c.mu.Unlock()
	if p == nil || !active {
		return nil
	}
	if card != nil {
		// A pending permission is answered "cancelled", as the spec asks.
		select {
		case card.answer <- "":
		default:
		}
	}
	return p.conn.Cancel(context.Background(), acp.CancelNotification{SessionId: p.sessionID})
}

// FolderNote is the context note that gives an agent without the
// additionalDirectories capability the chat's folders, at the head of its
// first prompt.
func FolderNote(folders []string) string {
	var b strings.Builder
	b.WriteString("[acpmux-tui] Besides the working folder, this chat may read and edit files in these folders:\n")
	for _, f := range folders {
		b.WriteString("- " + f + "\n")
	}
	return b.String()
}
