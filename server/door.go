package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/acpmux/acpmux-tui/acp"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/rpcline"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	sdk "github.com/coder/acp-go-sdk"
)

// This file is where the server meets the ACP door (package acp): a
// connection whose first call is initialize speaks ACP from then on, and
// its calls go to an acp.Door over a doorBackend, which makes them with the
// server's own machinery: the chat service for chats and folders (as the
// command line and the _acpmux/* handlers make them), the typed handlers
// and chat feeds of prompt.go for turns and their streams. The
// guard, the line limit, the bounded queue and the admission rules are the
// connection's, the same as for the _acpmux/* protocol.

// runDoor makes one ACP call and sends its answer. A panic in a handler is
// answered as an internal error and logged, as for the _acpmux/* calls.
func (c *conn) runDoor(req Request) {
	result, rpcErr := c.callDoor(req)
	c.answerDoor(req, result, rpcErr)
}

// answerDoor sends the answer of req, an ACP call.
func (c *conn) answerDoor(req Request, result any, rpcErr *Error) {
	if !req.Notification() {
		c.reply(req.ID, result, rpcErr)
	} else if rpcErr != nil {
		c.s.opt.Logger.Info("ACP notification refused", "method", clipText(req.Method), "err", rpcErr.Message)
	}
}

// runDoorThen is runDoor, whose answer may come after it returns (a
// session/prompt: Door.CallThen); done runs once the answer is sent.
func (c *conn) runDoorThen(req Request, done func()) {
	var answered atomic.Bool
	answer := func(result any, err error) {
		if !answered.CompareAndSwap(false, true) {
			return
		}
		var rpcErr *Error
		if err != nil {
			rpcErr = doorError(err)
		}
		c.answerDoor(req, result, rpcErr)
		done()
	}
	defer func() {
		if r := recover(); r != nil {
			c.s.opt.Logger.Error("panic in an ACP call", "method", req.Method, "panic", r, "stack", string(debug.Stack()))
			answer(nil, errorf(proto.CodeInternalError, "Internal error: %v", r))
		}
	}()
	c.door.CallThen(req.Method, req.Params, answer)
}

func (c *conn) callDoor(req Request) (result any, rpcErr *Error) {
	defer func() {
		if r := recover(); r != nil {
			c.s.opt.Logger.Error("panic in an ACP call", "method", req.Method, "panic", r, "stack", string(debug.Stack()))
			result, rpcErr = nil, errorf(proto.CodeInternalError, "Internal error: %v", r)
		}
	}()
	// The config was read again in run, before the call came here.
	result, err := c.door.Call(req.Method, req.Params)
	if err != nil {
		return nil, doorError(err)
	}
	return result, nil
}

// doorError is an error of the door or of the server as it goes on the
// wire.
func doorError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var ae *acp.Error
	if errors.As(err, &ae) {
		return &Error{Code: ae.Code, Message: ae.Message, Data: ae.Data, raw: ae.Raw}
	}
	return failure(err)
}

// fail is rpcErr as an error, nil for none (a nil *Error in an error would
// not be nil).
func fail(rpcErr *Error) error {
	if rpcErr == nil {
		return nil
	}
	return rpcErr
}

// doorBackend is the server as one ACP connection's door sees it.
type doorBackend struct {
	s *Server
	c *conn
}

var _ acp.Backend = (*doorBackend)(nil)

func (b *doorBackend) Harness(name string) (string, error) {
	t := b.s.table()
	if name == "" {
		if name = t.DefaultACP(b.s.config(), b.s.opt.Getenv); name == "" {
			return "", errorf(proto.CodeFailed, "no ACP harness is installed: install one (%s), or name one with acpmux-tui acp --harness NAME or default_acp_harness in the config", acpNames(t))
		}
	}
	spec, ok := t.Get(name)
	if !ok {
		return "", errorf(proto.CodeInvalidParams, "Invalid params: unknown harness %q (ACP harnesses: %s)", clipText(name), acpNames(t))
	}
	if spec.Transport != harness.TransportACP {
		return "", errorf(proto.CodeInvalidParams, "Invalid params: harness %q runs in a terminal; the ACP door needs an ACP harness (%s)", clipText(name), acpNames(t))
	}
	return name, nil
}

// acpNames lists the table's ACP harnesses.
func acpNames(t *harness.Table) string {
	var names []string
	for _, s := range t.All() {
		if s.Transport == harness.TransportACP {
			names = append(names, s.Name)
		}
	}
	return strings.Join(names, ", ")
}

