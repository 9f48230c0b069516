package client

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is what a Remote asks the server to do with chats' harnesses:
// start, restart, stop, keys, sizes, prompts and permissions. Each is one
// call, failed at once when the connection is lost.

// call makes a call that may take as long as the server needs (a stop waits
// for the harness's grace period); the connection's end ends it.
func (r *Remote) call(method string, params, result any) error {
	return r.callCtx(context.Background(), method, params, result)
}

func (r *Remote) callCtx(ctx context.Context, method string, params, result any) error {
	if err := r.awaitFirst(ctx); err != nil {
		return err
	}
	r.mu.Lock()
	lost, c := r.lost, r.c
	r.mu.Unlock()
	if lost != nil {
		return lost
	}
	return remoteError(c.Call(ctx, method, params, result))
}

// Start starts the chat's harness unless it runs, in a pty of cols x rows.
func (r *Remote) Start(id string, cols, rows int) error {
	return r.call(proto.MethodStart, proto.ChatParams{ID: id, Cols: cols, Rows: rows}, nil)
}

// Restart stops and starts the chat's harness with its stored folders.
func (r *Remote) Restart(id string, cols, rows int) error {
	return r.call(proto.MethodRestart, proto.ChatParams{ID: id, Cols: cols, Rows: rows}, nil)
}

// FoldersChanged tells the server that the chat's stored folders changed:
// a running chat takes them at the end of its turn.
func (r *Remote) FoldersChanged(id string) error {
	return r.call(proto.MethodFoldersChanged, proto.ChatParams{ID: id}, nil)
}

// Stop stops the chat's harness and waits for it. A failure shows in the
// chat's state, which the server reports.
func (r *Remote) Stop(id string) {
	_ = r.call(proto.MethodStop, proto.ChatParams{ID: id}, nil)
}

// Forget stops the chat and drops its screen, in the server and here.
func (r *Remote) Forget(id string) {
	_ = r.call(proto.MethodForget, proto.ForgetParams{ID: id}, nil)
	r.mu.Lock()
	delete(r.chats, id)
	r.mu.Unlock()
}

// Write sends input to the chat's harness; the server sizes the chat's pty
// to this client's size first, when another client had sized it.
func (r *Remote) Write(id string, p []byte) error {
	return r.call(proto.MethodWrite, proto.WriteParams{ID: id, Data: p}, nil)
}

// ErrNotNow is WriteNow's answer when it cannot send at once (the first
// connection is still being made, or lost): the caller sends with Write.
var ErrNotNow = errors.New("cannot send at once")

// WriteNow sends input as Write does, but returns as soon as it is
// written, not when the server answers: done hears the answer's error on
// the connection's reader goroutine and must not block. It writes from the
// caller's goroutine; with no connection ready it sends nothing and
// returns ErrNotNow.
func (r *Remote) WriteNow(id string, p []byte, done func(error)) error {
	r.mu.Lock()
	lost, c, first := r.lost, r.c, r.firstPending()
	r.mu.Unlock()
	if lost != nil || c == nil || first {
		return ErrNotNow
	}
	return c.Go(proto.MethodWrite, proto.WriteParams{ID: id, Data: p}, func(err error) { done(remoteError(err)) })
}

// ResizeAll sets every chat's pty to this client's size.
func (r *Remote) ResizeAll(cols, rows int) {
	r.mu.Lock()
	r.size = &proto.SizeParams{Cols: cols, Rows: rows}
	r.mu.Unlock()
	_ = r.call(proto.MethodResize, proto.SizeParams{Cols: cols, Rows: rows}, nil)
}

// CreateAndStart creates a chat in the server and starts its harness. When
// the chat was made but did not start, it returns the chat and the error,
// as the embedded mux does.
func (r *Remote) CreateAndStart(n sessions.NewChat, cols, rows int) (*sessions.Meta, error) {
	if n.ID != "" || n.Parent != "" || n.Origin != "" || n.AgentSessionID != "" {
		return nil, errors.New("create chat: a preset id, parent, origin or session cannot be sent to the server")
	}
	p := proto.CreateAndStartParams{
		NewParams: proto.NewParams{Harness: n.Harness, Cwd: n.Cwd, AdditionalDirectories: n.AdditionalDirectories, AdditionalFiles: n.AdditionalFiles, Name: n.Name,
			Worktree: n.Worktree, WorktreeBase: n.WorktreeBase, Sandbox: n.Sandbox},
		Cols: cols, Rows: rows,
	}
	var chat proto.ChatJSON
	err := r.call(proto.MethodCreateAndStart, p, &chat)
	if err == nil {
		return metaOf(chat), nil
	}
	var se *serverError
	if errors.As(err, &se) {
		var data struct {
			Created *proto.ChatJSON `json:"created"`
		}
		if json.Unmarshal(se.rpc.Data, &data) == nil && data.Created != nil {
			return metaOf(*data.Created), err
		}
	}
	return nil, err
}

// Fill has the server start its prewarmed harnesses.
func (r *Remote) Fill() error { return r.call(proto.MethodFill, struct{}{}, nil) }

// Prompt sends text, and the files it links (resource_link blocks after
// it), to an ACP chat and waits for the turn's end (or ctx's), returning
// its stop reason.
func (r *Remote) Prompt(ctx context.Context, id, text string, links ...proto.Link) (string, error) {
	var res proto.PromptResult
	if err := r.callCtx(ctx, proto.MethodPrompt, proto.PromptParams{ID: id, Text: text, Links: links}, &res); err != nil {
		return "", err
	}
	return res.StopReason, nil
}

// Cancel cancels an ACP chat's running turn.
func (r *Remote) Cancel(id string) error {
	return r.call(proto.MethodCancel, proto.ChatParams{ID: id}, nil)
}

// AnswerPermission answers an ACP chat's pending permission request.
func (r *Remote) AnswerPermission(id, optionID string) error {
	return r.call(proto.MethodAnswerPermission, proto.AnswerPermissionParams{ID: id, OptionID: optionID}, nil)
}

// Sync returns once everything the server sent before now has been read:
// a call's answer comes after it on the connection (a screen the server
// sent as a lent pane ended is then this Remote's). Bounded by
// PullTimeout; an error says nothing was waited for.
func (r *Remote) Sync() error {
	ctx, cancel := context.WithTimeout(context.Background(), PullTimeout)
	defer cancel()
	return r.callCtx(ctx, proto.MethodHello, struct{}{}, nil)
}
