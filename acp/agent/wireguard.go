package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/internal/rpcline"
	acp "github.com/coder/acp-go-sdk"
)

// maxMessageBytes bounds one JSON-RPC message from an agent (8 MiB; see
// config.MaxAgentMessageBytes, from which max_file_bytes is set).
const maxMessageBytes = config.MaxAgentMessageBytes

// cancelRequestMethod is the one notification the SDK handles as it reads,
// outside its notification queue.
const cancelRequestMethod = "$/cancel_request"

// wireGuard sits between an agent's stdout and the ACP connection: it lets
// through only whole lines that are JSON and at most max bytes. The first
// malformed or oversized message calls bad (which logs it and stops the
// harness) and ends the stream, so the chat is marked failed instead of the
// connection guessing; but a request over max (an fs/write_text_file with
// more content than fits) is read to its end, dropped and answered with an
// error through answer, and the agent goes on: only a request can be
// answered, so an oversized notification or response, or a line whose id
// cannot be read, still ends it.
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
	why  BadMessage
	sink notificationSink
	out  []byte
	done bool
	// ended is set once the stream has ended (end of the agent's output, or
	// a bad message); read by other goroutines.
	ended atomic.Bool
	// notifications counts the notifications handed to the sink (tests).
	notifications atomic.Int64

	// answer writes an error response for a request over max to the agent
	// (nil: such a request ends the stream as any oversized line does). It
	// is called on a goroutine of its own: the agent may be blocked writing
	// to us, and its input must not wait on its output.
	answer func(msg []byte, text string)
	// fileCap is acp.max_file_bytes, which the answer names.
	fileCap int64
	// refused counts the oversized requests answered (tests).
	refused atomic.Int64
	// calls, when set, are the prompts sent beside the SDK, whose answers
	// the guard takes (promptcall.go).
	calls *promptCalls
	// setUp, when set, is closed once the connection reading the guard is
	// set up: its reader waits for that before its first read, so nothing
	// it does (its logger, when the agent's output ends at once) comes
	// before NewConn has finished with it.
	setUp chan struct{}
}

// maxDiscardFactor bounds how much of an oversized line the guard reads to
// find its end and its id: beyond max times this, the line ends the agent
// whatever it carries.
const maxDiscardFactor = 8

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
	if g.setUp != nil {
		<-g.setUp
		g.setUp = nil
	}
	for len(g.out) == 0 {
		if g.done {
			return 0, io.EOF
		}
		if !g.lineBuffered() {
			// About to wait for the agent: what is held is shown first.
			g.flush()
		}
		line, err := g.readLine()
		var long *overLongRequest
		if errors.As(err, &long) {
			g.answerOverLong(long)
			continue
		}
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
		if !json.Valid(trimmed) {
			g.flush()
			g.end()
			g.refuse("sent invalid JSON", fmt.Sprintf("%.120q", trimmed))
			return 0, io.EOF
		}
		if msg, ok := readEnvelope(trimmed); !ok {
			// JSON but not a message: the SDK logs and skips it.
		} else if g.sink != nil && msg.ID == nil && msg.Method != "" && msg.Method != cancelRequestMethod {
			g.notifications.Add(1)
			g.sink.take(msg.Method, msg.Params)
			continue
		} else if msg.Method == "" && g.calls != nil {
			g.flush() // what the agent sent before an answer comes first
			if g.calls.answered(msg) {
				continue
			}
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
	g.why = BadMessage{what: what, detail: detail}
	g.bad(g.why.In(""))
}

func (g *wireGuard) end() {
	g.done = true
	g.ended.Store(true)
}

var errLineTooLong = errors.New("line too long")

// overLongRequest is a request over the limit, read to its end and dropped.
type overLongRequest struct {
	id     json.RawMessage
	method string
	size   int64 // its bytes, without the newline
}

func (e *overLongRequest) Error() string {
	return fmt.Sprintf("%s request of %d bytes", e.method, e.size)
}

// readLine reads one line, refusing one longer than max without holding more
// than max bytes.
func (g *wireGuard) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := g.r.ReadSlice('\n')
		if len(line)+len(chunk) > g.max {
			return nil, g.skipLong(line, chunk, err)
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

// skipLong reads the rest of a line over the limit, holding none of it,
// and returns an overLongRequest when it is a request (its id and method
// found wherever they stand), else errLineTooLong (or the read's error).
// head and chunk are what was read of it so far, err the last read's.
func (g *wireGuard) skipLong(head, chunk []byte, err error) error {
	if g.answer == nil {
		return errLineTooLong
	}
	var s rpcline.Stream
	s.Write(head)
	s.Write(chunk)
	size := int64(len(head) + len(chunk))
	limit := int64(g.max) * maxDiscardFactor
	for errors.Is(err, bufio.ErrBufferFull) {
		if s.NotObject || size > limit {
			return errLineTooLong
		}
		chunk, err = g.r.ReadSlice('\n')
		s.Write(chunk)
		size += int64(len(chunk))
	}
	if err != nil {
		// The agent's output ended inside the line: no one to answer.
		if errors.Is(err, io.EOF) {
			return errLineTooLong
		}
		return err
	}
	id, method, ok := s.Request()
	if !ok {
		return errLineTooLong
	}
	return &overLongRequest{id: id, method: method, size: size - 1}
}

// overLongText is what an agent is told of its request over the limit.
func (g *wireGuard) overLongText(r *overLongRequest) string {
	text := fmt.Sprintf("%s: the request is %s, over the %s limit of one message from an agent",
		r.method, sizeText(r.size), byteSize(g.max))
	if r.method == acp.ClientMethodFsWriteTextFile {
		text += fmt.Sprintf("; fs/write_text_file writes at most %s (acp.max_file_bytes) and the request must fit in one message", sizeText(g.fileCap))
	}
	return text
}

// answerOverLong answers a request over the limit with an error, on a
// goroutine of its own.
func (g *wireGuard) answerOverLong(r *overLongRequest) {
	text := g.overLongText(r)
	msg, err := json.Marshal(struct {
		JSONRPC string            `json:"jsonrpc"`
		ID      json.RawMessage   `json:"id"`
		Error   *acp.RequestError `json:"error"`
	}{"2.0", r.id, &acp.RequestError{Code: codeInvalidParams, Message: "Invalid params", Data: map[string]any{"error": text}}})
	if err != nil {
		return // cannot happen: Request vouched for the id's JSON
	}
	g.refused.Add(1)
	go g.answer(append(msg, '\n'), text)
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
