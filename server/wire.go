package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/internal/rpcline"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file reads and writes the wire: JSON-RPC 2.0, one JSON object per
// line. Everything here handles outside input: it is size-limited and
// fuzzed (FuzzDecodeLine).

// Request is one decoded JSON-RPC request or notification.
type Request struct {
	// ID is the request's id as sent (a JSON string, number or null); nil
	// for a notification, which gets no answer.
	ID json.RawMessage
	// Method is the method's name.
	Method string
	// Params is the params member as sent (an object or array), nil when
	// left out.
	Params json.RawMessage
}

// Notification reports whether the request wants no answer.
func (r Request) Notification() bool { return r.ID == nil }

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
	// raw, when set, is the whole error object, encoded already (a folder
	// refusal's RPCError).
	raw json.RawMessage
}

// Error returns the message with its code.
func (e *Error) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

func errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// MarshalJSON writes the raw object when there is one.
func (e *Error) MarshalJSON() ([]byte, error) {
	if e.raw != nil {
		return e.raw, nil
	}
	type plain Error
	return json.Marshal((*plain)(e))
}

// notJSON says why line, which json.Valid refused, is not JSON: nested too
// deeply, or where its syntax breaks. Only a refused line pays for it.
func notJSON(line []byte) string {
	var raw json.RawMessage
	err := json.Unmarshal(line, &raw)
	var se *json.SyntaxError
	switch {
	case err == nil:
		return "the line is not JSON"
	case strings.Contains(err.Error(), "exceeded max depth"):
		return "the line is nested too deeply (JSON nested over 10000 levels)"
	case errors.As(err, &se):
		return fmt.Sprintf("the line is not JSON (%s, at byte %d)", se.Error(), se.Offset)
	}
	return "the line is not JSON"
}

// DecodeLine decodes one line of the wire. A line that is only white space
// is no message (ok false, no error). A line that is not JSON, or nested
// deeper than encoding/json reads (10,000 levels), is a parse error
// (-32700), with the request's id when the line reads as a request
// (requestID): a client matches an answer to its request by id, and one
// answered with a null id waits for its answer for ever (the ACP SDK drops
// such an answer). JSON that is not a JSON-RPC 2.0 request object (a batch,
// a bad jsonrpc member, a method that is not a string, an id that is not a
// string, number or null, params that are not structured) is an invalid
// request (-32600); the error then carries the request's id when that much
// could be read. A response (no method, a result or an error) is no
// message: the server sends no requests yet, so it expects none.
func DecodeLine(line []byte) (req Request, ok bool, rpcErr *Error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return Request{}, false, nil
	}
	if !json.Valid(line) {
		return Request{ID: requestID(line)}, false, errorf(proto.CodeParseError, "Parse error: %s", notJSON(line))
	}
	if line[0] != '{' {
		if line[0] == '[' {
			return Request{}, false, errorf(proto.CodeInvalidRequest, "Invalid Request: batches are not supported; send one object per line")
		}
		return Request{}, false, errorf(proto.CodeInvalidRequest, "Invalid Request: not an object")
	}
	// An object, valid JSON: checked above. The values kept are copied:
	// line is the reader's buffer, and the call runs after the next read.
	m, _ := rpcline.Split(line)
	if m.ID != nil {
		if !validID(m.ID) {
			return Request{}, false, errorf(proto.CodeInvalidRequest, "Invalid Request: id must be a string, a number or null")
		}
		req.ID = bytes.Clone(m.ID)
	}
	bad := func(format string, args ...any) (Request, bool, *Error) {
		return Request{ID: req.ID}, false, errorf(proto.CodeInvalidRequest, "Invalid Request: "+format, args...)
	}
	if version, ok := rpcline.Unquote(m.JSONRPC); !ok || version != "2.0" {
		return bad(`jsonrpc must be "2.0"`)
	}
	if m.Method == nil {
		if req.ID != nil && (m.Result != nil || m.Error != nil) {
			return Request{}, false, nil // a response: nothing was asked
		}
		return bad("no method")
	}
	method, ok := rpcline.Unquote(m.Method)
	if !ok {
		return bad("method must be a string")
	}
	req.Method = method
	if params := m.Params; params != nil {
		switch {
		case len(params) > 0 && (params[0] == '{' || params[0] == '['):
			req.Params = bytes.Clone(params)
		case string(params) == "null":
			// Treated as left out.
		default:
			return bad("params must be an object or an array")
		}
	}
	return req, true, nil
}

