package proto

// Permission is a permission request from an agent, shown as a card the user
// answers from the keyboard. Requests that arrive while one is shown wait
// their turn: the chat shows the first, and says how many wait.
type Permission struct {
	// Title names the tool call that asks, on one line.
	Title string
	// Options are the agent's choices, in its order.
	Options []PermissionOption
	// Pending is how many permission requests wait for an answer, this one
	// included (1 when it is the only one).
	Pending int
	// Seq numbers the agent process's permission requests from 1: a card
	// with another Seq is another request.
	Seq uint64
	// ToolCallID is the agent's id of the tool call that asks.
	ToolCallID string
	// Kind is the asking tool call's kind (edit, execute, ...), "" when
	// the agent gave none.
	Kind string
	// Content is what the tool call will do, as the agent sent it with
	// the request: the diff of an edit, the command to run (cleaned and
	// bounded as a transcript's tool content).
	Content []ToolContent
}

// PermissionOption is one answer to a permission request.
type PermissionOption struct {
	ID string
	// Name is the option's label, on one line.
	Name string
	// Kind is allow_once, allow_always, reject_once or reject_always.
	Kind string
}
