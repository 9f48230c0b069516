package agent

import (
	"fmt"
	"slices"
	"time"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	acp "github.com/coder/acp-go-sdk"
)

// The transcript's types cross the socket, so they live in proto.

// NoteCancelled is the mark a turn the user cancelled leaves.
const NoteCancelled = "turn cancelled"

// MaxTranscriptEntries bounds an ACP chat's transcript in memory; older
// entries are dropped (the agent keeps the full history). The transcript
// grows to transcriptSlack past it and is then cut back to it at once, so
// a long replay (a session/load of 10,000 entries) copies the kept entries
// once per transcriptSlack added, not once per entry.
const (
	MaxTranscriptEntries = 5000
	transcriptSlack      = MaxTranscriptEntries / 4
)

// maxEntryText bounds one entry's text.
const maxEntryText = 1 << 20

// MaxEntryPaths bounds the paths, and the locations, one tool entry keeps,
// and maxPathBytes one path.
const (
	MaxEntryPaths = 64
	maxPathBytes  = 4096
)

// Transcript is an ACP chat's conversation as streamed by the agent, and
// where its running turn stands.
type Transcript struct {
	entries []proto.Entry
	// Cancelled is set when the user cancels the running turn, until the
	// next turn starts: the turn's end leaves one mark, and permission
	// requests that arrive meanwhile are answered "Cancelled".
	Cancelled bool
}

// Add appends an entry, cleaning what it shows (its locations come
// cleaned: see Locations).
func (t *Transcript) Add(e proto.Entry) {
	e.Text = plaintext.Clean(e.Text)
	e.Title, e.ToolStatus = plaintext.Line(e.Title), plaintext.Line(e.ToolStatus)
	for i, p := range e.Plan {
		e.Plan[i] = plaintext.Line(p)
	}
	for i := range e.PlanItems {
		e.PlanItems[i].Content = plaintext.Line(e.PlanItems[i].Content)
	}
	paths := e.Paths
	e.Paths = nil
	addEntryPaths(&e, paths)
	if e.At.IsZero() {
		e.At = time.Now()
	}
	t.entries = append(t.entries, e)
	if len(t.entries) > MaxTranscriptEntries+transcriptSlack {
		t.entries = append(t.entries[:0:0], t.entries[len(t.entries)-MaxTranscriptEntries:]...)
	}
}

// AppendText adds a streamed chunk to the message it belongs to, else starts
// a new one. A chunk belongs to the last entry when that entry is of its
// kind and has its message id. Without message ids (ACP v1 stable has
// none), agent messages and thoughts are streamed, so their chunks join;
// a user message is sent whole (a session/load replays each prompt as its
// own chunk), so each user chunk without an id is a message of its own:
// two prompts replayed back to back stay two messages.
func (t *Transcript) AppendText(kind proto.EntryKind, text, messageID string) {
	if n := len(t.entries); n > 0 {
		e := &t.entries[n-1]
		joins := e.Kind == kind && e.MessageID == messageID && (kind != proto.EntryUser || messageID != "")
		if joins {
			text = plaintext.Clean(text)
			if len(e.Text)+len(text) <= maxEntryText {
				e.Text += text
			}
			e.At = time.Now()
			return
		}
	}
	t.Add(proto.Entry{Kind: kind, Text: text, MessageID: messageID})
}

// Tool records a Tool call or an update to one. Locations (as Locations
// cleans them) replace the call's when not nil, as ACP's tool_call_update
// says, and their paths join the call's Paths.
func (t *Transcript) Tool(id, title, status string, locations []proto.Location) {
	for i := len(t.entries) - 1; i >= 0; i-- {
		e := &t.entries[i]
		if e.Kind == proto.EntryTool && e.ToolCallID == id {
			if title != "" {
				e.Title = plaintext.Line(title)
			}
			if status != "" {
				e.ToolStatus = plaintext.Line(status)
			}
			if locations != nil {
				e.Locations = locations
				addLocationPaths(e, locations)
			}
			e.At = time.Now()
			return
		}
	}
	if status == "" {
		status = "pending"
	}
	e := proto.Entry{Kind: proto.EntryTool, ToolCallID: id, Title: title, ToolStatus: status, Locations: locations}
	addLocationPaths(&e, locations)
	t.Add(e)
}

// addEntryPaths adds paths the entry does not have yet, cleaned and bounded.
func addEntryPaths(e *proto.Entry, paths []string) {
	for _, p := range paths {
		addEntryPath(e, p)
	}
}

// addLocationPaths adds the paths of locations to the entry's Paths.
func addLocationPaths(e *proto.Entry, locations []proto.Location) {
	for _, l := range locations {
		addEntryPath(e, l.Path)
	}
}

// addEntryPath adds p unless the entry has it, cleaned and bounded.
func addEntryPath(e *proto.Entry, p string) {
	p = plaintext.Line(p)
	if p == "" || len(p) > maxPathBytes || len(e.Paths) >= MaxEntryPaths || slices.Contains(e.Paths, p) {
		return
	}
	e.Paths = append(e.Paths, p)
}

// Wrote records a file the agent Wrote through fs/write_text_file: on the
// latest tool call of the running turn (the one that Wrote it), else as a
// tool entry of its own.
func (t *Transcript) Wrote(path string) {
	for i := len(t.entries) - 1; i >= 0; i-- {
		e := &t.entries[i]
		if e.Kind == proto.EntryUser {
			break
		}
		if e.Kind == proto.EntryTool {
			addEntryPath(e, path)
			return
		}
	}
	t.Add(proto.Entry{Kind: proto.EntryTool, Title: "write " + path, ToolStatus: "completed", Paths: []string{path}})
}

