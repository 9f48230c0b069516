package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	acp "github.com/coder/acp-go-sdk"
)

// This file sends an agent's client requests (fs/read_text_file,
// fs/write_text_file, terminal/*) on to an ACP client of the chat that
// serves them itself (an editor with unsaved buffers, a terminal of its
// own), through the chat's Forwarder (the server's door sets it). A file
// request is checked against the chat's roots first, exactly as one served
// here: a path outside them is refused before any client sees it. A file
// request no client takes, or that its client leaves unanswered, is served
// here as before; a terminal request no client takes is refused as before.

// ErrNotForwarded says that no client took a request (none serves the
// method, or the one asked went away or did not answer in time): the
// Client serves it, or refuses it, itself.
var ErrNotForwarded = errors.New("no ACP client took the request")

// Forwarder takes an ACP chat's client requests for a client of the
// chat's (the server's door).
type Forwarder interface {
	// Takes reports whether a client would be asked method now (a cheap
	// look, so that a request no client takes is not checked twice).
	Takes(method string) bool
	// Forward sends one of the agent's client requests (method, and req:
	// the SDK's request type, the agent's session id in it) to the client
	// that serves it, and returns the client's answer (its result), or its
	// error answer (an *acp.RequestError), or an error wrapping
	// ErrNotForwarded.
	Forward(ctx context.Context, method string, req any) (json.RawMessage, error)
}

// forwarded sends a request through the chat's ForwardFunc and decodes
// the client's answer into resp. ok is false when no client took it (the
// caller serves it); err, with ok, is the client's error answer.
func (a *Client) forwarded(ctx context.Context, method string, req, resp any) (ok bool, err error) {
	c := a.chat
	f := c.Forwarder(method)
	if f == nil {
		return false, nil
	}
	raw, err := f.Forward(ctx, method, req)
	if errors.Is(err, ErrNotForwarded) {
		if !errors.Is(err, errNoTaker) {
			a.log.Info("an ACP client did not answer a forwarded request: served by the server", "method", method, "err", err)
		}
		return false, nil
	}
	if err != nil {
		var re *acp.RequestError
		if errors.As(err, &re) {
			return true, re
		}
		return true, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	if err := decodeAnswer(method, raw, resp); err != nil {
		a.log.Warn("an ACP client answered a forwarded request with an unusable result: served by the server", "method", method, "err", err)
		return false, nil
	}
	return true, nil
}

// requiredKeys are the fields a client's result must have, by method (the
// SDK's Validate refuses an empty file's content and an empty output, which
// are answers too).
var requiredKeys = map[string][]string{
	acp.ClientMethodFsReadTextFile:  {"content"},
	acp.ClientMethodTerminalCreate:  {"terminalId"},
	acp.ClientMethodTerminalOutput:  {"output", "truncated"},
	acp.ClientMethodFsWriteTextFile: nil,
}

// decodeAnswer decodes a client's result into resp: an object with the
// method's required fields.
func decodeAnswer(method string, raw json.RawMessage, resp any) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return fmt.Errorf("the result is not an object")
	}
	for _, k := range requiredKeys[method] {
		if _, ok := fields[k]; !ok {
			return fmt.Errorf("the result has no %s", k)
		}
	}
	return json.Unmarshal(raw, resp)
}

// errNoTaker marks an ErrNotForwarded that is no failure (no client
// serves the method): it is not logged.
var errNoTaker = fmt.Errorf("%w: no client serves it", ErrNotForwarded)

// NoTaker is the error a Forwarder returns when no client serves the
// method after all (as opposed to one that was asked and did not answer).
func NoTaker() error { return errNoTaker }

// Confine checks a file request's path against the chat's roots as
// serving it would: a read must name a regular file inside them; a write
// a regular file inside them, or a new one in a folder inside them.
func (r Roots) Confine(p string, forWrite bool) error {
	f, err := r.openFile(p, openReadFlags, 0)
	if err == nil {
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return inRootError(err)
		}
		if !fi.Mode().IsRegular() {
			return refuse(codeInvalidParams, RefusalNotRegular, nil)
		}
		return nil
	}
	var fr *fsRefusal
	if !forWrite || !errors.As(err, &fr) || fr.code != codeResourceNotFound {
		return err
	}
	_, err = r.resolve(p, true)
	return err
}

// ConfineDir checks a terminal's cwd: a folder inside the chat's roots.
func (r Roots) ConfineDir(p string) error {
	clean, err := r.requestPath(p)
	if err != nil {
		return err
	}
	h, rel, err := r.rootFor(clean)
	if err != nil {
		return err
	}
	sub, err := h.OpenRoot(rel)
	if err != nil {
		return inRootError(err)
	}
	defer sub.Close()
	d, err := sub.Open(".")
	if err != nil {
		return inRootError(err)
	}
	if err := r.refuseOffLimits(d); err != nil {
		return err
	}
	d.Close()
	return nil
}

// forwardFile checks a file request against the roots and, when a client
// takes it, returns its answer (done true); otherwise the caller serves
// it. A refusal by the roots is the answer, before any client is asked.
func (a *Client) forwardFile(ctx context.Context, method, path string, forWrite bool, req, resp any) (done bool, err error) {
	if a.chat.Forwarder(method) == nil {
		return false, nil
	}
	r := a.roots
	r.bindTo(a.life)
	if err := r.acquire(ctx); err != nil {
		return true, a.refused(method, path, err)
	}
	err = r.Confine(path, forWrite)
	r.release()
	if err != nil {
		return true, a.refused(method, path, err)
	}
	return a.forwarded(ctx, method, req, resp)
}

// forwardTerminal sends a terminal request to the client that serves
// terminals; without one it is refused as before (method not found). A
// terminal's cwd must be a folder inside the chat's roots.
func (a *Client) forwardTerminal(ctx context.Context, method string, req, resp any) error {
	if cr, ok := req.(acp.CreateTerminalRequest); ok && cr.Cwd != nil {
		if err := a.roots.ConfineDir(*cr.Cwd); err != nil {
			return a.refused(method, *cr.Cwd, err)
		}
	}
	ok, err := a.forwarded(ctx, method, req, resp)
	if !ok {
		return acp.NewMethodNotFound(method)
	}
	return err
}