// NewChat makes the door's chat through the chat service: origin acp, in
// the folder the client names (no worktree: an ACP client's session runs
// where it says), its folders refused when one repeats another, as ACP
// asks, besides what the shared validator refuses.
func (b *doorBackend) NewChat(n acp.NewChat) (acp.Chat, error) {
	noWorktree := false
	sandbox, refused := b.s.webSandbox(b.c, nil)
	if refused != nil {
		return acp.Chat{}, refused
	}
	nc, err := b.s.chats.Check(sessions.NewChat{Harness: n.Harness, Cwd: n.Cwd, AdditionalDirectories: n.AdditionalDirectories,
		Origin: sessions.OriginACP, Worktree: &noWorktree, Sandbox: sandbox})
	if err != nil {
		return acp.Chat{}, failure(err)
	}
	if err := b.s.chats.CheckNoRepeats(nc.Cwd, nc.AdditionalDirectories); err != nil {
		return acp.Chat{}, failure(err)
	}
	m, err := b.s.chats.Create(nc)
	if err != nil {
		return acp.Chat{}, failure(err)
	}
	return b.chat(m), nil
}

// chat is a chat as the door shows it.
func (b *doorBackend) chat(m *sessions.Meta) acp.Chat {
	at := proto.LastUpdate(b.s.opt.Mux.Transcript(m.ID))
	if at.IsZero() {
		at = m.Created
	}
	return acp.Chat{
		ID: m.ID, Name: m.Label(), Harness: m.Harness, Cwd: m.Cwd,
		AdditionalDirectories: m.AdditionalDirectories, AdditionalFiles: m.AdditionalFiles,
		UpdatedAt: at.UTC().Format(time.RFC3339),
	}
}

// speaksACP reports whether the chat's harness speaks ACP.
func (b *doorBackend) speaksACP(m *sessions.Meta) bool {
	spec, ok := b.s.table().Get(m.Harness)
	return ok && spec.Transport == harness.TransportACP
}

func (b *doorBackend) Chats() ([]acp.Chat, error) {
	entries, err := b.s.opt.Store.List()
	if err != nil {
		return nil, errorf(proto.CodeFailed, "list chats: %v", err)
	}
	var out []acp.Chat
	for _, e := range entries {
		if e.Meta != nil && b.speaksACP(e.Meta) {
			out = append(out, b.chat(e.Meta))
		}
	}
	slices.SortFunc(out, func(x, y acp.Chat) int {
		switch {
		case x.ID < y.ID:
			return -1
		case x.ID > y.ID:
			return 1
		}
		return 0
	})
	return out, nil
}

func (b *doorBackend) Chat(id string) (acp.Chat, error) {
	if id == "" {
		return acp.Chat{}, errorf(proto.CodeInvalidParams, "Invalid params: sessionId is required")
	}
	m, err := b.s.opt.Store.Load(id)
	if err != nil {
		return acp.Chat{}, failure(err)
	}
	if !b.speaksACP(m) {
		return acp.Chat{}, errorf(proto.CodeInvalidParams, "Invalid params: chat %s runs %s in a terminal; the ACP door drives ACP chats only", id, clipText(m.Harness))
	}
	return b.chat(m), nil
}

// SetFolders replaces the chat's folders through the chat service, a
// repeated one refused as ACP asks.
func (b *doorBackend) SetFolders(id string, dirs []string) error {
	m, err := b.s.opt.Store.Load(id)
	if err != nil {
		return failure(err)
	}
	if err := b.s.chats.CheckNoRepeats(m.Cwd, dirs); err != nil {
		return failure(err)
	}
	if _, err := b.s.chats.SetFolders(id, dirs); err != nil {
		return failure(err)
	}
	return nil
}

func (b *doorBackend) SetMcpServers(id string, servers []sdk.McpServer) {
	b.s.opt.Mux.SetMcpServers(id, servers)
}

func (b *doorBackend) Open(id string, replay bool) error {
	f, rpcErr := b.s.feedFor(id)
	if rpcErr != nil {
		return rpcErr
	}
	if rpcErr := b.s.refuseWhenClosing(); rpcErr != nil {
		return rpcErr
	}
	b.s.track(id)
	err := b.s.opt.Mux.WaitReady(context.Background(), id)
	b.s.poke()
	if err != nil {
		return failure(err)
	}
	var past []proto.Entry
	if replay {
		past = b.s.opt.Mux.Transcript(id)
	}
	f.observeFrom(b.c, past)
	f.waitSent(b.c)
	return nil
}

