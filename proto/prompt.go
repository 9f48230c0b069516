package proto

import "encoding/json"

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
// (an EntryRefused entry); without it a request waits for a client's
// MethodAnswerPermission.
type PromptParams struct {
	ID                string `json:"id"`
	Text              string `json:"text"`
	RefusePermissions bool   `json:"refusePermissions,omitempty"`
	// Links are files sent with the prompt as resource_link blocks after
	// its text (at most MaxPromptLinks, each a file:// URI).
	Links []Link `json:"links,omitempty"`
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

// ObservedEntry is one item of an observed chat's stream: an entry as the
// mux heard it from the agent (a chunk of text joins the previous entry of
// its kind and message id, as in the transcript; a tool call's update
// carries what it changed), or one the server adds to the stream (a turn's
// start and end, a refusal, a notice, a gap), with what only the stream
// says. Text that came from the agent has been cleaned of control
// sequences by the mux.
type ObservedEntry struct {
	Entry
	// Own marks an EntryTurnStarted for the connection whose prompt call
	// started the turn.
	Own bool `json:"own,omitempty"`
	// StopReason and Error say how an EntryTurnEnded's turn ended.
	StopReason string `json:"stopReason,omitempty"`
	Error      string `json:"error,omitempty"`
	// Count is how many updates an EntryMissed stands for.
	Count int `json:"count,omitempty"`
}

// observedFields is an ObservedEntry without its MarshalJSON.
type observedFields ObservedEntry

// observedJSON is an ObservedEntry as the stream writes it: the entry's
// kind by name (Kind shadows the entry's own, a number in a transcript).
// EntryKind reads either.
type observedJSON struct {
	Kind string `json:"kind"`
	observedFields
}

// MarshalJSON writes e with its kind by name ("agent", "turnEnded").
func (e ObservedEntry) MarshalJSON() ([]byte, error) {
	return json.Marshal(observedJSON{Kind: e.Kind.String(), observedFields: observedFields(e)})
}
