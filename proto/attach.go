package proto

// This file is the part of the wire `acpmux-tui attach` speaks: one pty
// chat shown in a terminal as the harness draws it. The client gets a redraw
// of the chat's screen, then the raw output, and sends keys and sizes. A
// stream is in generations: each redraw starts one, and output belongs to
// the generation of the redraw before it, so a client can tell output that
// follows the redraw it has from output it must drop, whatever order an
// answer and a notification reach it in.

// The methods of an attached client.
const (
	// MethodAttach starts the chat's harness unless it runs, sizes its pty
	// to {cols, rows}, and answers AttachResult: a redraw of its screen.
	// NotifyOutput then streams its output to the connection until
	// MethodDetach, the harness's end (NotifyExited) or the connection's
	// end. With resync set it only starts a new generation of a stream the
	// connection has (a client that fell behind). An ACP chat is refused
	// with -32602.
	MethodAttach = "_acpmux/attach"
	// MethodAttachInput sends {id, data} to the harness of a chat the
	// connection is attached to. The pty first takes the size of this
	// client when it differs: the client that last typed or resized sizes
	// it.
	MethodAttachInput = "_acpmux/attachInput"
	// MethodAttachResize sets the size of this client's terminal, and the
	// chat's pty to it.
	MethodAttachResize = "_acpmux/attachResize"
	// MethodDetach ends the stream; the harness keeps running.
	MethodDetach = "_acpmux/detach"

	// NotifyOutput carries OutputParams: the harness's raw output, or a
	// new redraw. Output that comes faster than the client reads is
	// gathered into one notification; past MaxAttachPending bytes waiting
	// it is dropped and a fresh redraw is sent instead.
	NotifyOutput = "_acpmux/output"
	// NotifyExited carries ExitedParams: the harness has ended and will not
	// be started again by itself. The stream is over.
	NotifyExited = "_acpmux/exited"
)

// MaxAttachPending is how much output may wait to be sent to one attached
// client before it is dropped for a redraw.
const MaxAttachPending = 1 << 20

// AttachParams are the params of MethodAttach: the chat and the size of the
// client's terminal (0: keep the chat's size).
type AttachParams struct {
	ID     string `json:"id"`
	Cols   int    `json:"cols,omitempty"`
	Rows   int    `json:"rows,omitempty"`
	Resync bool   `json:"resync,omitempty"`
}

// AttachResult is the answer to MethodAttach: the bytes that draw the chat's
// screen and set its terminal modes on a terminal of the client's size
// (base64 on the wire; empty for a chat that has never run), and their
// generation.
type AttachResult struct {
	Snapshot []byte `json:"snapshot"`
	Gen      uint64 `json:"gen"`
}

// AttachInputParams are the params of MethodAttachInput; Data is base64 on
// the wire.
type AttachInputParams struct {
	ID   string `json:"id"`
	Data []byte `json:"data"`
}

// AttachResizeParams are the params of MethodAttachResize.
type AttachResizeParams struct {
	ID   string `json:"id"`
	Cols int    `json:"cols"`
	Rows int    `json:"rows"`
}

// DetachParams are the params of MethodDetach.
type DetachParams struct {
	ID string `json:"id"`
}

// OutputParams are the params of NotifyOutput. Data follows the redraw of
// generation Gen; with Snapshot set, Data is that redraw, which replaces
// everything before it.
type OutputParams struct {
	ID       string `json:"id"`
	Gen      uint64 `json:"gen"`
	Snapshot bool   `json:"snapshot,omitempty"`
	Data     []byte `json:"data"`
}

// ExitedParams are the params of NotifyExited, sent after the output of
// generation Gen: How says how the harness ended as attach prints it
// ("exit status 0", "stopped"), Status is the chat's status then
// ("exited", "stopped", "failed") and ExitCode its exit status (-1 for a
// signal).
type ExitedParams struct {
	ID       string `json:"id"`
	Gen      uint64 `json:"gen"`
	How      string `json:"how"`
	Status   string `json:"status"`
	ExitCode int    `json:"exitCode"`
}
