package acp

import (
	"github.com/google/uuid"

	"github.com/acpmux/acpmux-tui/proto"
	sdk "github.com/coder/acp-go-sdk"
)

// This file turns a chat's stream, as the server observes it (entries of
// the one shape, proto.Entry, that every client gets), into ACP
// session/update notifications for one door client. The kinds it sends are
// the agent's (user, agent, thought, tool, plan) and a turn's start (Text is
// its prompt; Own marks the connection that sent it); any other kind
// (stderr, notices, gaps) is not sent.

// MethodUpdate is the notification that carries a session's updates.
const MethodUpdate = sdk.ClientMethodSessionUpdate

// maxToolsKnown bounds the tool call ids one session remembers (to tell a
// first sight, tool_call, from a later one, tool_call_update).
const maxToolsKnown = 4096

// sessionState is what the door remembers of a session it streams.
type sessionState struct {
	tools map[string]bool
	cfg   sentConfig // the modes and options the client was told (config.go)
}

// Updates turns entries of chat id into session/update params, in order.
func (d *Door) Updates(id string, entries []proto.ObservedEntry) []sdk.SessionNotification {
	var cfg *SessionConfig
	for _, e := range entries {
		if e.Kind == EntrySessionConfig {
			c := d.b.SessionConfig(id)
			cfg = &c
			break
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	st := d.stateLocked(id)
	var out []sdk.SessionNotification
	for _, e := range entries {
		if e.Kind == EntrySessionConfig {
			for _, u := range st.configUpdates(*cfg) {
				out = append(out, sdk.SessionNotification{SessionId: sdk.SessionId(id), Update: u})
			}
			continue
		}
		if u, ok := st.update(e); ok {
			out = append(out, sdk.SessionNotification{SessionId: sdk.SessionId(id), Update: u})
		}
		for _, u := range userLinks(e) {
			out = append(out, sdk.SessionNotification{SessionId: sdk.SessionId(id), Update: u})
		}
	}
	return out
}

func (st *sessionState) update(e proto.ObservedEntry) (sdk.SessionUpdate, bool) {
	switch e.Kind {
	case proto.EntryUser:
		return chunk(sdk.UpdateUserMessageText(e.Text), e.MessageID), e.Text != ""
	case proto.EntryTurnStarted:
		// A prompt of another client, or of the TUI: the user's message.
		// The client that sent it has it already.
		return sdk.UpdateUserMessageText(e.Text), !e.Own && e.Text != ""
	case proto.EntryAgent:
		return chunk(sdk.UpdateAgentMessageText(e.Text), e.MessageID), e.Text != ""
	case proto.EntryThought:
		return chunk(sdk.UpdateAgentThoughtText(e.Text), e.MessageID), e.Text != ""
	case proto.EntryPlan:
		if len(e.PlanItems) > 0 {
			// The plan whole, as the agent sent it.
			items := make([]sdk.PlanEntry, len(e.PlanItems))
			for i, it := range e.PlanItems {
				items[i] = sdk.PlanEntry{Content: it.Content, Priority: sdk.PlanEntryPriorityMedium, Status: sdk.PlanEntryStatusPending}
				if it.Priority != "" {
					items[i].Priority = sdk.PlanEntryPriority(it.Priority)
				}
				if it.Status != "" {
					items[i].Status = sdk.PlanEntryStatus(it.Status)
				}
			}
			return sdk.UpdatePlan(items...), true
		}
		items := make([]sdk.PlanEntry, len(e.Plan))
		for i, p := range e.Plan {
			items[i] = sdk.PlanEntry{Content: p, Priority: sdk.PlanEntryPriorityMedium, Status: sdk.PlanEntryStatusPending}
		}
		return sdk.UpdatePlan(items...), true
	case proto.EntryTool:
		if e.ToolCallID == "" {
			return sdk.SessionUpdate{}, false
		}
		status, known := toolStatus(e.ToolStatus)
		if !st.tools[e.ToolCallID] {
			if len(st.tools) >= maxToolsKnown {
				clear(st.tools)
			}
			st.tools[e.ToolCallID] = true
			opts := []sdk.ToolCallStartOpt{}
			if known {
				opts = append(opts, sdk.WithStartStatus(status))
			}
			if e.ToolKind != "" {
				opts = append(opts, sdk.WithStartKind(sdk.ToolKind(e.ToolKind)))
			}
			if len(e.Locations) > 0 {
				opts = append(opts, sdk.WithStartLocations(toolLocations(e.Locations)))
			}
			if len(e.Content) > 0 {
				opts = append(opts, sdk.WithStartContent(toolContents(e.Content)))
			}
			return sdk.StartToolCall(sdk.ToolCallId(e.ToolCallID), e.Title, opts...), true
		}
		opts := []sdk.ToolCallUpdateOpt{}
		if e.Title != "" {
			opts = append(opts, sdk.WithUpdateTitle(e.Title))
		}
		if known {
			opts = append(opts, sdk.WithUpdateStatus(status))
		}
		if e.ToolKind != "" {
			opts = append(opts, sdk.WithUpdateKind(sdk.ToolKind(e.ToolKind)))
		}
		if e.Locations != nil {
			// The update replaces the call's locations, an empty list too.
			opts = append(opts, sdk.WithUpdateLocations(toolLocations(e.Locations)))
		}
		if len(e.Content) > 0 {
			// The update replaces the call's content. (An empty list
			// would too, but the SDK leaves one out.)
			opts = append(opts, sdk.WithUpdateContent(toolContents(e.Content)))
		}
		return sdk.UpdateToolCall(sdk.ToolCallId(e.ToolCallID), opts...), true
	}
	return sdk.SessionUpdate{}, false
}

// userLinks are the resource_link chunks of the files a user's message
// links, after its text: a replayed prompt's, or the prompt of another
// client (the client that sent it has them).
func userLinks(e proto.ObservedEntry) []sdk.SessionUpdate {
	if e.Kind != proto.EntryUser && (e.Kind != proto.EntryTurnStarted || e.Own) {
		return nil
	}
	out := make([]sdk.SessionUpdate, 0, len(e.Links))
	for _, l := range e.Links {
		u := sdk.SessionUpdate{UserMessageChunk: &sdk.SessionUpdateUserMessageChunk{Content: sdk.ResourceLinkBlock(l.Name, l.URI)}}
		if e.Kind == proto.EntryUser {
			u = chunk(u, e.MessageID)
		}
		out = append(out, u)
	}
	return out
}

// chunk sets a chunk's message id when the agent's is a UUID, as ACP asks
// of message ids; another is left out.
func chunk(u sdk.SessionUpdate, messageID string) sdk.SessionUpdate {
	if messageID == "" {
		return u
	}
	if _, err := uuid.Parse(messageID); err != nil {
		return u
	}
	switch {
	case u.UserMessageChunk != nil:
		u.UserMessageChunk.MessageId = sdk.Ptr(messageID)
	case u.AgentMessageChunk != nil:
		u.AgentMessageChunk.MessageId = sdk.Ptr(messageID)
	case u.AgentThoughtChunk != nil:
		u.AgentThoughtChunk.MessageId = sdk.Ptr(messageID)
	}
	return u
}

// toolStatus is the tool call status as ACP names it; ok is false for one
// it does not know.
func toolStatus(s string) (sdk.ToolCallStatus, bool) {
	switch st := sdk.ToolCallStatus(s); st {
	case sdk.ToolCallStatusPending, sdk.ToolCallStatusInProgress, sdk.ToolCallStatusCompleted, sdk.ToolCallStatusFailed:
		return st, true
	}
	return "", false
}

// toolContents are what a tool call produced as ACP writes it: a text as
// a text block, a diff (oldText left out for a new file), a terminal by
// its id. A content cut to its bound carries the bytes the agent sent
// under _meta (MetaSize).
func toolContents(in []proto.ToolContent) []sdk.ToolCallContent {
	out := make([]sdk.ToolCallContent, 0, len(in))
	for _, c := range in {
		var meta map[string]any
		if c.Size > 0 {
			meta = map[string]any{MetaSize: c.Size}
		}
		switch c.Type {
		case proto.ToolContentText:
			tc := sdk.ToolContent(sdk.TextBlock(c.Text))
			tc.Content.Meta = meta
			out = append(out, tc)
		case proto.ToolContentDiff:
			tc := sdk.ToolCallContent{Diff: &sdk.ToolCallContentDiff{Type: "diff", Path: c.Path, NewText: c.NewText, OldText: c.OldText, Meta: meta}}
			out = append(out, tc)
		case proto.ToolContentTerminal:
			out = append(out, sdk.ToolTerminalRef(c.TerminalID))
		}
	}
	return out
}

// MetaSize is the key, under a tool content's _meta, of the bytes the
// agent sent when its text was cut to the bound (proto.ToolContent.Size).
const MetaSize = "acpmux/size"

// toolLocations are a tool call's locations as ACP writes them.
func toolLocations(locs []proto.Location) []sdk.ToolCallLocation {
	out := make([]sdk.ToolCallLocation, len(locs))
	for i, l := range locs {
		out[i] = sdk.ToolCallLocation{Path: l.Path, Line: l.Line}
	}
	return out
}
