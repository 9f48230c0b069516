package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/acp"
	"github.com/acpmux/acpmux-tui/internal/rawio"
	"github.com/acpmux/acpmux-tui/proto"
)

// maxInFlight bounds the calls one connection may have running at once;
// past it the server stops reading that connection until one ends.
const maxInFlight = 32

// conn is one client connection. A reader goroutine decodes lines and runs
// each call in a goroutine of its own, but for keys (MethodWrite,
// MethodAttachInput), which it writes itself. A line to send is written at
// once by the goroutine that sends it when nothing waits before it and the
// socket takes it whole without waiting; otherwise it goes to a bounded
// queue that one writer goroutine writes, each write with a deadline. A
// client that lets the queue fill or a write time out is dropped: the
// server, the harnesses and the other clients never wait on it.
type conn struct {
	s   *Server
	nc  net.Conn        // the unix socket, or a WebSocket of the web door
	raw syscall.RawConn // a unix socket's own, for writes that never wait
	// web is set for a connection of the web door, or one that said it
	// speaks for a web caller (MethodWebCaller): it is held to the web
	// roots and the web's narrower rights (webpolicy.go). hosts are its
	// links to other hosts (webhosts.go).
	web atomic.Bool
	// hookOnly is set on a connection of the hook-only socket: a
	// sandboxed chat's harness, which may report its turns and nothing
	// else (no chat made, started or changed from inside a sandbox).
	hookOnly bool
	hosts    hostLinks

	// wmu is held while a line is written; waiting counts the lines in
	// out and the one the writer is writing. A line may be written at
	// once only with wmu taken and nothing waiting, so lines one
	// goroutine sends go out in order.
	wmu     sync.Mutex
	waiting atomic.Int64
	out     chan []byte // answers to write, one line each
	// queued and written count the lines sent and written out: a line
	// numbered n by queued is on the wire once written reaches n (within
	// the lines other goroutines sent at the same moment).
	queued, written atomic.Uint64
	dropped         atomic.Bool
	dropOnce        sync.Once
	calls           sync.WaitGroup
	slots           chan struct{} // one per call in flight
	// prompting is the session/prompt that has the reading, while it runs
	// (conn_prompt.go).
	prompting atomic.Pointer[lentPrompt]
	// gone is closed once reading has stopped: streams to the connection
	// (prompt.go's watchers, which count as calls) end then.
	gone chan struct{}
	// attached are the chats this client shows in a terminal (attach.go).
	attached attachSet
	// terminal is the terminal the client handed over with its first
	// message (proto.MethodAttachTerminal), until an attachment takes it.
	terminal atomic.Pointer[stdio]
	// pane is the TUI's chat pane lent on this connection (lend_pane.go).
	pane atomic.Pointer[lentPane]
	// stdioDoor is set when `acpmux-tui acp` handed over its client's
	// stdio (adopt_door.go): the connection is the door on it.
	stdioDoor *adoptedDoor
	// door, set by the reader before the first call runs, makes the
	// connection speak ACP: its first call was initialize (door.go).
	door *acp.Door

	// peerPid is the connecting process (SO_PEERCRED), and peerStart its
	// start time where the kernel gives no pidfd of it (peer.go); active
	// is when the connection last sent a line or ended a call (UnixNano),
	// called whether it has sent a call, and firstCall closes it if it has
	// not within FirstCallWait (admit.go). evicted (under the server's mu)
	// marks it closed for a newcomer, and evictedWhy says why.
	peerPid    int
	peerStart  procStart
	active     atomic.Int64
	called     atomic.Bool
	firstCall  *time.Timer
	evicted    bool
	evictedWhy string
	// busy counts the calls and streams under way (hold); watches is set
	// once the client watches the chats (MethodWatch). A connection with
	// neither and no attachment is quiet: a newcomer may take its place
	// (admit.go).
	busy    atomic.Int32
	watches atomic.Bool
}

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{s: s, nc: nc, out: make(chan []byte, s.opt.QueueLen), slots: make(chan struct{}, maxInFlight), gone: make(chan struct{})}
	c.raw = rawOf(nc)
	return c
}

// serve runs the connection to its end: reading until EOF, an error, a line
// over MaxLine or a drop; then the calls under way finish, their answers
// are written (or discarded, for a dropped client), and the socket closes.
func (c *conn) serve() {
	first, err := c.firstMessage() // a client's stdio handed over (adopt.go)
	wrote := make(chan struct{})
	go func() { defer close(wrote); c.writeLoop() }()
	if err == nil {
		src := io.Reader(c.nc)
		if len(first) > 0 {
			src = io.MultiReader(bytes.NewReader(first), c.nc)
		}
		c.readLoop(newLineReader(src, proto.MaxLine))
	} else {
		close(c.gone)
	}
	// Reading may have gone on in another goroutine (conn_prompt.go).
	<-c.gone
	c.calls.Wait()
	c.hosts.closeAll()
	c.s.views.unwatch(c) // nothing is queued for it after this
	c.attached.closeAll()
	if lp := c.pane.Load(); lp != nil {
		lp.end(nil, proto.PaneEndClosed, false)
	}
	if t := c.terminal.Swap(nil); t != nil {
		t.close()
	}
	close(c.out)
	<-wrote
	if c.stdioDoor != nil {
		c.stdioDoor.ended()
	}
	c.nc.Close()
	c.s.connDone(c)
}

