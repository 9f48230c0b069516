// Package client is how the commands and the TUI reach the server of an
// agent home, or of another host over OpenSSH: dialing its socket (or the
// ssh link), calling its JSON-RPC methods, following its chats (Remote, and
// Router across hosts), and starting it in the background when none
// answers.
package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/internal/rpcline"
	"github.com/acpmux/acpmux-tui/proto"
)

// ErrNoServer is returned by Dial when no server answers on the agent
// home's socket: there is none, or only the socket of one that died.
var ErrNoServer = errors.New("no server running")

// maxAnswer bounds one answer the client reads (a list of many chats is a
// few megabytes); a longer line ends the connection.
const maxAnswer = 64 << 20

// RPCError is an error the server answered with.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error returns the server's message and code.
func (e *RPCError) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

// Conn is one connection to a server. Calls may be made from several
// goroutines at once; each answer reaches its caller by id.
type Conn struct {
	nc net.Conn

	wmu sync.Mutex // one line written at a time

	// fromHost is set for a connection to another host (over ssh):
	// everything it sends is cleaned as it is read (cleanFromHost).
	fromHost bool

	mu      sync.Mutex
	nextID  int64
	pending map[int64]pendingCall
	err     error // why the connection ended
	// unmatched is the last error the server sent with a null id (a line
	// it could not read): it explains a connection it then closed.
	unmatched *RPCError

	done chan struct{} // closed when the reader ends

	// notified hears the server's notifications (see OnNotify).
	notified atomic.Pointer[func(method string, params json.RawMessage)]
}

// pendingCall is a call waiting for its answer: on ch for Call, through
// done for Go.
type pendingCall struct {
	ch     chan answer
	done   func(error)
	method string
}

// answer is one line from the server: an answer to a call (id set), or a
// notification (method set, no id).
type answer struct {
	ID     *int64
	Result json.RawMessage
	Error  *RPCError
	Method string
	Params json.RawMessage
}

// OnNotify sets the function that hears the server's notifications (a
// message with a method and no id), replacing any before it. It runs on the
// connection's reader goroutine, one notification at a time and in order:
// it must not block, nor make a call on this connection and wait for the
// answer. params is valid only until it returns. Notifications that
// arrive while none is set are dropped.
func (c *Conn) OnNotify(fn func(method string, params json.RawMessage)) {
	c.notified.Store(&fn)
}

// Dial connects to the agent home's server. It returns ErrNoServer when no
// server answers; it never starts one.
func Dial(home string) (*Conn, error) {
	nc, err := DialSocket(home)
	if err != nil {
		return nil, err
	}
	return newConn(nc), nil
}

// DialSocket connects to the agent home's server socket and returns the
// bare connection (what `acpmux-tui proxy` bridges); ErrNoServer when no
// server answers.
func DialSocket(home string) (*net.UnixConn, error) {
	path := proto.SocketPath(home)
	addr, release, err := proto.ShortAddr(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w for %s", ErrNoServer, home)
	}
	if err != nil {
		return nil, fmt.Errorf("connect to the server: %w", err)
	}
	nc, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: addr, Net: "unix"})
	release()
	if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
		return nil, fmt.Errorf("%w for %s", ErrNoServer, home)
	}
	if err != nil {
		return nil, fmt.Errorf("connect to the server at %s: %w", path, err)
	}
	return nc, nil
}

func newConn(nc net.Conn) *Conn {
	c := &Conn{nc: nc, pending: map[int64]pendingCall{}, done: make(chan struct{})}
	// A link over ssh is to another host, whatever dialled it: what that
	// host sends is cleaned before anything reads it.
	_, c.fromHost = nc.(*sshLink)
	go c.readLoop()
	return c
}

// Close closes the connection; calls under way fail.
func (c *Conn) Close() error {
	err := c.nc.Close()
	<-c.done
	return err
}

// Done is closed once the connection has ended (the server closed it, or
// Close was called).
func (c *Conn) Done() <-chan struct{} { return c.done }

