package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
)

// This file forwards a chat agent's client requests (fs/read_text_file,
// fs/write_text_file, terminal/*) to this door's client, when it said at
// initialize that it serves them (clientCapabilities.fs, .terminal): an
// editor serves its unsaved buffers and its own terminals. The server has
// checked a file request against the chat's roots before it comes here.

// maxForwards bounds the forwarded requests one client has unanswered.
const maxForwards = 256

// ErrNoAnswer says that the client did not answer a forwarded request: it
// could not be sent, or the wait ended first (the client went away, or
// took too long). The server serves the request itself, or refuses it.
var ErrNoAnswer = errors.New("the ACP client did not answer")

// forwardCall is a forwarded request waiting for the client's answer.
type forwardCall struct {
	answer chan forwardAnswer // one answer, buffered
}

type forwardAnswer struct {
	result json.RawMessage
	err    *sdk.RequestError
}

// Serves reports whether the client said it serves method.
func (d *Door) Serves(method string) bool {
	d.mu.Lock()
	caps := d.caps
	d.mu.Unlock()
	switch method {
	case sdk.ClientMethodFsReadTextFile:
		return caps.Fs.ReadTextFile
	case sdk.ClientMethodFsWriteTextFile:
		return caps.Fs.WriteTextFile
	case sdk.ClientMethodTerminalCreate, sdk.ClientMethodTerminalOutput, sdk.ClientMethodTerminalKill,
		sdk.ClientMethodTerminalRelease, sdk.ClientMethodTerminalWaitForExit:
		return caps.Terminal
	}
	return false
}

// Forward sends the client method with req (one of the SDK's client
// request types; its session id becomes chat, the door's id of the
// session) and waits for its answer until ctx ends. It returns the
// client's result, or its error answer (an *sdk.RequestError), or an
// error wrapping ErrNoAnswer; a request left unanswered is withdrawn
// ($/cancel_request).
func (d *Door) Forward(ctx context.Context, chat, method string, req any) (json.RawMessage, error) {
	params, err := withSession(req, sdk.SessionId(chat))
	if err != nil {
		return nil, err
	}
	call := &forwardCall{answer: make(chan forwardAnswer, 1)}
	d.mu.Lock()
	if len(d.forwards) >= maxForwards {
		d.mu.Unlock()
		return nil, fmt.Errorf("%w: %d forwarded requests are unanswered already", ErrNoAnswer, maxForwards)
	}
	d.nextAsk++
	id := fmt.Sprintf(`"acpmux-forward-%d"`, d.nextAsk)
	if d.forwards == nil {
		d.forwards = map[string]*forwardCall{}
	}
	d.forwards[id] = call
	d.mu.Unlock()
	forget := func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		_, open := d.forwards[id]
		delete(d.forwards, id)
		return open
	}
	if err := d.b.Request(method, json.RawMessage(id), params); err != nil {
		forget()
		return nil, fmt.Errorf("%w: %v", ErrNoAnswer, err)
	}
	select {
	case a := <-call.answer:
		if a.err != nil {
			return nil, a.err
		}
		return a.result, nil
	case <-ctx.Done():
		if forget() {
			_ = d.b.Notify(MethodCancelRequest, map[string]any{"requestId": json.RawMessage(id)})
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrNoAnswer, method, context.Cause(ctx))
	}
}

// answeredForward takes the client's answer to a forwarded request; it
// reports whether id was one.
func (d *Door) answeredForward(id, result, errObj json.RawMessage) bool {
	d.mu.Lock()
	call, ok := d.forwards[string(id)]
	delete(d.forwards, string(id))
	d.mu.Unlock()
	if !ok {
		return false
	}
	var a forwardAnswer
	if errObj != nil {
		re := &sdk.RequestError{}
		if err := json.Unmarshal(errObj, re); err != nil || re.Code == 0 {
			re = sdk.NewInternalError(map[string]any{"error": "the ACP client answered with an error that does not decode"})
		}
		a.err = re
	} else {
		a.result = result
	}
	call.answer <- a
	return true
}

// withSession is req with its session id set to sid.
func withSession(req any, sid sdk.SessionId) (any, error) {
	switch r := req.(type) {
	case sdk.ReadTextFileRequest:
		r.SessionId = sid
		return r, nil
	case sdk.WriteTextFileRequest:
		r.SessionId = sid
		return r, nil
	case sdk.CreateTerminalRequest:
		r.SessionId = sid
		return r, nil
	case sdk.TerminalOutputRequest:
		r.SessionId = sid
		return r, nil
	case sdk.KillTerminalRequest:
		r.SessionId = sid
		return r, nil
	case sdk.ReleaseTerminalRequest:
		r.SessionId = sid
		return r, nil
	case sdk.WaitForTerminalExitRequest:
		r.SessionId = sid
		return r, nil
	}
	return nil, fmt.Errorf("forward a %T: not a client request the door forwards", req)
}
