package proto

import (
	"time"
)

// This file is the part of the wire protocol that runs ACP turns: a client
// observes a chat (entries stream to it in _acpmux/entries notifications),
// gets it ready, sends a prompt, cancels it, and answers its permission
// requests. The server runs each turn itself: a client that goes away does
// not end the turn.

// The methods of ACP turns.
const (
	// MethodObserve ({id} → {}) streams the chat's updates to this
	// connection in MethodEntries notifications until MethodUnobserve or
	// the connection's end. Several connections may observe one chat.
	MethodObserve = "_acpmux/observe"
	// MethodUnobserve ({id} → {}) stops the stream; what was not yet sent
	// is dropped.
	MethodUnobserve = "_acpmux/unobserve"
	// MethodReady ({id} → {}) starts the chat's agent if it is not running
	// and answers once its session is set up (or why it could not be).
	// What the agent sent meanwhile (a loaded session's replay, its stderr)
	// reaches this connection, if it observes the chat, before the answer.
	MethodReady = "_acpmux/ready"
	// MethodPrompt (PromptParams → PromptResult) runs one turn and answers
	// when it ends. Every entry of the turn reaches this connection, if it
	// observes the chat, before the answer. A chat runs one turn at a time.
	MethodPrompt = "_acpmux/prompt"
	// MethodCancel ({id} → {}) cancels the chat's running turn
	// (session/cancel); the turn's prompt call then answers its stop
	// reason, "cancelled".
	MethodCancel = "_acpmux/cancel"
	// MethodAnswerPermission (AnswerPermissionParams → {}) answers the
	// chat's pending permission request with one of its option ids, or ""
	// to cancel it.
	MethodAnswerPermission = "_acpmux/answerPermission"

	// MethodEntries is the notification that carries an observed chat's
	// updates, in order, several at a time (EntriesParams).
	MethodEntries = "_acpmux/entries"
)

// PromptParams are the params of MethodPrompt. With RefusePermissions, each
// permission request of the turn is refused at once (the first reject
// option, else cancelled) and each refusal is told to the chat's observers
// (an ObservedRefused entry); without it a request waits for a client's
// MethodAnswerPermission.
type PromptParams struct {
	ID                string `json:"id"`
	Text              string `json:"text"`
	RefusePermissions bool   `json:"refusePermissions,omitempty"`
}

// PromptResult is the answer to MethodPrompt: ACP's stop reason
// ("end_turn", "cancelled", "max_tokens", ...).
type PromptResult struct {
	StopReason string `json:"stopReason"`
}

// AnswerPermissionParams are the params of MethodAnswerPermission. OptionID
// must be one of the pending request's options, or "" to cancel it.
type AnswerPermissionParams struct {
	ID       string `json:"id"`
	OptionID string `json:"optionId"`
}

// EmptyResult is the answer of the methods that answer nothing: {}.
type EmptyResult struct{}

// EntriesParams are the params of MethodEntries: updates of chat ID, oldest
// first.
type EntriesParams struct {
	ID      string          `json:"id"`
	Entries []ObservedEntry `json:"entries"`
}

// ObservedKind says what an ObservedEntry is.
type ObservedKind string

// The kinds of ObservedEntry. The first five are transcript updates as the
// mux hears them from the agent (a chunk of text joins the previous entry
// of its kind and message id, as in the transcript); the rest are what the
// server adds to the stream.
const (
	ObservedUser    ObservedKind = "user"
	ObservedAgent   ObservedKind = "agent"
	ObservedThought ObservedKind = "thought"
	ObservedTool    ObservedKind = "tool"
	ObservedPlan    ObservedKind = "plan"
	// ObservedStderr is a line the agent wrote on its stderr (Text).
	ObservedStderr ObservedKind = "stderr"
	// ObservedTurnStarted: a turn started; the agent's updates until
	// ObservedTurnEnded are its reply. Own is set for the connection whose
	// prompt call started it.
	ObservedTurnStarted ObservedKind = "turnStarted"
	// ObservedTurnEnded: the turn ended with StopReason, or failed with
	// Error.
	ObservedTurnEnded ObservedKind = "turnEnded"
	// ObservedRefused: a permission request of a turn that refuses them was
	// refused; Title names the tool call that asked.
	ObservedRefused ObservedKind = "refused"
	// ObservedNotice is a line of the server's own about the running turn
	// (Text: "no reply yet after 10s").
	ObservedNotice ObservedKind = "notice"
	// ObservedMissed: this connection fell so far behind that Count updates
	// in this place were dropped rather than held for it.
	ObservedMissed ObservedKind = "missed"
)

// ObservedEntry is one item of an observed chat's stream. Text that came
// from the agent has been cleaned of control sequences by the
type ObservedEntry struct {
	Kind ObservedKind `json:"kind"`
	Text string       `json:"text,omitempty"`
	// MessageID is the agent's id of the message a chunk belongs to.
	MessageID  string   `json:"messageId,omitempty"`
	ToolCallID string   `json:"toolCallId,omitempty"`
	Title      string   `json:"title,omitempty"`
	ToolStatus string   `json:"toolStatus,omitempty"`
	Plan       []string `json:"plan,omitempty"`
	// At is when the mux heard the update.
	At         time.Time `json:"at,omitzero"`
	Own        bool      `json:"own,omitempty"`
	StopReason string    `json:"stopReason,omitempty"`
	Error      string    `json:"error,omitempty"`
	Count      int       `json:"count,omitempty"`
}

// observedKinds names the mux's entry kinds on the wire.
var observedKinds = map[EntryKind]ObservedKind{
	EntryUser: ObservedUser, EntryAgent: ObservedAgent, EntryThought: ObservedThought,
	EntryTool: ObservedTool, EntryPlan: ObservedPlan, EntryStderr: ObservedStderr,
}

// ObservedFrom is a mux entry as it goes on the wire; ok is false for a
// kind the stream does not carry (the transcript's own notes).
func ObservedFrom(e Entry) (ObservedEntry, bool) {
	kind, ok := observedKinds[e.Kind]
	if !ok {
		return ObservedEntry{}, false
	}
	return ObservedEntry{
		Kind: kind, Text: e.Text, MessageID: e.MessageID, ToolCallID: e.ToolCallID,
		Title: e.Title, ToolStatus: e.ToolStatus, Plan: e.Plan, At: e.At,
	}, true
}

// MuxEntry is the entry as the mux had it; ok is false for the kinds the
// server adds (turn marks, refusals, notices, gaps).
func (e ObservedEntry) MuxEntry() (Entry, bool) {
	for k, v := range observedKinds {
		if v == e.Kind {
			return Entry{
				Kind: k, Text: e.Text, MessageID: e.MessageID, ToolCallID: e.ToolCallID,
				Title: e.Title, ToolStatus: e.ToolStatus, Plan: e.Plan, At: e.At,
			}, true
		}
	}
	return Entry{}, false
}
