package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/acpmux/acpmux-tui/internal/rpcline"
)

// FuzzDoorParams: whatever params a client sends a method of the table,
// decoding them gives params that encode again, or -32602; never a panic.
func FuzzDoorParams(f *testing.F) {
	for _, seed := range []struct{ method, params string }{
		{"initialize", `{"protocolVersion":1,"_meta":{"acpmux/harness":"claude-acp"}}`},
		{"initialize", `{"protocolVersion":"x"}`},
		{"session/new", `{"cwd":"/tmp","mcpServers":[],"additionalDirectories":["rel","/a\u0000b"]}`},
		{"session/new", `{"cwd":"/tmp","mcpServers":[{"name":"m","command":"/bin/x","args":[],"env":[]}]}`},
		{"session/new", `{"cwd":"/tmp"}`},
		{"session/list", `{"cursor":"!!","cwd":"rel"}`},
		{"session/load", `{"sessionId":"k3x9q2","cwd":"/tmp","mcpServers":[]}`},
		{"session/resume", `{"sessionId":"k3x9q2","cwd":""}`},
		{"session/fork", `{"sessionId":"k3x9q2","cwd":"/tmp","mcpServers":[{"type":"http","name":"h","url":"u","headers":[]}]}`},
		{"session/prompt", `{"sessionId":"k3x9q2","prompt":[{"type":"text","text":"hi"},{"type":"image","data":"","mimeType":"image/png"}]}`},
		{"session/cancel", `{"sessionId":7}`},
		{"session/prompt", `[1,2]`},
		{"session/new", `null`},
		{"session/set_mode", `{"sessionId":"k3x9q2","modeId":"code"}`},
		{"session/set_mode", `{"sessionId":"k3x9q2","modeId":7}`},
		{"session/set_config_option", `{"sessionId":"k3x9q2","configId":"model","value":"smart"}`},
		{"session/set_config_option", `{"sessionId":"k3x9q2","configId":"fast","type":"boolean","value":true}`},
		{"session/set_config_option", `{"sessionId":"k3x9q2","configId":"x","type":"boolean","value":"no"}`},
	} {
		f.Add(seed.method, []byte(seed.params))
	}
	f.Fuzz(func(t *testing.T, method string, params []byte) {
		h, ok := methods[method]
		if !ok || !json.Valid(params) && len(bytes.TrimSpace(params)) > 0 {
			return // the server answers -32700 before the door sees it
		}
		p, err := h.decode(params)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeInvalidParams {
				t.Fatalf("%s %q: refused with %v, want -32602", method, params, err)
			}
			return
		}
		if _, err := json.Marshal(p); err != nil {
			t.Fatalf("%s %q: decoded params do not encode: %v", method, params, err)
		}
	})
}