// readLoop reads the connection's lines and runs them until the
// connection's end, when it closes gone. It returns before that when the
// reading went on in a goroutine of its own while it ran a prompt
// (conn_prompt.go), once the prompt is answered.
func (c *conn) readLoop(lines *lineReader) {
	for {
		line, err := lines.next()
		if errors.Is(err, errLineTooLong) {
			c.s.opt.Logger.Warn("client sent a line over the limit: closing its connection", "max", proto.MaxLine)
			c.reply(nil, nil, errorf(proto.CodeInvalidRequest, "Invalid Request: a line over %d bytes; connection closed", proto.MaxLine))
			close(c.gone)
			return
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !errors.Is(err, os.ErrDeadlineExceeded) && !c.dropped.Load() {
				c.s.opt.Logger.Debug("client read", "err", err)
			}
			close(c.gone)
			return
		}
		if handedOn := c.handleLine(line, lines); handedOn {
			return
		}
		if c.dropped.Load() {
			close(c.gone)
			return
		}
	}
}

// handleLine runs one line of the connection; handedOn reports that the
// reading of lines went on in another goroutine meanwhile.
func (c *conn) handleLine(line []byte, lines *lineReader) (handedOn bool) {
	c.active.Store(time.Now().UnixNano())
	req, ok, rpcErr := DecodeLine(line)
	if rpcErr != nil {
		c.reply(req.ID, nil, rpcErr)
		return false
	}
	if c.hookOnly && ok && req.Method != proto.MethodHook && req.Method != proto.MethodHello {
		if !req.Notification() {
			c.reply(req.ID, nil, errorf(proto.CodeMethodNotFound, "Method not found: %q: this socket serves a sandboxed chat's hooks only", clipText(req.Method)))
		}
		return false
	}
	if !ok {
		if c.door != nil {
			c.doorResponse(line)
		}
		return false
	}
	if c.stdioDoor != nil && ok && !c.stdioDoor.gate(c, &req) {
		return false
	}
	if !c.called.Load() && acp.Starts(req.Method) {
		c.door = acp.NewDoor(&doorBackend{s: c.s, c: c}, c.s.opt.Version)
		if c.web.Load() {
			c.door.GrantOnceOnly()
		}
	}
	c.called.Store(true)
	if req.Method == proto.MethodHost && c.web.Load() && c.relayKeys(req) {
		return false // a key for a host: queued in order for its link (webhosts.go)
	}
	if req.Method == proto.MethodWrite || req.Method == proto.MethodAttachInput || req.Method == proto.MethodPaneDraw || c.door != nil && acp.Starts(req.Method) {
		// Keys run here, in the order they came: the mux's write never
		// waits (input a harness is not reading waits in a backlog), and
		// handing a key to a goroutine of its own cost a tenth of its
		// echo's round trip. ACP's initialize runs here too: the calls
		// after it find the door set up.
		c.run(req)
		return false
	}
	if c.door != nil && req.Method == sdk.AgentMethodSessionPrompt {
		if chat, live := c.s.promptsALiveAgent(req); live {
			return c.runPrompt(req, chat, lines)
		}
	}
	c.slots <- struct{}{}
	c.hold()
	go func() {
		defer c.release()
		defer func() { <-c.slots }()
		c.run(req)
	}()
	return false
}

// hold counts a call or a stream under way on the connection (a call's
// goroutine, a chat feed's watcher): until release, the connection's
// queue stays open and the connection is not quiet.
func (c *conn) hold() {
	c.calls.Add(1)
	c.busy.Add(1)
}

// release ends what hold began: the connection was active until now.
func (c *conn) release() {
	c.active.Store(time.Now().UnixNano())
	c.busy.Add(-1)
	c.calls.Done()
}

// quiet reports whether nothing goes on for the connection: no call or
// stream under way (a prompt waiting on its turn, an ACP session's
// updates), no watch of the chats (a TUI), no attachment (attach). A
// script that made its calls and keeps the socket open is quiet; a client
// that is only waiting to be told something is not.
func (c *conn) quiet() bool {
	return c.busy.Load() == 0 && !c.watches.Load() && !c.attached.any() && c.pane.Load() == nil
}

