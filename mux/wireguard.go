package mux

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	acp "github.com/coder/acp-go-sdk"
)

// maxMessageBytes bounds one JSON-RPC message from an agent (8 MiB).
const maxMessageBytes = 8 << 20

// cancelRequestMethod is the one notification the SDK handles as it reads,
// outside its notification queue.
const cancelRequestMethod = "$/cancel_request"

// wireGuard sits between an agent's stdout and the ACP connection: it lets
// through only whole lines that are JSON and at most max bytes. The first
// malformed or oversized message calls bad (which logs it and stops the
// harness) and ends the stream, so the chat is marked failed instead of the
// connection guessing.
//
// With a sink, notifications never reach the connection. The SDK queues
// them for a goroutine of their own in a queue of 1,024 and closes the
// connection when an agent gets that far ahead (a burst of session/update
// does). The guard hands each one to the sink instead, in order, before it
// reads the next line, and has the sink flush what it holds before it passes
// a line on or waits for the agent. So the agent's updates are applied in
// the order sent and before the response that follows them (as the SDK's own
// queue promises), and an agent that writes faster than they are applied
// waits on its full pipe: memory stays bounded by a line and the pipe,
// however long the burst.
type wireGuard struct {
	r   *bufio.Reader
	max int
	bad func(reason string)
	// why is what bad was called for, set before the call.
	why  badMessage
	sink notificationSink
	out  []byte
	done bool
	// ended is set once the stream has ended (end of the agent's output, or
	// a bad message); read by other goroutines.
	ended atomic.Bool
	// notifications counts the notifications handed to the sink (tests).
	notifications atomic.Int64
}

// notificationSink takes the notifications the wire guard keeps from the
// SDK, in the order the agent sent them.
type notificationSink interface {
	// take handles one notification; it may hold it back to join the next.
	take(method string, params json.RawMessage)
	// flush applies whatever take holds back.
	flush()
}

// envelope is how the SDK's reader decodes a line (its anyMessage), so that
// the guard takes exactly the lines the SDK would queue as notifications.
type envelope struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      *json.RawMessage  `json:"id,omitempty"`
	Method  string            `json:"method,omitempty"`
	Params  json.RawMessage   `json:"params,omitempty"`
	Result  json.RawMessage   `json:"result,omitempty"`
	Error   *acp.RequestError `json:"error,omitempty"`
}

func newWireGuard(r io.Reader, max int, bad func(reason string)) *wireGuard {
	return &wireGuard{r: bufio.NewReaderSize(r, 64*1024), max: max, bad: bad}
}

func (g *wireGuard) Read(p []byte) (int, error) {
	for len(g.out) == 0 {
		if g.done {
			return 0, io.EOF
		}
		if !g.lineBuffered() {
			// About to wait for the agent: what is held is shown first.
			g.flush()
		}
		line, err := g.readLine()
		if err != nil {
			g.flush()
			g.end()
			if errors.Is(err, io.EOF) || errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, os.ErrClosed) {
				// The agent is gone (or only a grandchild holds the pipe).
				return 0, io.EOF
			}
			if errors.Is(err, errLineTooLong) {
				g.refuse(fmt.Sprintf("sent a line over %s", byteSize(g.max)), "")
			} else {
				g.refuse("could not be read", err.Error())
			}
			return 0, io.EOF
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		var msg envelope
		if err := json.Unmarshal(trimmed, &msg); err != nil {
			if !json.Valid(trimmed) {
				g.flush()
				g.end()
				g.refuse("sent invalid JSON", fmt.Sprintf("%.120q", trimmed))
				return 0, io.EOF
			}
			// JSON but not a message: the SDK logs and skips it.
		} else if g.sink != nil && msg.ID == nil && msg.Method != "" && msg.Method != cancelRequestMethod {
			g.notifications.Add(1)
			g.sink.take(msg.Method, msg.Params)
			continue
		}
		g.flush()
		g.out = append(trimmed, '\n')
	}
	n := copy(p, g.out)
	g.out = g.out[n:]
	return n, nil
}

// lineBuffered reports whether a whole line is already read from the agent.
func (g *wireGuard) lineBuffered() bool {
	buf, _ := g.r.Peek(g.r.Buffered())
	return bytes.IndexByte(buf, '\n') >= 0
}

func (g *wireGuard) flush() {
	if g.sink != nil {
		g.sink.flush()
	}
}

func (g *wireGuard) refuse(what, detail string) {
	g.why = badMessage{what: what, detail: detail}
	g.bad(g.why.in(""))
}

func (g *wireGuard) end() {
	g.done = true
	g.ended.Store(true)
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line, refusing one longer than max without holding more
// than max bytes.
func (g *wireGuard) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := g.r.ReadSlice('\n')
		if len(line)+len(chunk) > g.max {
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return line, nil
		default:
			return nil, err
		}
	}
}

// byteSize writes n as "8 MiB" when it is a whole number of MiB or KiB.
func byteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
