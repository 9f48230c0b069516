package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/internal/rpcline"
)

// This file sends session/prompt, the one call on the way of every turn,
// beside the SDK rather than through it. The SDK encodes a text block three
// times (marshal, unmarshal into a map, marshal again), encodes the
// request once more around it, and decodes the answer twice; on a turn
// through the ACP door that was a tenth of the server's time. Here the
// request is written as one line from the blocks, and the wire guard takes
// its answer before the SDK sees it, after every notification the agent
// sent before it has been applied (as the SDK's own answer waits for them).

// promptIDBase is where the ids of the prompts sent here start: far above
// the SDK's own, which count from 1, and still exact as a JavaScript
// number (below 2^53), which is what most agents read an id into.
const promptIDBase = 1 << 52

// promptCalls are the prompts sent and not yet answered.
type promptCalls struct {
	mu      sync.Mutex
	next    uint64
	waiting map[string]chan envelope // by id as written
}

// open registers a new prompt and returns its id and where its answer
// comes.
func (p *promptCalls) open() (string, chan envelope) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	id := strconv.FormatUint(promptIDBase+p.next, 10)
	ch := make(chan envelope, 1)
	if p.waiting == nil {
		p.waiting = map[string]chan envelope{}
	}
	p.waiting[id] = ch
	return id, ch
}

// drop forgets a prompt that is no longer waited for.
func (p *promptCalls) drop(id string) {
	p.mu.Lock()
	delete(p.waiting, id)
	p.mu.Unlock()
}

// answered reports whether msg, a response, answers a prompt sent here,
// and hands it over if so.
func (p *promptCalls) answered(msg envelope) bool {
	if msg.ID == nil {
		return false
	}
	p.mu.Lock()
	ch, ok := p.waiting[string(*msg.ID)]
	delete(p.waiting, string(*msg.ID))
	p.mu.Unlock()
	if ok {
		ch <- msg
	}
	return ok
}

// Prompt runs session/prompt as the SDK's ClientSideConnection.Prompt
// does, with the same answers and errors: the agent's error as it sent
// it, a cancelled ctx as a cancelled request (the agent told with
// $/cancel_request and session/cancel), a connection that ends first as
// an internal error. A request with fields of its own besides the session
// and its blocks goes through the SDK.
func (c *Conn) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	if p.Meta != nil || p.MessageId != nil {
		return c.ClientSideConnection.Prompt(ctx, p)
	}
	id, answer := c.prompts.open()
	line, err := appendPromptLine(nil, id, p)
	if err == nil {
		_, err = c.w.Write(line)
	}
	if err != nil {
		c.prompts.drop(id)
		return acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	Waiting(ctx)
	var msg envelope
	select {
	case msg = <-answer:
	case <-c.Done():
		select {
		case msg = <-answer: // it came before the end: the guard hands it over first
		default:
			c.prompts.drop(id)
			return acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": "peer disconnected before response"})
		}
	case <-ctx.Done():
		c.prompts.drop(id)
		select {
		case <-c.Done():
			return acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": "peer disconnected before response"})
		default:
		}
		_, _ = c.w.Write([]byte(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":` + id + "}}\n"))
		_ = c.Cancel(context.Background(), acp.CancelNotification{SessionId: p.SessionId})
		cause := context.Cause(ctx)
		if errors.Is(cause, context.Canceled) {
			return acp.PromptResponse{}, acp.NewRequestCancelled(map[string]any{"error": cause.Error()})
		}
		return acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": cause.Error()})
	}
	if msg.Error != nil {
		return acp.PromptResponse{}, msg.Error
	}
	return promptResponse(msg.Result)
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
