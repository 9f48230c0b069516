package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
)

// wsConn is one WebSocket seen as the net.Conn the server reads JSON-RPC
// lines from: each text frame the page sends is one line, and each line
// the server writes is one text frame.
//
// A reader goroutine takes the frames off the WebSocket for the whole of
// its life and hands each line over to Read, one at a time. Read waits for
// that hand-over beside its deadline and the close, so a read deadline that
// passes interrupts a Read and leaves the WebSocket open: the server ends a
// connection by setting its read deadline to now and then writing the
// answers already due, as it does on a unix socket. (Cancelling
// coder/websocket's own Read instead would close the connection at once,
// and those answers with it.) The reader holds at most one line that
// nobody has asked for, so a client that sends faster than the server
// reads waits in TCP, as it would on the socket.
type wsConn struct {
	ws            *websocket.Conn
	raw           net.Conn // the hijacked TCP (or TLS) connection, closed by force when a close hangs
	local, remote net.Addr
	log           *slog.Logger
	maxMessage    int

	// ctx is the WebSocket's life: the reader reads under it, and every
	// write is bounded by it. It ends once the close handshake is over.
	ctx    context.Context
	cancel context.CancelFunc

	lines    chan []byte   // the reader's hand-over to Read
	readDone chan struct{} // closed when the reader stops; readErr says why
	readErr  error

	rmu  sync.Mutex // one Read at a time; guards rest
	rest []byte     // what the last Read left of its line

	wmu     sync.Mutex // one Write at a time; guards partial
	partial []byte     // a line a Write began and did not end

	rdl, wdl *deadline

	closeOnce sync.Once
	closing   chan struct{} // closed by Close: Read and Write fail from then on
	done      chan struct{} // closed once the WebSocket and its TCP connection are closed
}

func newWSConn(ws *websocket.Conn, raw net.Conn, log *slog.Logger, maxMessage int) *wsConn {
	ctx, cancel := context.WithCancel(context.Background())
	c := &wsConn{
		ws: ws, raw: raw, local: raw.LocalAddr(), remote: raw.RemoteAddr(), log: log, maxMessage: maxMessage,
		ctx: ctx, cancel: cancel,
		lines: make(chan []byte), readDone: make(chan struct{}),
		rdl: newDeadline(), wdl: newDeadline(),
		closing: make(chan struct{}), done: make(chan struct{}),
	}
	go c.readLoop()
	return c
}

// readLoop reads the WebSocket's messages until it fails or closes.
func (c *wsConn) readLoop() {
	defer close(c.readDone)
	for {
		typ, r, err := c.ws.Reader(c.ctx)
		if err != nil {
			c.readErr = c.readFailed(err)
			return
		}
		if typ != websocket.MessageText {
			c.log.Debug("web: closed a WebSocket that sent a binary frame", "remote", c.remote.String())
			c.readErr = c.opError("read", errors.New("the client sent a binary frame: JSON-RPC travels in text frames"))
			c.ws.Close(websocket.StatusUnsupportedData, "JSON-RPC travels in text frames")
			return
		}
		b, err := io.ReadAll(r)
		if err != nil {
			c.readErr = c.readFailed(err)
			return
		}
		select {
		case c.lines <- toLine(b):
		case <-c.ctx.Done():
			c.readErr = c.opError("read", net.ErrClosed)
			return
		}
	}
}

// readFailed turns the reader's error into what Read returns: io.EOF for a
// client that closed normally, net.ErrClosed once Close has begun.
func (c *wsConn) readFailed(err error) error {
	switch {
	case websocket.CloseStatus(err) == websocket.StatusNormalClosure, websocket.CloseStatus(err) == websocket.StatusGoingAway:
		return io.EOF
	case errors.Is(err, websocket.ErrMessageTooBig):
		c.log.Warn("web: closed a WebSocket that sent a message over the limit", "max", c.maxMessage, "remote", c.remote.String())
		return c.opError("read", fmt.Errorf("a message over %d bytes", c.maxMessage))
	case isClosed(c.closing):
		return c.opError("read", net.ErrClosed)
	}
	return c.opError("read", err)
}

// toLine makes one message a line: valid JSON compacted (a pretty-printed
// object arrives as one line), anything else with its line breaks made
// spaces, so that it stays one line and the server answers it -32700.
func toLine(b []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(b) + 1)
	if json.Compact(&out, b) == nil {
		out.WriteByte('\n')
		return out.Bytes()
	}
	line := make([]byte, len(b)+1)
	for i, ch := range b {
		if ch == '\r' || ch == '\n' {
			ch = ' '
		}
		line[i] = ch
	}
	line[len(b)] = '\n'
	return line
}