func (b *doorBackend) PromptThen(id, text string, links []proto.Link, then func(string, error)) {
	f, rpcErr := b.s.feedFor(id)
	if rpcErr != nil {
		then("", rpcErr)
		return
	}
	f.observe(b.c)
	// Door.prompt checked the links where they entered.
	b.s.runTurnThen(f, b.c, proto.PromptParams{ID: id, Text: text, Links: links}, func(res proto.PromptResult, rpcErr *Error) {
		if rpcErr != nil {
			then("", rpcErr)
			return
		}
		then(res.StopReason, nil)
	})
}

func (b *doorBackend) Cancel(id string) error {
	_, rpcErr := b.s.cancel(proto.ChatParams{ID: id})
	return fail(rpcErr)
}

// Fork is the chat service's fork, as `acpmux-tui fork` and the TUI's f
// make it: a worktree chat's fork gets a worktree of its own, and a
// capsule of what was said is written where the harness may not branch
// the conversation itself (an ACP agent's session/fork drops it when it
// works).
func (b *doorBackend) Fork(id, cwd string) (acp.Chat, error) {
	sandbox, refused := b.s.webSandbox(b.c, nil)
	if refused != nil {
		return acp.Chat{}, refused
	}
	m, err := b.s.chats.Derive(id, sessions.Derivation{Origin: sessions.OriginFork, Cwd: cwd, MakeCapsule: true, Sandbox: sandbox})
	if err != nil {
		return acp.Chat{}, failure(err)
	}
	return b.chat(m), nil
}

// Close stops the chat's stream to this connection (as _acpmux/unobserve
// does), making no feed where the connection had none.
func (b *doorBackend) Close(id string) {
	h := &b.s.prompts
	h.mu.Lock()
	f := h.feeds[id]
	h.mu.Unlock()
	if f != nil {
		f.unobserve(b.c)
	}
}

// Delete is the chat service's removal, as `acpmux-tui rm` without --force
// and _acpmux/remove make it: the agent stopped, the chat's file removed,
// and a removal that would lose work refused with the reason.
func (b *doorBackend) Delete(id string) error {
	_, rpcErr := b.s.remove(proto.RemoveParams{ID: id})
	return fail(rpcErr)
}

// Request sends a request of the door's to the client.
func (b *doorBackend) Request(method string, id json.RawMessage, params any) error {
	line, err := encodeRequest(id, method, params)
	if err != nil {
		return fmt.Errorf("encode %s: %w", method, err)
	}
	if b.c.send(line) == 0 {
		return fmt.Errorf("send %s: the client is gone", method)
	}
	return nil
}

// Notify sends a notification of the door's to the client.
func (b *doorBackend) Notify(method string, params any) error {
	if b.c.notify(method, params) == 0 {
		return fmt.Errorf("send %s: the client is gone", method)
	}
	return nil
}

// encodeRequest is one request line.
func encodeRequest(id json.RawMessage, method string, params any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  any             `json:"params"`
	}{"2.0", id, method, params})
	return buf.Bytes(), err
}

// doorResponse takes a response line of the client's (DecodeLine passed it
// as valid JSON that is no request) to a request of its door's.
func (c *conn) doorResponse(line []byte) {
	m, ok := rpcline.Split(bytes.TrimSpace(line))
	if !ok || m.Method != nil || m.ID == nil || m.Result == nil && m.Error == nil {
		return
	}
	if !c.door.Answered(bytes.Clone(m.ID), bytes.Clone(m.Result), bytes.Clone(m.Error)) {
		c.s.opt.Logger.Debug("ACP client answered a request the door did not send", "id", clipText(string(m.ID)))
	}
}

