package proto

// A TUI whose chat pane has the keyboard, on a pty chat of this server,
// lends the server its terminal for that pane (MethodLendPane), as
// `attach` lends its whole terminal (MethodAttachTerminal): the server
// reads the keys and types them into the chat, and draws the chat's rows
// in the pane's rectangle itself, so a key and its echo wake no TUI
// process on their way. The TUI keeps everything else: it draws the rest
// of its screen through the loan's connection (MethodPaneDraw), the
// server being the terminal's one writer while the loan lasts, and it is
// handed back every key it must see (its leave key, and anything that
// starts with ESC: cursor keys, alt, the mouse, a paste), after which it
// reads the terminal again.
//
// The call is the first message of a connection of its own, sent with two
// descriptors (SCM_RIGHTS): the terminal opened again for reading and for
// writing. The loan ends with NotifyPaneEnded on that connection, once the
// server has stopped reading and writing the terminal: when a key is
// handed back, when the TUI asks (MethodPaneBack), when the chat stops,
// changes size or is behind the terminal by too much, or when the
// connection closes.
const (
	// MethodLendPane (LendPaneParams) lends the pane; answered {} once
	// the server reads and draws, or refused (-32602: not a live pty chat
	// of that size, no terminal with the message).
	MethodLendPane = "_acpmux/lendPane"
	// MethodPaneDraw (PaneDrawParams) is the TUI's own drawing, written to
	// the terminal in the order it comes, between the server's rows.
	MethodPaneDraw = "_acpmux/paneDraw"
	// MethodPaneBack ({}) ends the loan; NotifyPaneEnded follows.
	MethodPaneBack = "_acpmux/paneBack"
	// NotifyPaneEnded (PaneEndedParams) says the loan is over.
	NotifyPaneEnded = "_acpmux/paneEnded"
)

// MaxHandBack bounds LendPaneParams.HandBack; MaxCursorSGR bounds each of
// its cursor strings.
const (
	MaxHandBack  = 32
	MaxCursorSGR = 64
)

// LendPaneParams are the params of MethodLendPane. X and Y are the pane's
// top left cell on the terminal (0-based); Cols and Rows its size, which
// must be the chat's. CursorOn and CursorOff are the SGR sequences the TUI
// draws the harness's cursor cell between (both "" draws none). HandBack
// are single bytes that go back to the TUI rather than to the chat (its
// leave key); ESC always does.
type LendPaneParams struct {
	ID        string `json:"id"`
	X         int    `json:"x"`
	Y         int    `json:"y"`
	Cols      int    `json:"cols"`
	Rows      int    `json:"rows"`
	CursorOn  string `json:"cursorOn,omitempty"`
	CursorOff string `json:"cursorOff,omitempty"`
	HandBack  []byte `json:"handBack,omitempty"`
}

// PaneDrawParams are the params of MethodPaneDraw: bytes for the terminal,
// and their number in the TUI's count of its drawings.
type PaneDrawParams struct {
	Seq  uint64 `json:"seq"`
	Data []byte `json:"data"`
}

// PaneEndedParams are the params of NotifyPaneEnded. Rest is what was read
// of the terminal and not typed into the chat, from the first key handed
// back on; Why says why the loan ended, for logs. Drawn is the Seq of the
// TUI's last drawing written, and Lost is set when something given to be
// written was not: unless Drawn is its last and Lost is unset, the TUI
// draws its whole screen again.
type PaneEndedParams struct {
	ID    string `json:"id"`
	Rest  []byte `json:"rest,omitempty"`
	Why   string `json:"why,omitempty"`
	Drawn uint64 `json:"drawn"`
	Lost  bool   `json:"lost,omitempty"`
}

// PaneEnd reasons (PaneEndedParams.Why).
const (
	PaneEndKey      = "key"      // a key the TUI keeps was typed
	PaneEndBack     = "back"     // the TUI asked for it back
	PaneEndChat     = "chat"     // the chat stopped, changed size or went
	PaneEndBehind   = "behind"   // the terminal fell too far behind
	PaneEndTerminal = "terminal" // the terminal ended (hung up, or an error)
	PaneEndClosed   = "closed"   // the connection closed
)