// requestID is the id of a line that is not JSON but reads as a request:
// a top-level "id" that is a string or a number, and a "method" that is a
// string, found by following the line's structure without a parser (and so
// without its depth limit); nil otherwise. A response's id is never taken:
// an error answered with it would end a request of the client's own.
func requestID(line []byte) json.RawMessage {
	var s rpcline.Stream
	s.Write(line)
	id, _, ok := s.Request()
	if !ok || !validID(id) {
		return nil
	}
	return id
}

// validID reports whether raw is an id JSON-RPC allows: a string, a number
// or null.
func validID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	case string(raw) == "null":
		return true
	}
	return false
}

// decodeParams decodes a request's params into v; params left out decode
// as {}. A mismatch is an invalid-params error naming the field.
func decodeParams(raw json.RawMessage, v any) *Error {
	if raw == nil {
		return nil
	}
	if raw[0] != '{' {
		return errorf(proto.CodeInvalidParams, "Invalid params: params must be an object")
	}
	if d, ok := v.(interface{ DecodeJSON([]byte) bool }); ok && d.DecodeJSON(raw) {
		return nil // the form clients write, read without reflection
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return errorf(proto.CodeInvalidParams, "Invalid params: %s must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
		}
		return errorf(proto.CodeInvalidParams, "Invalid params: %v", err)
	}
	return nil
}

// jsonKind names a Go kind the way the wire's author thinks of it.
func jsonKind(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "slice", "ptr":
		return "an array"
	case "int", "int64":
		return "an integer"
	case "bool":
		return "a boolean"
	}
	return kind
}

// response is one answer on the wire.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// encodeResponse encodes an answer as one line. An id that could not be
// read is null, as JSON-RPC asks.
func encodeResponse(id json.RawMessage, result any, rpcErr *Error) ([]byte, error) {
	if id == nil {
		id = json.RawMessage("null")
	}
	if rpcErr == nil && isNumber(id) {
		// A key's answer and a door's prompt's, the two answered most
		// often, as the encoder below writes them, without it (its look-up
		// and walk of the types was a fifth of a door turn's end).
		switch r := result.(type) {
		case struct{}:
			b := make([]byte, 0, 40+len(id))
			b = append(b, `{"jsonrpc":"2.0","id":`...)
			b = append(b, id...)
			return append(b, `,"result":{}}`+"\n"...), nil
		case sdk.PromptResponse:
			if r.Meta == nil && r.Usage == nil && r.UserMessageId == nil {
				b := make([]byte, 0, 64+len(id)+len(r.StopReason))
				b = append(b, `{"jsonrpc":"2.0","id":`...)
				b = append(b, id...)
				b = append(b, `,"result":{"stopReason":`...)
				b = rpcline.AppendString(b, string(r.StopReason))
				return append(b, "}}\n"...), nil
			}
		}
	}
	r := response{JSONRPC: "2.0", ID: id, Error: rpcErr}
	if rpcErr == nil {
		r.Result = result
		if result == nil {
			r.Result = struct{}{}
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil { // Encode ends the line
		return nil, err
	}
	return buf.Bytes(), nil
}

// isNumber reports whether an id is a JSON integer as clients write them:
// digits, with no sign, fraction or exponent.
func isNumber(id json.RawMessage) bool {
	if len(id) == 0 || len(id) > 19 {
		return false
	}
	for _, c := range id {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// notification is a message from the server that answers no call.
type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// encodeNotification is one notification line.
func encodeNotification(method string, params any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(notification{JSONRPC: "2.0", Method: method, Params: params}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// errLineTooLong is a line over the limit; the connection is closed.
var errLineTooLong = errors.New("line over the size limit")

// lineReader reads lines of at most max bytes (without the newline) from a
// buffered reader, never holding more than max+1 bytes of one line: a
// longer line is errLineTooLong as soon as its max+1st byte arrives.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line, without its newline; the slice is valid until
// the next call. A last line with no newline is returned at EOF.
func (l *lineReader) next() ([]byte, error) {
	// A line that grew the buffer large is not kept for the next one.
	if cap(l.buf) > 1<<20 {
		l.buf = nil
	}
	l.buf = l.buf[:0]
	for {
		frag, err := l.r.ReadSlice('\n')
		n := len(l.buf) + len(frag)
		if err == nil {
			n-- // the newline
		}
		if n > l.max {
			return nil, errLineTooLong
		}
		switch {
		case err == nil && len(l.buf) == 0:
			return frag[:len(frag)-1], nil // the whole line is in the reader's buffer
		case err == nil:
			l.buf = append(l.buf, frag[:len(frag)-1]...)
			return l.buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			l.buf = append(l.buf, frag...)
		case errors.Is(err, io.EOF) && n > 0:
			l.buf = append(l.buf, frag...)
			return l.buf, nil
		default:
			return nil, err
		}
	}
}