// permission hears a permission request of the chat that waits as a card:
// the door client whose prompt runs the turn is asked too (or, when it has
// gone, another door client of the chat), and its answer is the card's
// unless the TUI answered first; then the client is told. It returns what
// the mux calls once the card no longer waits.
func (f *chatFeed) permission(p proto.Permission) (resolved func()) {
	f.mu.Lock()
	var target *conn
	if t := f.turn; t != nil && t.owner.door != nil {
		if !isGone(t.owner) {
			target = t.owner
		} else {
			for c := range f.watchers {
				if c.door != nil && !isGone(c) {
					target = c
					break
				}
			}
		}
	}
	f.mu.Unlock()
	if target == nil {
		return nil // the turn is the TUI's or the CLI's: the card waits for it
	}
	ask := acp.Permission{ToolCallID: p.ToolCallID, Title: p.Title, Kind: p.Kind, Content: p.Content}
	for _, o := range p.Options {
		ask.Options = append(ask.Options, acp.PermissionOption{ID: o.ID, Name: o.Name, Kind: o.Kind})
	}
	// Once the card is answered, by the client or first by the TUI, the
	// client's request is withdrawn (a no-op when it was the answer).
	return target.door.AskPermission(f.id, ask, func(option string) {
		if ok, _ := f.s.opt.Mux.AnswerPermissionSeq(f.id, p.Seq, option); !ok {
			f.s.opt.Logger.Info("an ACP client answered a permission request already answered", "chat", f.id)
		}
	})
}

func isGone(c *conn) bool {
	select {
	case <-c.gone:
		return true
	default:
		return c.dropped.Load()
	}
}

// observeFrom streams the chat to c as observe does, the streamed entries
// of past (the transcript, for a replay) first: they are in c's backlog
// before any live update. Each goes into the backlog as it is read, with
// no list of them all made first (a replay of 10,000 entries).
func (f *chatFeed) observeFrom(c *conn, past []proto.Entry) {
	f.observe(c)
	f.mu.Lock()
	defer f.mu.Unlock()
	w := f.watchers[c]
	if w == nil {
		return
	}
	for _, e := range past {
		if streamed(e.Kind) {
			w.push(proto.ObservedEntry{Entry: e}, true)
		}
	}
}

// flushDoor sends a batch to an ACP connection as session/update
// notifications, one line each (acp.EncodeUpdate), each only while the
// connection's queue is less than half full; false once the watcher is to
// end.
func (w *watcher) flushDoor(batch []proto.ObservedEntry) bool {
	for _, n := range w.c.door.Updates(w.feed.id, batch) {
		if !w.room() {
			return false
		}
		w.sendUpdate(n)
	}
	return true
}

// sendUpdate sends one session/update notification to the connection.
func (w *watcher) sendUpdate(n sdk.SessionNotification) {
	line, err := acp.EncodeUpdate(n)
	if err != nil {
		w.c.s.opt.Logger.Error("encode notification", "method", acp.MethodUpdate, "err", err)
		return
	}
	w.c.send(line)
}

// room waits until the connection's queue is less than half full; false
// once the watcher is to end.
func (w *watcher) room() bool {
	for len(w.c.out) >= cap(w.c.out)/2 {
		t := time.NewTimer(congestedPoll)
		select {
		case <-t.C:
		case <-w.stop:
			t.Stop()
			return false
		case <-w.c.gone:
			t.Stop()
			return false
		}
	}
	return true
}

// sendNowLocked sends e to an ACP connection at once, on the goroutine
// that heard it (the agent's reader, for an update), when nothing of the
// stream waits before it (an empty backlog, no batch on its way, nothing
// missed) and the connection's queue is less than half full: the
// watcher's goroutine would only add a hand-off, and a wait to be
// scheduled, between the agent and the client. send never waits (a line
// the socket does not take at once goes to the connection's queue), so
// the caller's locks cover no wait. It reports whether e was dealt with;
// w.mu is held.
func (w *watcher) sendNowLocked(e proto.ObservedEntry) bool {
	if w.c == nil || w.c.door == nil || len(w.backlog) > 0 || w.missed > 0 || w.sending ||
		e.Kind == acp.EntrySessionConfig || len(w.c.out) >= cap(w.c.out)/2 {
		return false
	}
	for _, n := range w.c.door.Updates(w.feed.id, []proto.ObservedEntry{e}) {
		w.sendUpdate(n)
	}
	return true
}

// promptsALiveAgent reports whether req is a session/prompt to a chat
// whose agent runs, and names the chat: it starts nothing, so the config
// need not be read again before it (five system calls and some tens of
// microseconds on a prompt's way to the agent). The session id is the
// chat's id.
func (s *Server) promptsALiveAgent(req Request) (chat string, live bool) {
	if req.Method != sdk.AgentMethodSessionPrompt {
		return "", false
	}
	var id string
	found := false
	rpcline.Each(req.Params, func(key, value []byte) bool {
		if string(key) == `"sessionId"` {
			id, found = rpcline.Unquote(value)
			return false
		}
		return true
	})
	return id, found && id != "" && s.opt.Mux.State(id).Status.Live()
}
