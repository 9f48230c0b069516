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
	// MethodAttachTerminal lends the chat the client's terminal itself, as
	// tmux's server is lent its clients' terminals: the connection's first
	// message, AttachParams (no resync), sent with two descriptors
	// (SCM_RIGHTS), the terminal's input and its output, which the client
	// has put in raw mode. The server answers {} once the chat is started,
	// then draws it and writes the harness's output to the terminal, and
	// reads the keys from it, until DetachKey is read (NotifyDetached), the
	// harness ends (NotifyExited), the client calls MethodDetach (its
	// answer) or the connection ends. Before it tells the client, it has
	// reset every mode the harness set and let go of the descriptors: the
	// client then restores its termios and the blocking mode the server
	// set on the terminal. MethodAttachResize sets the size. A server that
	// does not know it answers Method not found, and the client attaches
	// with MethodAttach. A key's way then has no client process on it.
	MethodAttachTerminal = "_acpmux/attachTerminal"

	// NotifyOutput carries OutputParams: the harness's raw output, or a
	// new redraw. Output that comes faster than the client reads is
	// gathered into one notification; past MaxAttachPending bytes waiting
	// it is dropped and a fresh redraw is sent instead.
	NotifyOutput = "_acpmux/output"
	// NotifyExited carries ExitedParams: the harness has ended and will not
	// be started again by itself. The stream is over.
	NotifyExited = "_acpmux/exited"
	// NotifyDetached carries DetachParams: the server read DetachKey from a
	// terminal handed over to it (MethodAttachTerminal), or the terminal
	// hung up. The stream is over; the harness keeps running.
	NotifyDetached = "_acpmux/detached"
	// NotifyModes carries ModesParams to a client that lent its terminal,
	// whenever what would give the terminal back changes: a client whose
	// server dies under it writes the last one itself.
	NotifyModes = "_acpmux/modes"
)

// ModesParams are the params of NotifyModes: Reset is the bytes that put
// the terminal back as it was lent (base64 on the wire).
type ModesParams struct {
	ID    string `json:"id"`
	Reset []byte `json:"reset"`
}

// DetachKey is ctrl+], the byte that leaves an attached chat.
const DetachKey = 0x1d

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
