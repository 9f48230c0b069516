package server

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/doorclient"
	"github.com/acpmux/acpmux-tui/proto"
	sdk "github.com/coder/acp-go-sdk"
)

// deepDepth is how deep the hostile requests nest their params: with the
// request object around them, one level past what encoding/json reads.
const deepDepth = 10_000

// deepNestings are the two ways to nest: arrays, and objects of one member.
var deepNestings = []struct{ name, open, close string }{
	{"arrays", "[", "]"},
	{"objects", `{"a":`, "}"},
}

// deepRequest is a request of method whose params nest deepDepth levels.
func deepRequest(id, method, open, close string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` +
		strings.Repeat(open, deepDepth) + strings.Repeat(close, deepDepth) + `}`
}

// deepAnswerWait bounds the wait for the answer to a deep request: a parse
// error is answered at once, so this is only a hang's deadline.
const deepAnswerWait = 30 * time.Second

// TestDeeplyNestedRequestIsAnsweredWithItsID: a request nested 10,000
// levels deep is a parse error answered with the request's id (a client
// matches answers by id: one answered with a null id waits for ever), on
// a connection that has not chosen its protocol yet, on an ACP one and on
// an _acpmux/* one; each connection then serves the next request. A line
// that is no request (a response) is answered with a null id, as is one
// whose id cannot be read.
func TestDeeplyNestedRequestIsAnsweredWithItsID(t *testing.T) {
	p := newPromptRig(t)
	for _, n := range deepNestings {
		t.Run(n.name, func(t *testing.T) {
			// The first line of a connection.
			a := p.dial()
			a.send(deepRequest("1", "initialize", n.open, n.close))
			wantParseError(t, "a deep initialize, first on its connection", a.read(), "1")
			a.ok("initialize", map[string]any{"protocolVersion": 1}, nil)
			// An ACP connection.
			a.send(deepRequest(`"list-7"`, "session/list", n.open, n.close))
			wantParseError(t, "a deep session/list", a.read(), `"list-7"`)
			a.ok("session/list", map[string]any{}, nil)
			// A response (the client's answer to a request of the door's)
			// is never answered with its id: that id is the door's.
			a.send(`{"jsonrpc":"2.0","id":3,"result":` + strings.Repeat(n.open, deepDepth) + strings.Repeat(n.close, deepDepth) + `}`)
			wantParseError(t, "a deep response", a.read(), "null")
			a.ok("session/list", map[string]any{}, nil)

			// An _acpmux/* connection.
			w := p.dial()
			w.ok(proto.MethodHello, nil, nil)
			w.send(deepRequest("9", proto.MethodList, n.open, n.close))
			wantParseError(t, "a deep _acpmux/list", w.read(), "9")
			w.send(strings.Repeat(n.open, deepDepth+1) + strings.Repeat(n.close, deepDepth+1))
			wantParseError(t, "a deep line with no id", w.read(), "null")
			w.ok(proto.MethodHello, nil, nil)
		})
	}
}

func wantParseError(t *testing.T, what string, rep reply, id string) {
	t.Helper()
	if rep.Error == nil || rep.Error.Code != proto.CodeParseError || !strings.Contains(rep.Error.Message, "nested too deeply") {
		t.Fatalf("%s: answered %+v, result %s; want a parse error saying it is nested too deeply", what, rep.Error, rep.Result)
	}
	if string(rep.ID) != id {
		t.Fatalf("%s: answered with id %s, want %s", what, rep.ID, id)
	}
}

// deepMeta is a _meta whose value nests depth objects deep.
//
// The SDK checks what it sends: params of 10,000 levels are as deep as it
// sends, and the request around them takes the line one level past what
// the door reads. deepMeta(deepDepth-2) is that deep: params, _meta, and
// depth objects in it.
func deepMeta(depth int) map[string]any {
	var v any = "bottom"
	for range depth {
		v = map[string]any{"a": v}
	}
	return map[string]any{"deep": v}
}

// TestDeeplyNestedRequestFromTheSDK: a client on the ACP SDK whose
// initialize carries a _meta nested 10,000 levels deep gets an error for
// it (the SDK drops an answer with a null id, so it would wait for ever),
// and initializes on the same connection next.
func TestDeeplyNestedRequestFromTheSDK(t *testing.T) {
	p := newPromptRig(t)
	c := p.doorClient(nil) // the deep request breaks the schema's reader too
	checkDeepInitialize(t, c.ClientSideConnection)
	initDoor(t, c)
}

// checkDeepInitialize sends an initialize nested deepDepth levels deep
// through the SDK and wants it refused with -32700 within deepAnswerWait.
func checkDeepInitialize(t *testing.T, c *sdk.ClientSideConnection) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deepAnswerWait)
	defer cancel()
	_, err := c.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, Meta: deepMeta(deepDepth - 2)})
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		t.Fatalf("the door did not answer an initialize nested %d levels deep within %v", deepDepth, deepAnswerWait)
	}
	if code, _, ok := doorclient.AsRefusal(err); !ok || code != proto.CodeParseError {
		t.Fatalf("a deep initialize: %v, want a -32700 error", err)
	}
}
