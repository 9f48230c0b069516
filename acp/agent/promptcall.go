package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/internal/await"
	"github.com/acpmux/acpmux-tui/internal/rpcline"
)

// This file sends session/prompt, the one call on the way of every turn,
// beside the SDK rather than through it. The SDK encodes a text block three
// times (marshal, unmarshal into a map, marshal again), encodes the
// request once more around it, and decodes the answer twice; on a turn
// through the ACP door that was a tenth of the server's time. Here the
// request is written as one line from the blocks, and the wire guard takes
// its answer before the SDK sees it, after every notification the agent
// sent before it has been applied (as the SDK's own answer waits for them),
// and hands it to the prompt's then on its own goroutine: no goroutine
// waits for the answer unless the caller wants to (Prompt).

// promptIDBase is where the ids of the prompts sent here start: far above
// the SDK's own, which count from 1, and still exact as a JavaScript
// number (below 2^53), which is what most agents read an id into.
const promptIDBase = 1 << 52

// promptCalls are the prompts sent and not yet answered.
type promptCalls struct {
	mu      sync.Mutex
	next    uint64
	waiting map[string]*promptCall // by id as written
	ended   bool                   // the connection is done: nothing more is answered
}

// A promptCall is a prompt sent and not yet answered: then hears how it
// ended, once.
type promptCall struct {
	then func(acp.PromptResponse, error)
	stop func() bool // the watch of its context
}

// open registers a new prompt, whose end then hears, and returns its id;
// false when the connection is done.
func (p *promptCalls) open(then func(acp.PromptResponse, error)) (string, *promptCall, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return "", nil, false
	}
	p.next++
	id := strconv.FormatUint(promptIDBase+p.next, 10)
	call := &promptCall{then: then}
	if p.waiting == nil {
		p.waiting = map[string]*promptCall{}
	}
	p.waiting[id] = call
	return id, call, true
}

// take removes the prompt id and returns it; false when it has ended
// already (answered, cancelled, or its connection done): whoever takes it
// tells its end.
func (p *promptCalls) take(id string) (promptCall, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	call, ok := p.waiting[id]
	if !ok {
		return promptCall{}, false
	}
	delete(p.waiting, id)
	return *call, true
}

// answered reports whether msg, a response, answers a prompt sent here,
// and tells the prompt if so, on the guard's goroutine: every update the
// agent sent before it has been applied.
func (p *promptCalls) answered(msg envelope) bool {
	if msg.ID == nil {
		return false
	}
	call, ok := p.take(string(*msg.ID))
	if !ok {
		return false
	}
	if call.stop != nil {
		call.stop()
	}
	if msg.Error != nil {
		call.then(acp.PromptResponse{}, msg.Error)
	} else {
		call.then(promptResponse(msg.Result))
	}
	return true
}

// end tells every prompt still waiting that the connection is done, and
// any opened later at once.
func (p *promptCalls) end() {
	p.mu.Lock()
	calls := p.waiting
	p.waiting, p.ended = nil, true
	p.mu.Unlock()
	for _, call := range calls {
		if call.stop != nil {
			call.stop()
		}
		call.then(acp.PromptResponse{}, errDisconnected())
	}
}

// errDisconnected is the SDK's error for a call whose connection ended.
func errDisconnected() error {
	return acp.NewInternalError(map[string]any{"error": "peer disconnected before response"})
}

// Prompt runs session/prompt as the SDK's ClientSideConnection.Prompt
// does, with the same answers and errors: the agent's error as it sent
// it, a cancelled ctx as a cancelled request (the agent told with
// $/cancel_request and session/cancel), a connection that ends first as
// an internal error. A request with fields of its own besides the session
// and its blocks goes through the SDK.
func (c *Conn) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	return await.Result(func(done func(acp.PromptResponse, error)) {
		c.PromptThen(ctx, p, done)
		Waiting(ctx)
	})
}

// PromptThen is Prompt without waiting: it returns once the prompt is on
// its way to the agent, and then hears its answer or error, once, on the
// goroutine that read the answer (the guard's: it must not wait), or on
// this one when it could not be sent.
func (c *Conn) PromptThen(ctx context.Context, p acp.PromptRequest, then func(acp.PromptResponse, error)) {
	if p.Meta != nil || p.MessageId != nil {
		go func() { then(c.ClientSideConnection.Prompt(ctx, p)) }()
		return
	}
	id, call, ok := c.prompts.open(then)
	if !ok {
		then(acp.PromptResponse{}, errDisconnected())
		return
	}
	line, err := appendPromptLine(nil, id, p)
	if err == nil {
		_, err = c.w.Write(line)
	}
	if err != nil {
		if _, ok := c.prompts.take(id); ok {
			then(acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()}))
		}
		return
	}
	if ctx.Done() == nil {
		return
	}
	stop := context.AfterFunc(ctx, func() { c.cancelPrompt(ctx, id, p.SessionId) })
	c.prompts.mu.Lock()
	call.stop = stop
	c.prompts.mu.Unlock()
}

// cancelPrompt ends prompt id, whose ctx is done, unless it has ended: the
// agent is told ($/cancel_request and session/cancel), and the prompt
// hears the ctx's cause.
func (c *Conn) cancelPrompt(ctx context.Context, id string, session acp.SessionId) {
	call, ok := c.prompts.take(id)
	if !ok {
		return
	}
	select {
	case <-c.Done():
		call.then(acp.PromptResponse{}, errDisconnected())
		return
	default:
	}
	_, _ = c.w.Write([]byte(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":` + id + "}}\n"))
	_ = c.Cancel(context.Background(), acp.CancelNotification{SessionId: session})
	cause := context.Cause(ctx)
	if errors.Is(cause, context.Canceled) {
		call.then(acp.PromptResponse{}, acp.NewRequestCancelled(map[string]any{"error": cause.Error()}))
		return
	}
	call.then(acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": cause.Error()}))
}

// promptResponse decodes the result of session/prompt as the SDK does;
// the common {"stopReason": string} is read straight.
func promptResponse(result json.RawMessage) (resp acp.PromptResponse, err error) {
	var reason []byte
	plain := json.Valid(result) && rpcline.Each(result, func(key, value []byte) bool {
		if string(key) != `"stopReason"` || reason != nil || value[0] != '"' {
			reason = nil
			return false
		}
		reason = value
		return true
	})
	if s, ok := rpcline.Unquote(reason); plain && ok {
		return acp.PromptResponse{StopReason: acp.StopReason(s)}, nil
	}
	if len(result) > 0 {
		if err := json.Unmarshal(result, &resp); err != nil {
			return resp, acp.NewInternalError(map[string]any{"error": err.Error()})
		}
	}
	return resp, nil
}

// appendPromptLine appends the line of session/prompt with id and p's
// session and blocks. A text block is written as the SDK writes it (its
// type and text only); any other block is the SDK's encoding of it.
func appendPromptLine(b []byte, id string, p acp.PromptRequest) ([]byte, error) {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"method":"session/prompt","params":{"sessionId":`...)
	b = rpcline.AppendString(b, string(p.SessionId))
	b = append(b, `,"prompt":[`...)
	for i, block := range p.Prompt {
		if i > 0 {
			b = append(b, ',')
		}
		if block.Text != nil {
			b = append(b, `{"text":`...)
			b = rpcline.AppendString(b, block.Text.Text)
			b = append(b, `,"type":"text"}`...)
			continue
		}
		raw, err := json.Marshal(block)
		if err != nil {
			return nil, err
		}
		b = append(b, raw...)
	}
	return append(b, "]}}\n"...), nil
}
