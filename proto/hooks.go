package proto

// This file is the part of the wire that carries where each chat's turn is:
// what harnesses report through `acpmux-tui hook`, which chat each client
// shows its user, and the notices a drawing client turns into a desktop
// notification.

// The methods.
const (
	// MethodHook ({id, event, notificationType?, message?, payload?} → {})
	// is what `acpmux-tui hook EVENT` sends for a harness: a Claude Code
	// hook event (with the Notification's type and message), or Codex's
	// notify program (event "codex-notify", payload its notification's
	// "type"). An event that says nothing of the turn is answered and
	// ignored; an unknown chat is -32602.
	MethodHook = "_acpmux/hook"
	// MethodLook ({id} → {}) says which chat the connection shows its user
	// now ("" for none, as when its terminal lost focus): a chat someone
	// looks at is never marked unread nor notified about. It holds until
	// the next call or the connection's end.
	MethodLook = "_acpmux/look"

	// NotifyNotice is sent to every watcher with a Notice when a chat asks
	// for its user or finishes a turn while nobody looks at it (at most one
	// per chat per notify interval; [notify] on chooses which).
	NotifyNotice = "_acpmux/notice"
)

// HookParams are the params of MethodHook.
type HookParams struct {
	ID               string `json:"id"`
	Event            string `json:"event"`
	NotificationType string `json:"notificationType,omitempty"`
	Message          string `json:"message,omitempty"`
	// Payload is Codex's notification type ("agent-turn-complete").
	Payload string `json:"payload,omitempty"`
}

// LookParams are the params of MethodLook.
type LookParams struct {
	ID string `json:"id"`
}

// Notice is the params of NotifyNotice: the chat, its new status ("asking"
// or "waiting"), and the title and body of the notification to show.
// It announces a chat that needs its user.
type Notice struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Title  string `json:"title"`
	Body   string `json:"body"`
}