// Read reads the lines the client sent, in order.
func (c *wsConn) Read(p []byte) (int, error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if err := c.stopped("read", c.rdl); err != nil {
		return 0, err
	}
	if len(c.rest) > 0 {
		n := copy(p, c.rest)
		c.rest = c.rest[n:]
		return n, nil
	}
	if len(p) == 0 {
		return 0, nil
	}
	select {
	case line := <-c.lines:
		n := copy(p, line)
		c.rest = line[n:]
		return n, nil
	case <-c.readDone:
		return 0, c.readErr
	case <-c.closing:
		return 0, c.opError("read", net.ErrClosed)
	case <-c.rdl.wait():
		return 0, c.opError("read", os.ErrDeadlineExceeded)
	}
}

// stopped is the error a Read or Write meets before it starts: the
// connection closed, or its deadline passed.
func (c *wsConn) stopped(op string, d *deadline) error {
	if isClosed(c.closing) {
		return c.opError(op, net.ErrClosed)
	}
	if isClosed(d.wait()) {
		return c.opError(op, os.ErrDeadlineExceeded)
	}
	return nil
}

// writeCloseGrace is how long a Write under way when Close is called may
// go on before it is cut.
const writeCloseGrace = time.Second

// Write sends each whole line of p as one text frame, without its '\n'.
// The server writes whole lines; a piece after the last '\n' waits for the
// rest of its line in the next Write. A write that its deadline interrupts,
// or a Close after writeCloseGrace, closes the WebSocket (coder/websocket
// cannot stop a frame half sent and go on), as a server drops a client
// whose write timed out.
func (c *wsConn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.stopped("write", c.wdl); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	finished := make(chan struct{})
	defer close(finished)
	passed := c.wdl.wait()
	go func() {
		select {
		case <-passed:
			cancel()
		case <-c.closing:
			// A write under way may end first: cancelling it at once
			// could cut the connection just after its frame went out,
			// before the close frame. One that hangs is cut.
			hung := time.NewTimer(writeCloseGrace)
			defer hung.Stop()
			select {
			case <-passed:
				cancel()
			case <-hung.C:
				cancel()
			case <-finished:
			}
		case <-finished:
		}
	}()
	written := 0
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			c.partial = append(c.partial, p...)
			return written + len(p), nil
		}
		line := p[:i]
		if len(c.partial) > 0 {
			line = append(c.partial, line...)
			c.partial = nil
		}
		if len(line) > 0 {
			if err := c.ws.Write(ctx, websocket.MessageText, validUTF8(line)); err != nil {
				return written, c.writeFailed(err)
			}
		}
		written += i + 1
		p = p[i+1:]
	}
	return written, nil
}

// validUTF8 keeps a text frame valid UTF-8, as RFC 6455 requires of one: a
// browser fails the whole connection on a frame that is not. The server's
// JSON is valid already; this guards what it relays.
func validUTF8(line []byte) []byte {
	if utf8.Valid(line) {
		return line
	}
	return bytes.ToValidUTF8(line, []byte("\uFFFD"))
}

func (c *wsConn) writeFailed(err error) error {
	switch {
	case isClosed(c.wdl.wait()):
		return c.opError("write", os.ErrDeadlineExceeded)
	case isClosed(c.closing):
		return c.opError("write", net.ErrClosed)
	}
	return c.opError("write", err)
}

// Close sends a normal close and returns at once: the close handshake
// (bounded by coder/websocket's five-second waits) goes on in a goroutine,
// so a server dropping a client that stopped reading never waits on it.
// Read and Write fail from the moment Close is called. A second Close does
// nothing.
func (c *wsConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closing)
		go c.shut()
	})
	return nil
}

// shut ends the WebSocket: the close frame, the peer's answer, the TCP
// connection; then the reader.
func (c *wsConn) shut() {
	defer close(c.done)
	c.ws.Close(websocket.StatusNormalClosure, "")
	c.cancel()
	<-c.readDone
}

// forceClose closes the TCP connection under the WebSocket, for a close
// handshake that hangs: whatever waits on the connection fails at once.
func (c *wsConn) forceClose() { c.raw.Close() }

// LocalAddr is the server's end of the TCP connection.
func (c *wsConn) LocalAddr() net.Addr { return c.local }

// RemoteAddr is the client's end of the TCP connection.
func (c *wsConn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline sets the read and the write deadline.
func (c *wsConn) SetDeadline(t time.Time) error {
	c.rdl.set(t)
	c.wdl.set(t)
	return nil
}

// SetReadDeadline bounds the Reads to come and the one under way; a time
// already past interrupts a Read that waits and leaves the WebSocket open.
func (c *wsConn) SetReadDeadline(t time.Time) error {
	c.rdl.set(t)
	return nil
}

// SetWriteDeadline bounds the Writes to come and the one under way.
func (c *wsConn) SetWriteDeadline(t time.Time) error {
	c.wdl.set(t)
	return nil
}

func (c *wsConn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "websocket", Source: c.local, Addr: c.remote, Err: err}
}
