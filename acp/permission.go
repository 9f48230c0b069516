package acp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/acpmux/acpmux-tui/proto"
	sdk "github.com/coder/acp-go-sdk"
)

// This file asks a door client to answer a permission request of a chat's
// agent (session/request_permission from the door to the client). The
// request also waits as a card in the TUI: the first answer wins, and an
// answer that comes after another is dropped.

// maxAsks bounds the permission requests one client is asked at once.
const maxAsks = 256

// Permission is a permission request of a chat's agent: its tool call's
// kind and content (what it will do: the diff of an edit, the command to
// run) go to the client with it.
type Permission struct {
	ToolCallID string
	Title      string
	Kind       string
	Content    []proto.ToolContent
	Options    []PermissionOption
}

// PermissionOption is one of its answers.
type PermissionOption struct {
	ID, Name, Kind string
}

// ask is a request the client has not answered yet.
type ask struct {
	options []string
	answer  func(optionID string)
}

// AskPermission sends the client the chat's permission request p; answer
// hears the option id the client picks ("" when it cancels). A request the
// client answers with an error, or never, is left to the other answers.
// The func it returns withdraws the request once another answer has come
// first: the client is told ($/cancel_request) and its answer, should one
// still come, is dropped. It returns nil when the request was not sent.
func (d *Door) AskPermission(chat string, p Permission, answer func(optionID string)) (withdraw func()) {
	d.mu.Lock()
	if len(d.asks) >= maxAsks {
		d.mu.Unlock()
		return nil
	}
	if d.onceOnly {
		p.Options = slices.DeleteFunc(slices.Clone(p.Options), func(o PermissionOption) bool { return !grantsOnce(o.Kind) })
		if len(p.Options) == 0 {
			d.mu.Unlock()
			return nil
		}
	}
	d.nextAsk++
	id := fmt.Sprintf(`"acpmux-permission-%d"`, d.nextAsk)
	a := ask{answer: answer}
	for _, o := range p.Options {
		a.options = append(a.options, o.ID)
	}
	if d.asks == nil {
		d.asks = map[string]ask{}
	}
	d.asks[id] = a
	d.mu.Unlock()
	req := sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(chat),
		ToolCall:  sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(p.ToolCallID), Title: sdk.Ptr(p.Title)},
		Options:   []sdk.PermissionOption{},
	}
	if p.Kind != "" {
		req.ToolCall.Kind = sdk.Ptr(sdk.ToolKind(p.Kind))
	}
	if len(p.Content) > 0 {
		req.ToolCall.Content = toolContents(p.Content)
	}
	for _, o := range p.Options {
		req.Options = append(req.Options, sdk.PermissionOption{OptionId: sdk.PermissionOptionId(o.ID), Name: o.Name, Kind: sdk.PermissionOptionKind(o.Kind)})
	}
	if err := d.b.Request(sdk.ClientMethodSessionRequestPermission, json.RawMessage(id), req); err != nil {
		d.mu.Lock()
		delete(d.asks, id)
		d.mu.Unlock()
		return nil
	}
	return func() {
		d.mu.Lock()
		_, open := d.asks[id]
		delete(d.asks, id)
		d.mu.Unlock()
		if open {
			_ = d.b.Notify(MethodCancelRequest, map[string]any{"requestId": json.RawMessage(id)})
		}
	}
}

// MethodCancelRequest is JSON-RPC's protocol-level cancellation, sent for a
// request of the door's that another answer has made moot.
const MethodCancelRequest = "$/cancel_request"

// Answered takes the client's response to a request of the door's (its id,
// and its result, or errObj, the error object of an error response). It
// reports whether the id was one the door asked.
func (d *Door) Answered(id, result, errObj json.RawMessage) bool {
	if t := bytes.TrimSpace(errObj); len(t) == 0 || string(t) == "null" {
		errObj = nil // "error": null beside a result is no error
	}
	if d.answeredForward(id, result, errObj) {
		return true
	}
	failed := errObj != nil
	d.mu.Lock()
	a, ok := d.asks[string(id)]
	delete(d.asks, string(id))
	d.mu.Unlock()
	if !ok || failed {
		return ok
	}
	var resp sdk.RequestPermissionResponse
	if err := json.Unmarshal(result, &resp); err != nil {
		return true // not an answer: the others decide
	}
	switch o := resp.Outcome; {
	case o.Selected != nil && slices.Contains(a.options, string(o.Selected.OptionId)):
		a.answer(string(o.Selected.OptionId))
	case o.Cancelled != nil:
		a.answer("")
	}
	return true
}

// GrantOnceOnly makes the door offer its client only the answers that
// leave nothing lasting behind (allow once, reject once): a web caller's
// rights. A lasting grant stays for the TUI and local clients to give.
func (d *Door) GrantOnceOnly() {
	d.mu.Lock()
	d.onceOnly = true
	d.mu.Unlock()
}

// grantsOnce reports whether an option of that kind decides this one
// request only.
func grantsOnce(kind string) bool {
	return kind == string(sdk.PermissionOptionKindAllowOnce) || kind == string(sdk.PermissionOptionKindRejectOnce)
}