// FuzzBridgeLine: a line of the client's goes to the server as it came,
// or is held back before initialize; an initialize that is an object with
// object params gets the harness in its _meta. Reading lines never holds
// more than the limit.
func FuzzBridgeLine(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"_meta":{"x":1}}}`,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":[1]}`,
		`{"jsonrpc":"2.0","id":0,"method":"initialize"}`,
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}`,
		`{"jsonrpc":"2.0","id":"p","result":{}}`,
		`not json`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var out bytes.Buffer
		b := newBridge(&out, nil, BridgeOptions{Harness: "fake"})
		line = bytes.TrimSpace(line)
		sent, err := b.toServer(bytes.Clone(line))
		if err != nil {
			t.Fatal(err)
		}
		if sent == nil {
			if out.Len() > 0 && !json.Valid(bytes.TrimSpace(out.Bytes())) {
				t.Fatalf("the bridge's own answer is not JSON: %q", out.Bytes())
			}
			return
		}
		// JSON-RPC's member names are case-sensitive ("methoD" names no
		// method): an initialize is a line whose "method" is exactly that,
		// and its params an object, as the server reads them.
		if isInitialize(line) && harnessFits(line) {
			var sentMsg, params map[string]json.RawMessage
			var meta map[string]any
			if json.Unmarshal(sent, &sentMsg) != nil || json.Unmarshal(sentMsg["params"], &params) != nil ||
				json.Unmarshal(params["_meta"], &meta) != nil || meta[MetaHarness] != "fake" {
				t.Fatalf("initialize %q went as %q, without the harness", line, sent)
			}
		}
		// readLine reads the first line of the input: up to its first
		// newline, or all of it when it has none.
		first := line
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			first = line[:i]
		}
		r := newTestReader(line)
		got, err := readLine(r, 64)
		switch {
		case len(first) > 64:
			if !errors.Is(err, errLineTooLong) {
				t.Fatalf("a first line of %d bytes read as %q, %v", len(first), got, err)
			}
		case len(line) > 0 && (err != nil || !bytes.Equal(got, first)):
			t.Fatalf("read %q, %v; want the first line %q", got, err, first)
		}
	})
}

func newTestReader(b []byte) *bufioReader {
	return newBufio(iotest.OneByteReader(bytes.NewReader(b)))
}

type bufioReader = bufio.Reader

func newBufio(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, 16) }

// FuzzForwardAnswer: whatever a client answers a forwarded request with (a
// result, or an error object of any shape), the waiting request gets one
// answer: the result as sent, or an error with a code; never a panic.
func FuzzForwardAnswer(f *testing.F) {
	for _, seed := range []struct{ result, errObj string }{
		{`{"content":"in the buffer"}`, ``},
		{``, `{"code":-32002,"message":"Resource not found","data":{"path":"/x"}}`},
		{``, `{"code":"x"}`},
		{``, `null`},
		{``, `[1]`},
		{`null`, ``},
	} {
		f.Add([]byte(seed.result), []byte(seed.errObj))
	}
	f.Fuzz(func(t *testing.T, result, errObj []byte) {
		d := NewDoor(nil, "test")
		call := &forwardCall{answer: make(chan forwardAnswer, 1)}
		d.forwards = map[string]*forwardCall{`"f-1"`: call}
		var eo json.RawMessage
		if t := bytes.TrimSpace(errObj); len(t) > 0 && string(t) != "null" {
			eo = errObj
		}
		if !d.Answered(json.RawMessage(`"f-1"`), result, eo) {
			t.Fatal("the forwarded request's answer was not taken")
		}
		if d.Answered(json.RawMessage(`"f-1"`), result, eo) {
			t.Fatal("a second answer to one request was taken")
		}
		a := <-call.answer
		switch {
		case eo != nil && (a.err == nil || a.err.Code == 0):
			t.Fatalf("error answer %q reached the agent as %+v", errObj, a)
		case eo == nil && (a.err != nil || !bytes.Equal(a.result, result)):
			t.Fatalf("result %q reached the agent as %+v", result, a)
		}
	})
}

// harnessFits reports whether the bridge can give an initialize line the
// harness: an object with no params, or params that are an object whose
// _meta, if any, is an object or null (member names compared exactly, as
// JSON-RPC compares them).
func harnessFits(line []byte) bool {
	var top, params map[string]json.RawMessage
	if json.Unmarshal(line, &top) != nil {
		return false
	}
	raw, has := top["params"]
	if !has {
		return true
	}
	if json.Unmarshal(raw, &params) != nil || params == nil {
		return false
	}
	meta, has := params["_meta"]
	if !has {
		return true
	}
	var m map[string]any
	return json.Unmarshal(meta, &m) == nil
}

// isInitialize reports whether line is a request whose method is exactly
// "initialize", member names compared as JSON-RPC compares them.
func isInitialize(line []byte) bool {
	m, ok := rpcline.Split(line)
	if !ok || m.Method == nil {
		return false
	}
	method, ok := rpcline.Unquote(m.Method)
	return ok && method == "initialize"
}