// run makes one call and sends its answer: a web caller's call passes the
// web's rules first (webpolicy.go); an ACP connection's ACP calls go to
// its door, and _acpmux/* calls to the table, on either kind of
// connection. An ACP call that may name a harness (initialize picks the
// one new sessions get; the session methods start agents) has the config
// read again first, as an _acpmux/* call that may does (readsConfig): the
// door sees the table a moment-old edit made. A refusal is told to the
// watchers; the ACP client hears nothing it does not speak, and the last
// good config serves it.
func (c *conn) run(req Request) {
	if c.webRefused(req) {
		return
	}
	if c.door != nil && !proto.Extension(req.Method) {
		reads := acp.Starts(req.Method)
		if !reads && acp.StartsHarness(req.Method) {
			_, live := c.s.promptsALiveAgent(req)
			reads = !live
		}
		if reads {
			c.s.configBeforeCall(nil)
		}
		c.runDoor(req)
		return
	}
	result, err := c.s.call(c, req)
	if req.Method == proto.MethodWatch && err == nil {
		c.watches.Store(true) // there is no unwatch: for the connection's life
	}
	if !req.Notification() {
		c.reply(req.ID, result, err)
	}
	if req.Method == proto.MethodKill && err == nil {
		// The answer is queued; shutdown writes it before it closes this
		// connection.
		c.s.requestKill()
	}
}

// webRefused reports whether req, from a web caller, is refused by the
// web's rules (webpolicy.go), and answers it so.
func (c *conn) webRefused(req Request) bool {
	if !c.web.Load() {
		return false
	}
	rpcErr := c.s.webRefusal(req)
	if rpcErr == nil {
		return false
	}
	if !req.Notification() {
		c.reply(req.ID, nil, rpcErr)
	}
	return true
}

// reply queues one answer.
func (c *conn) reply(id json.RawMessage, result any, rpcErr *Error) {
	b, err := encodeResponse(id, result, rpcErr)
	if err != nil {
		c.s.opt.Logger.Error("encode answer", "err", err)
		b, _ = encodeResponse(id, nil, errorf(proto.CodeInternalError, "Internal error: encode answer: %v", err))
	}
	c.send(b)
}

// notify queues a notification for the client. Like an answer it is
// dropped with the client when the client lets its queue fill: a stream
// that can outrun a reader (screen changes, pty output) coalesces before
// it calls notify.
// It returns the line's number (see queued), 0 when it was not queued.
func (c *conn) notify(method string, params any) uint64 {
	b, err := encodeNotification(method, params)
	if err != nil {
		c.s.opt.Logger.Error("encode notification", "method", method, "err", err)
		return 0
	}
	return c.send(b)
}

// send writes a line, or queues it for the writer when it cannot go at
// once, or drops the client whose queue is full: it is not reading. It
// returns the line's number, 0 when it was not sent.
func (c *conn) send(b []byte) uint64 {
	if c.dropped.Load() {
		return 0
	}
	n := c.queued.Add(1)
	if c.raw != nil && c.wmu.TryLock() {
		defer c.wmu.Unlock()
		if c.waiting.Load() == 0 {
			// A key's echo goes out from here, with no hand-off to the
			// writer goroutine.
			rest, err := rawio.WriteNow(c.raw, b)
			if err != nil {
				c.drop("write: " + err.Error())
				return 0
			}
			if c.stdioDoor != nil && len(rest) < len(b) {
				c.stdioDoor.wrote(b) // what is left follows, in order
			}
			if len(rest) == 0 {
				c.written.Add(1)
				return n
			}
			b = rest // the socket is full: the writer waits for room
		}
	}
	c.waiting.Add(1)
	select {
	case c.out <- b:
		return n
	default:
		c.waiting.Add(-1)
		c.drop("it lets its answers pile up unread")
		return 0
	}
}

// sent reports whether line n (a number send returned) has been written.
func (c *conn) sent(n uint64) bool { return c.written.Load() >= n }

func (c *conn) writeLoop() {
	for b := range c.out {
		c.wmu.Lock()
		if !c.dropped.Load() { // else drained, never written
			c.nc.SetWriteDeadline(time.Now().Add(c.s.opt.WriteTimeout))
			if _, err := c.nc.Write(b); err != nil {
				c.drop("write: " + err.Error())
			} else if c.stdioDoor != nil {
				c.stdioDoor.wrote(b)
			}
			// A deadline left set would fail the next write made at once.
			c.nc.SetWriteDeadline(time.Time{})
			c.written.Add(1)
		}
		c.waiting.Add(-1)
		c.wmu.Unlock()
	}
}

// drop closes the connection at once.
func (c *conn) drop(why string) {
	c.dropOnce.Do(func() {
		c.dropped.Store(true)
		c.s.opt.Logger.Warn("dropped a client", "why", why)
		c.nc.Close()
	})
}

// finish ends the connection in order, as the server stops: reading stops,
// and the answers already due are written before the socket closes.
func (c *conn) finish() {
	c.nc.SetReadDeadline(time.Now())
}
