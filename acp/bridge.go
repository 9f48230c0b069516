package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"

	"github.com/acpmux/acpmux-tui/internal/rpcline"
	sdk "github.com/coder/acp-go-sdk"
)

// This file is `acpmux-tui acp`: an ACP agent on stdin and stdout that is
// the server's door, bridged line for line to the server's socket. The
// bridge adds only what stdio needs: the harness of --harness in
// initialize's _meta, initialize before anything else (so the connection
// speaks ACP), and an error answer to every request still open when the
// server goes away (a kill -9), so that a client never waits on an agent
// that is gone.

// MaxLine is the longest line the bridge reads from its client (the
// server's own limit on a line).
const MaxLine = 8 << 20

// maxServerLine bounds a line from the server (a replay's update, a list
// of many chats).
const maxServerLine = 64 << 20

// BridgeOptions configure a bridge.
type BridgeOptions struct {
	// Harness, when set, is the harness new chats get (MetaHarness).
	Harness string
	// Logger hears what the bridge does; nothing of it reaches stdout.
	Logger *slog.Logger
}

// ErrServerGone is the bridge's end when the server closed the socket.
var ErrServerGone = errors.New("the acpmux-tui server closed the connection")

// bridge is one running bridge.
type bridge struct {
	o   BridgeOptions
	out io.Writer
	sc  net.Conn

	wmu sync.Mutex // one line to out at a time

	mu      sync.Mutex
	pending map[string]bool // ids of the client's requests not answered yet
	inited  bool            // initialize has gone to the server
}

// Bridge carries ACP between a client on in and out and the server's socket
// sc until the client closes in (nil) or the server goes away
// (ErrServerGone, after every open request has been answered with an
// error). It closes sc.
func Bridge(in io.Reader, out io.Writer, sc net.Conn, o BridgeOptions) error {
	b := newBridge(out, sc, o)
	defer sc.Close()
	clientDone := make(chan error, 1)
	serverDone := make(chan error, 1)
	go func() { clientDone <- b.fromClient(in) }()
	go func() { serverDone <- b.fromServer() }()
	select {
	case err := <-clientDone:
		// The client has gone: its turns go on in the server.
		return err
	case err := <-serverDone:
		b.answerPending(err)
		return fmt.Errorf("%w: %v", ErrServerGone, err)
	}
}

func newBridge(out io.Writer, sc net.Conn, o BridgeOptions) *bridge {
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &bridge{o: o, out: out, sc: sc, pending: map[string]bool{}}
}

// fromClient forwards the client's lines to the server.
func (b *bridge) fromClient(in io.Reader) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := readLine(r, MaxLine)
		if errors.Is(err, errLineTooLong) {
			b.writeError(nil, CodeInvalidRequest, fmt.Sprintf("Invalid Request: a line over %d bytes; connection closed", MaxLine))
			return fmt.Errorf("the client sent a line over %d bytes", MaxLine)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read the client: %w", err)
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if line, err = b.toServer(line); err != nil {
			return err
		}
		if line == nil {
			continue
		}
		if _, err := b.sc.Write(append(line, '\n')); err != nil {
			return fmt.Errorf("write to the server: %w", err)
		}
	}
}

// toServer is the line to send for a line of the client's (nil: none).
func (b *bridge) toServer(line []byte) ([]byte, error) {
	if !json.Valid(line) {
		return line, nil // the server answers -32700
	}
	m, ok := rpcline.Split(line)
	if !ok || m.Method == nil {
		return line, nil // a response to a request of the server's, or not a message
	}
	method, _ := rpcline.Unquote(m.Method)
	b.mu.Lock()
	inited := b.inited
	b.mu.Unlock()
	if !inited && method != sdk.AgentMethodInitialize {
		if m.ID != nil {
			b.writeError(m.ID, CodeInvalidRequest, "Invalid Request: initialize first")
		}
		return nil, nil
	}
	if method == sdk.AgentMethodInitialize && b.o.Harness != "" {
		withMeta, err := setMeta(line, MetaHarness, b.o.Harness)
		if err != nil {
			// Not an object with object params: the server says why.
			b.o.Logger.Debug("initialize left as sent", "err", err)
		} else {
			line = withMeta
		}
	}
	b.mu.Lock()
	if method == sdk.AgentMethodInitialize {
		b.inited = true
	}
	if m.ID != nil {
		b.pending[string(m.ID)] = true
	}
	b.mu.Unlock()
	return line, nil
}