// Call calls method with params (nil sends none) and decodes the result
// into result (nil ignores it). An error answer is an *RPCError.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	ch := make(chan answer, 1)
	id, err := c.register(pendingCall{ch: ch, method: method})
	if err != nil {
		return err
	}
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()

	line, err := requestLine(id, method, params)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if err := c.writeLine(ctx, line); err != nil {
		return fmt.Errorf("%s: %w", method, connError(err))
	}
	select {
	case a := <-ch:
		if a.Error != nil {
			return a.Error
		}
		if result != nil {
			if err := json.Unmarshal(a.Result, result); err != nil {
				return fmt.Errorf("%s: read the answer: %w", method, err)
			}
		}
		return nil
	case <-c.done:
		// The answer may have come just before the end.
		select {
		case a := <-ch:
			if a.Error != nil {
				return a.Error
			}
			if result != nil {
				return json.Unmarshal(a.Result, result)
			}
			return nil
		default:
		}
		c.mu.Lock()
		err := c.err
		c.mu.Unlock()
		return fmt.Errorf("%s: %w", method, err)
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// register numbers a call and keeps it to hear its answer, unless the
// connection has ended (its cause).
func (c *Conn) register(call pendingCall) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	c.nextID++
	c.pending[c.nextID] = call
	return c.nextID, nil
}

// Go sends a call and returns once its line is written, without waiting
// for the answer: done hears the answer's error (nil when it succeeded;
// the result is not read) on the connection's reader goroutine, or the
// connection's end. done must not block. A key typed in the TUI goes so,
// from the TUI's own goroutine: no goroutine waits for its answer, and
// none is woken to send it.
func (c *Conn) Go(method string, params any, done func(error)) error {
	id, err := c.register(pendingCall{done: done, method: method})
	if err != nil {
		return err
	}
	line, err := requestLine(id, method, params)
	if err == nil {
		err = c.writeLine(context.Background(), line)
		if err != nil {
			err = connError(err)
		}
	}
	if err == nil {
		return nil
	}
	c.mu.Lock()
	_, waiting := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if !waiting {
		return nil // the reader ended meanwhile, and told done
	}
	return fmt.Errorf("%s: %w", method, err)
}

// jsonAppender is params that write themselves as JSON (a key's
// proto.WriteParams), with no reflection.
type jsonAppender interface{ AppendJSON([]byte) []byte }

// requestLine returns the line of a call, newline included.
func requestLine(id int64, method string, params any) ([]byte, error) {
	if p, ok := params.(jsonAppender); ok {
		b := append([]byte(`{"jsonrpc":"2.0","id":`), strconv.FormatInt(id, 10)...)
		b = append(b, `,"method":`...)
		b = rpcline.AppendString(b, method)
		b = append(b, `,"params":`...)
		b = p.AppendJSON(b)
		return append(b, "}\n"...), nil
	}
	req := struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{"2.0", id, method, params}
	line, err := json.Marshal(req)
	return append(line, '\n'), err
}

// Hello asks the server for its version and pid.
func (c *Conn) Hello(ctx context.Context) (proto.HelloResult, error) {
	var h proto.HelloResult
	err := c.Call(ctx, proto.MethodHello, struct{}{}, &h)
	return h, err
}