// Plan keeps a plan: an agent sends the whole plan each time, which
// replaces the plan just before it.
func (t *Transcript) Plan(items []string, whole []proto.PlanItem) {
	if n := len(t.entries); n > 0 && t.entries[n-1].Kind == proto.EntryPlan {
		for i, p := range items {
			items[i] = plaintext.Line(p)
		}
		for i := range whole {
			whole[i].Content = plaintext.Line(whole[i].Content)
		}
		t.entries[n-1].Plan, t.entries[n-1].PlanItems = items, whole
		t.entries[n-1].At = time.Now()
		return
	}
	t.Add(proto.Entry{Kind: proto.EntryPlan, Plan: items, PlanItems: whole})
}

// StartTurn records the user's prompt at the start of a turn.
func (t *Transcript) StartTurn(text string) {
	t.Cancelled = false
	t.Add(proto.Entry{Kind: proto.EntryUser, Text: text})
}

// Cancel records that the user cancelled the running turn.
func (t *Transcript) Cancel() { t.Cancelled = true }

// EndTurn leaves the turn's one mark: "turn cancelled" when the user
// cancelled it or the agent says it was, else the error, else a stop
// reason other than end_turn.
func (t *Transcript) EndTurn(reason string, err error) {
	switch {
	case t.Cancelled || err == nil && reason == "cancelled":
		t.Add(proto.Entry{Kind: proto.EntryNote, Text: NoteCancelled})
	case err != nil:
		t.Add(proto.Entry{Kind: proto.EntryError, Text: err.Error()})
	case reason != "end_turn":
		t.Add(proto.Entry{Kind: proto.EntryNote, Text: "turn ended: " + reason})
	}
	t.Cancelled = false
}

func (t *Transcript) HasUserMessage() bool {
	for _, e := range t.entries {
		if e.Kind == proto.EntryUser {
			return true
		}
	}
	return false
}

func (t *Transcript) Entries() []proto.Entry {
	out := make([]proto.Entry, len(t.entries))
	copy(out, t.entries)
	for i := range out {
		out[i].Plan = append([]string(nil), out[i].Plan...)
		out[i].PlanItems = append([]proto.PlanItem(nil), out[i].PlanItems...)
		out[i].Paths = append([]string(nil), out[i].Paths...)
		out[i].Locations = append([]proto.Location(nil), out[i].Locations...)
	}
	return out
}

// Apply takes a session/update into the transcript and returns the entry
// it makes of it, as the update said it (a chunk alone, not the message it
// joins), for a chat's observer; nil for an update the transcript does not
// keep (modes and options are the session's, not the conversation's).
func (t *Transcript) Apply(u acp.SessionUpdate) *proto.Entry {
	chunk := func(kind proto.EntryKind, content acp.ContentBlock, messageID *string) *proto.Entry {
		e := proto.Entry{Kind: kind, Text: plaintext.Clean(ContentText(content))}
		if messageID != nil {
			e.MessageID = *messageID
		}
		t.AppendText(e.Kind, e.Text, e.MessageID)
		return &e
	}
	switch {
	case u.UserMessageChunk != nil:
		return chunk(proto.EntryUser, u.UserMessageChunk.Content, u.UserMessageChunk.MessageId)
	case u.AgentMessageChunk != nil:
		return chunk(proto.EntryAgent, u.AgentMessageChunk.Content, u.AgentMessageChunk.MessageId)
	case u.AgentThoughtChunk != nil:
		return chunk(proto.EntryThought, u.AgentThoughtChunk.Content, u.AgentThoughtChunk.MessageId)
	case u.ToolCall != nil:
		id, title, status := string(u.ToolCall.ToolCallId), plaintext.Line(u.ToolCall.Title), plaintext.Line(string(u.ToolCall.Status))
		locations := Locations(u.ToolCall.Locations)
		t.Tool(id, title, status, locations)
		return &proto.Entry{Kind: proto.EntryTool, ToolCallID: id, Title: title, ToolStatus: status, Locations: locations}
	case u.ToolCallUpdate != nil:
		title, status := "", ""
		if u.ToolCallUpdate.Title != nil {
			title = plaintext.Line(*u.ToolCallUpdate.Title)
		}
		if u.ToolCallUpdate.Status != nil {
			status = plaintext.Line(string(*u.ToolCallUpdate.Status))
		}
		id := string(u.ToolCallUpdate.ToolCallId)
		locations := Locations(u.ToolCallUpdate.Locations)
		t.Tool(id, title, status, locations)
		return &proto.Entry{Kind: proto.EntryTool, ToolCallID: id, Title: title, ToolStatus: status, Locations: locations}
	case u.Plan != nil:
		items := make([]string, len(u.Plan.Entries))
		whole := make([]proto.PlanItem, len(u.Plan.Entries))
		for i, e := range u.Plan.Entries {
			items[i] = plaintext.Line(fmt.Sprintf("[%s] %s", e.Status, e.Content))
			whole[i] = proto.PlanItem{Content: plaintext.Line(e.Content), Priority: known(string(e.Priority), "high", "medium", "low"),
				Status: known(string(e.Status), "pending", "in_progress", "completed")}
		}
		t.Plan(items, whole)
		return &proto.Entry{Kind: proto.EntryPlan, Plan: append([]string(nil), items...), PlanItems: append([]proto.PlanItem(nil), whole...)}
	}
	return nil
}

// known is v when it is one of values, else "": an agent's word for a
// plan's priority or status is kept only when it is one ACP defines.
func known(v string, values ...string) string {
	if slices.Contains(values, v) {
		return v
	}
	return ""
}