// setMeta sets params._meta[key] of a request line.
func setMeta(line []byte, key, value string) ([]byte, error) {
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(line, &msg); err != nil {
		return nil, err
	}
	params, err := WithMeta(msg["params"], key, value)
	if err != nil {
		return nil, err
	}
	msg["params"] = params
	return json.Marshal(msg)
}

// WithMeta returns a request's params (an object, or nil when left out)
// with _meta[key] set to value.
func WithMeta(raw json.RawMessage, key, value string) (json.RawMessage, error) {
	params := map[string]json.RawMessage{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &params); err != nil {
			return nil, err
		}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := params["_meta"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, err
		}
	}
	v, _ := json.Marshal(value)
	meta[key] = v
	var err error
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	return json.Marshal(params)
}

// fromServer copies the server's lines to the client until the socket
// ends, and returns why.
func (b *bridge) fromServer() error {
	r := bufio.NewReaderSize(b.sc, 64<<10)
	for {
		line, err := readLine(r, maxServerLine)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return errors.New("end of the socket")
			}
			return err
		}
		if m, ok := rpcline.Split(line); ok && m.Method == nil && m.ID != nil {
			b.mu.Lock()
			delete(b.pending, string(m.ID))
			b.mu.Unlock()
		}
		b.wmu.Lock()
		_, err = b.out.Write(append(line, '\n'))
		b.wmu.Unlock()
		if err != nil {
			return fmt.Errorf("write to the client: %w", err)
		}
	}
}

// answerPending answers every request the server will not answer now.
func (b *bridge) answerPending(why error) {
	b.mu.Lock()
	ids := make([]string, 0, len(b.pending))
	for id := range b.pending {
		ids = append(ids, id)
	}
	clear(b.pending)
	b.mu.Unlock()
	for _, id := range ids {
		b.writeError(json.RawMessage(id), CodeInternalError, GoneMessage(why))
	}
	b.o.Logger.Warn("the server went away under the ACP door", "err", why, "answered", len(ids))
}

// GoneMessage is the error message of the answer a client gets for a
// request left open when the server went away (why).
func GoneMessage(why error) string {
	return fmt.Sprintf("Internal error: the acpmux-tui server went away (%v); the chat is kept: load it again", why)
}

// ErrorLine is the line of an error answer to id (null when nil), newline
// included.
func ErrorLine(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	line, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   any             `json:"error"`
	}{"2.0", id, map[string]any{"code": code, "message": message}})
	if err != nil {
		return nil // an id that is not JSON
	}
	return append(line, '\n')
}

// writeError writes an error answer of the bridge's own.
func (b *bridge) writeError(id json.RawMessage, code int, message string) {
	line := ErrorLine(id, code, message)
	if line == nil {
		return
	}
	b.wmu.Lock()
	defer b.wmu.Unlock()
	b.out.Write(line)
}

// errLineTooLong is a line over the limit.
var errLineTooLong = errors.New("line over the size limit")

// readLine reads one line (without its newline) of at most max bytes; a
// last line without a newline is returned at EOF.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var buf []byte
	for {
		frag, err := r.ReadSlice('\n')
		n := len(buf) + len(frag)
		if err == nil {
			n--
		}
		if n > max {
			return nil, errLineTooLong
		}
		switch {
		case err == nil:
			return append(buf, frag[:len(frag)-1]...), nil
		case errors.Is(err, bufio.ErrBufferFull):
			buf = append(buf, frag...)
		case errors.Is(err, io.EOF) && n > 0:
			return append(buf, frag...), nil
		default:
			return nil, err
		}
	}
}