// writeLine writes one line whole, within ctx's deadline.
func (c *Conn) writeLine(ctx context.Context, line []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	deadline, _ := ctx.Deadline() // the zero time when there is none
	c.nc.SetWriteDeadline(deadline)
	// A cancelled ctx ends a write the server is not reading.
	stop := context.AfterFunc(ctx, func() { c.nc.SetWriteDeadline(time.Now()) })
	defer stop()
	_, err := c.nc.Write(line)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// readLoop hands each answer to its caller until the connection ends.
func (c *Conn) readLoop() {
	defer close(c.done)
	r := bufio.NewReaderSize(c.nc, 64<<10)
	var buf []byte
	var err error
	for {
		buf, err = readLine(r, buf[:0], maxAnswer)
		if err != nil {
			break
		}
		a, ok := parseAnswer(buf)
		if !ok {
			continue // not an answer this client understands
		}
		if a.ID == nil && a.Method != "" {
			if fn := c.notified.Load(); fn != nil && *fn != nil {
				if c.fromHost {
					a = cleanFromHost(a, a.Method)
				}
				(*fn)(a.Method, a.Params)
			}
			continue
		}
		if a.ID == nil {
			if a.Error != nil {
				if c.fromHost {
					a = cleanFromHost(a, "")
				}
				c.mu.Lock()
				c.unmatched = a.Error
				c.mu.Unlock()
			}
			continue
		}
		c.mu.Lock()
		call := c.pending[*a.ID]
		if call.done != nil {
			delete(c.pending, *a.ID)
		}
		c.mu.Unlock()
		if call.done != nil {
			if a.Error != nil {
				if c.fromHost {
					a = cleanFromHost(a, call.method)
				}
				call.done(a.Error)
			} else {
				call.done(nil)
			}
			continue
		}
		if call.ch != nil {
			if c.fromHost {
				a = cleanFromHost(a, call.method)
			}
			select {
			case call.ch <- a:
			default: // a second answer to one id: the first stands
			}
		}
	}
	c.mu.Lock()
	switch {
	case c.unmatched != nil:
		c.err = fmt.Errorf("the server closed the connection: %w", c.unmatched)
	default:
		c.err = connError(err)
	}
	var orphans []pendingCall
	for id, call := range c.pending {
		if call.done != nil {
			orphans = append(orphans, call)
			delete(c.pending, id)
		}
	}
	cause := c.err
	c.mu.Unlock()
	for _, call := range orphans {
		call.done(fmt.Errorf("%s: %w", call.method, cause))
	}
}

// parseAnswer reads one line from the server. Params is line's own bytes,
// for a notification's function to decode before the next line is read;
// Result is a copy, read by the caller's goroutine. ok is false for a line
// that is not an answer or a notification.
func parseAnswer(line []byte) (a answer, ok bool) {
	if !json.Valid(line) {
		return answer{}, false
	}
	m, ok := rpcline.Split(line)
	if !ok {
		return answer{}, false
	}
	if m.Method != nil {
		if a.Method, ok = rpcline.Unquote(m.Method); !ok {
			return answer{}, false
		}
	}
	if m.ID != nil && string(m.ID) != "null" {
		id, err := strconv.ParseInt(string(m.ID), 10, 64)
		if err != nil {
			return answer{}, false
		}
		a.ID = &id
	}
	if m.Error != nil && string(m.Error) != "null" {
		a.Error = &RPCError{}
		if json.Unmarshal(m.Error, a.Error) != nil {
			return answer{}, false
		}
	}
	a.Params = json.RawMessage(m.Params)
	a.Result = bytes.Clone(m.Result)
	return a, true
}

// errServerClosed is a connection the server closed.
var errServerClosed = errors.New("the server closed the connection")

// connError says what a failed read or write of the socket means.
func connError(err error) error {
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return errServerClosed
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	// The socket's own address says nothing useful (the server binds under
	// a temporary name): the cause alone is shown.
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return fmt.Errorf("connection to the server: %w", errno)
	}
	return fmt.Errorf("connection to the server: %w", err)
}

// readLine reads one line of at most max bytes into buf, without its
// newline.
func readLine(r *bufio.Reader, buf []byte, max int) ([]byte, error) {
	for {
		frag, err := r.ReadSlice('\n')
		if len(buf)+len(frag) > max+1 {
			return nil, fmt.Errorf("an answer over %d bytes", max)
		}
		buf = append(buf, frag...)
		switch {
		case err == nil:
			return buf[:len(buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
		default:
			return nil, err
		}
	}
}

// Notify sends a notification: a call that is not answered.
func (c *Conn) Notify(method string, params any) error {
	line, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{"2.0", method, params})
	if err != nil {
		return err
	}
	return c.writeLine(context.Background(), append(line, '\n'))
}
