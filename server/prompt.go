package server

import (
	"context"
	"slices"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/acp/agent"
	"github.com/acpmux/acpmux-tui/internal/await"
	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file runs ACP turns for every client. The server owns each ACP
// chat's one observer slot and one permission policy in the mux (a chat's
// feed), and fans what the mux hears out to the connections that observe
// the chat, each through a watcher of its own.
//
// A watcher never lets a stream outrun its client. The mux's observer only
// appends to the watcher's backlog (it runs on the agent's reader and must
// not wait); the watcher's goroutine sends the backlog a batch per
// notification, and only while the connection's queue is less than half
// full, so the answers to the client's calls find room and a burst never
// gets a client that reads dropped. What arrives while a batch is on its
// way waits for the next one, and consecutive chunks of one message join in
// the backlog as they join in the transcript: a burst of 100,000 small
// updates is some hundreds of notifications. The backlog is bounded
// (maxBacklog): a client that falls that far behind loses the updates that
// come until it has caught up, and is told where and how many (an
// EntryMissed entry), never silently. A client that stops reading
// altogether is dropped by its connection's write timeout, as any other.
//
// A turn runs in the server, not in the connection that asked for it: a
// client that goes away mid-turn leaves the turn running to its end (as a
// closed TUI leaves its chats running); ctrl+c in `prompt` is an explicit
// MethodCancel. A permission request of a turn that refuses them is refused
// at once and told to the observers; otherwise it waits as a card in the
// mux for a client's MethodAnswerPermission.

// Stream limits of one watcher.
const (
	// maxBacklog bounds what one watcher holds for its client (text bytes
	// plus entryCost per entry).
	maxBacklog = 4 << 20
	// maxBatch bounds one notification's entries (same measure); with the
	// connection's queue kept under half full, what waits there for a
	// client is a few megabytes at most.
	maxBatch = 64 << 10
	// maxJoined bounds the text one entry gathers from joined chunks.
	maxJoined = 32 << 10
	// entryCost is what an entry costs in the backlog besides its text.
	entryCost = 256
	// congestedPoll is how often a watcher looks again at a connection
	// whose queue is half full (the queue tells no one when it empties).
	congestedPoll = 5 * time.Millisecond
)

// noReplyNotice is what observers are told of a turn quiet for
// proto.NoReplyAfter.
var noReplyNotice = "no reply yet after " + proto.NoReplyAfter.String()

// promptHub holds the server's chat feeds. Its zero value is ready.
type promptHub struct {
	mu    sync.Mutex
	feeds map[string]*chatFeed
}

// chatFeed is one ACP chat as the server runs it: its observers and its
// running turn.
type chatFeed struct {
	s  *Server
	id string

	// mu orders every entry to every watcher; it covers no wait: the one
	// write under it, an update sent to a door client at once
	// (watcher.sendNowLocked), never waits for the socket.
	mu       sync.Mutex
	watchers map[*conn]*watcher
	turn     *turn // the turn running, nil between turns
	// terminals are the door clients that made the agent's terminals, by
	// terminal id (door_forward.go).
	terminals map[string]*conn

	// The feed's methods as the mux holds them, made once: feedFor sets
	// them again at every call, and a method value made there would be an
	// allocation each time, twice a prompt.
	deliverFn       func(proto.Entry)
	permissionFn    func(proto.Permission) func()
	configChangedFn func()

	// quiet says when a turn's agent has been quiet for
	// proto.NoReplyAfter; each turn begins and stops it.
	quiet *quietWatch
}

// turn is a prompt call under way in a chat.
type turn struct{ owner *conn }

// feedFor returns the chat's feed, making it on first use, with the mux's
// observer on it. The observer is set again on every call: a chat the mux
// forgot (Forget) comes back without one.
func (s *Server) feedFor(id string) (*chatFeed, *Error) {
	if id == "" {
		return nil, errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	}
	h := &s.prompts
	h.mu.Lock()
	f := h.feeds[id]
	h.mu.Unlock()
	if f == nil {
		// Made and observed before it is kept, so that an id that is no
		// chat leaves nothing behind.
		fresh := &chatFeed{s: s, id: id, watchers: map[*conn]*watcher{}}
		fresh.deliverFn, fresh.permissionFn, fresh.configChangedFn = fresh.deliver, fresh.permission, fresh.sessionConfigChanged
		fresh.quiet = newQuietWatch(proto.NoReplyAfter, fresh.sayQuiet)
		if err := s.opt.Mux.Observe(id, fresh.deliverFn); err != nil {
			return nil, failure(err)
		}
		h.mu.Lock()
		if h.feeds == nil {
			h.feeds = map[string]*chatFeed{}
		}
		if f = h.feeds[id]; f == nil {
			f, h.feeds[id] = fresh, fresh
		}
		h.mu.Unlock()
	}
	// Each caller's last word is the kept feed, so a race of two first
	// calls ends with it observing.
	if err := s.opt.Mux.Observe(id, f.deliverFn); err != nil {
		return nil, failure(err)
	}
	if err := s.opt.Mux.OnPermission(id, f.permissionFn); err != nil {
		return nil, failure(err)
	}
	// The door's: modes and options to tell, requests to forward
	// (door_forward.go).
	if err := s.opt.Mux.OnSessionConfig(id, f.configChangedFn); err != nil {
		return nil, failure(err)
	}
	if err := s.opt.Mux.OnForward(id, feedForwarder{f}); err != nil {
		return nil, failure(err)
	}
	return f, nil
}

// observe answers MethodObserve: the chat's updates stream to c.
func (s *Server) observe(c *conn, p proto.ChatParams) (proto.EmptyResult, *Error) {
	f, rpcErr := s.feedFor(p.ID)
	if rpcErr != nil {
		return proto.EmptyResult{}, rpcErr
	}
	f.observe(c)
	return proto.EmptyResult{}, nil
}

// unobserve answers MethodUnobserve: the stream to c stops.
func (s *Server) unobserve(c *conn, p proto.ChatParams) (proto.EmptyResult, *Error) {
	f, rpcErr := s.feedFor(p.ID)
	if rpcErr != nil {
		return proto.EmptyResult{}, rpcErr
	}
	f.unobserve(c)
	return proto.EmptyResult{}, nil
}

// ready answers MethodReady once the chat's agent has its session, and
// what it sent meanwhile has been queued for c.
func (s *Server) ready(c *conn, p proto.ChatParams) (proto.EmptyResult, *Error) {
	f, rpcErr := s.feedFor(p.ID)
	if rpcErr != nil {
		return proto.EmptyResult{}, rpcErr
	}
	if err := s.refuseWhenClosing(); err != nil {
		return proto.EmptyResult{}, err
	}
	s.track(p.ID)
	err := s.opt.Mux.WaitReady(context.Background(), p.ID)
	s.poke()
	f.waitSent(c)
	if err != nil {
		return proto.EmptyResult{}, failure(err)
	}
	return proto.EmptyResult{}, nil
}

// cancel answers MethodCancel: the chat's running turn is cancelled.
func (s *Server) cancel(p proto.ChatParams) (proto.EmptyResult, *Error) {
	if _, rpcErr := s.feedFor(p.ID); rpcErr != nil {
		return proto.EmptyResult{}, rpcErr
	}
	if err := s.opt.Mux.Cancel(p.ID); err != nil {
		return proto.EmptyResult{}, failure(err)
	}
	return proto.EmptyResult{}, nil
}

// refuseWhenClosing refuses to start an agent in a server on its way out:
// the mux has stopped every harness, and one started now would outlive it.
func (s *Server) refuseWhenClosing() *Error {
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if closing {
		return errorf(proto.CodeFailed, "the server is stopping")
	}
	return nil
}

// prompt runs one turn in the chat and answers its stop reason once the
// turn has ended and everything it said has been queued for c.
func (s *Server) prompt(c *conn, p proto.PromptParams) (proto.PromptResult, *Error) {
	// The files a prompt links are checked where they enter.
	if err := agent.CheckLinks(p.Links); err != nil {
		return proto.PromptResult{}, errorf(proto.CodeInvalidParams, "Invalid params: %v", err)
	}
	f, rpcErr := s.feedFor(p.ID)
	if rpcErr != nil {
		return proto.PromptResult{}, rpcErr
	}
	return s.runTurn(f, c, p)
}

// runTurn is prompt in the chat's feed f, which the caller has from
// feedFor (the door has it already, to observe the chat first).
func (s *Server) runTurn(f *chatFeed, c *conn, p proto.PromptParams) (proto.PromptResult, *Error) {
	return await.Result(func(done func(proto.PromptResult, *Error)) { s.runTurnThen(f, c, p, done) })
}

// runTurnThen is runTurn without waiting for the turn's end: it returns
// once the prompt is on its way to the agent (or refused), and then hears
// the answer, once everything the turn said has been queued for c: on the
// goroutine that read the agent's answer (it must not wait), on this one
// for a turn that never started, or on one of its own when c's updates
// are still queued.
func (s *Server) runTurnThen(f *chatFeed, c *conn, p proto.PromptParams, then func(proto.PromptResult, *Error)) {
	if err := s.refuseWhenClosing(); err != nil {
		then(proto.PromptResult{}, err)
		return
	}
	t := &turn{owner: c}
	if !f.claim(t) {
		then(proto.PromptResult{}, errorf(proto.CodeFailed, "a turn is already running: wait for it or cancel it"))
		return
	}
	s.track(p.ID)
	s.opt.Records.Used(p.ID)
	ctx := context.Background()
	if lent := c.prompting.Load(); lent != nil && lent.chat == p.ID {
		// The door's reader runs this turn until its prompt is sent, and
		// hands the reading on if the turn blocks before (conn_prompt.go).
		// Another goroutine's turn in the chat at this moment (which the
		// reader's then fails to claim) may tell it too: the reading only
		// goes on sooner, or, once the prompt is sent, not at all.
		ctx = agent.WithWaiting(ctx, lent.waits)
	}
	// Ready first, so that a loaded session's replay comes before the
	// turn's mark and is not taken for its reply.
	if err := s.opt.Mux.WaitReady(ctx, p.ID); err != nil {
		f.release(t, nil)
		f.sentThen(c, func() { then(proto.PromptResult{}, failure(err)) })
		return
	}
	var policy mux.PermissionPolicy
	if p.RefusePermissions {
		policy = f.refuse
	}
	if err := s.opt.Mux.SetPermissionPolicy(p.ID, policy); err != nil {
		f.release(t, nil)
		then(proto.PromptResult{}, failure(err))
		return
	}
	f.started(t, p.Text, p.Links)

	f.quiet.begin()
	s.opt.Mux.PromptThen(ctx, p.ID, p.Text, p.Links, func(stop sdk.StopReason, err error) {
		f.quiet.stop()
		if p.RefusePermissions {
			_ = s.opt.Mux.SetPermissionPolicy(p.ID, nil)
		}
		reason := string(stop)
		end := proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryTurnEnded}, StopReason: reason}
		if err != nil {
			end.Error = err.Error()
		}
		f.release(t, &end)
		f.sentThen(c, func() {
			if err != nil {
				then(proto.PromptResult{}, failure(err))
				return
			}
			then(proto.PromptResult{StopReason: reason}, nil)
		})
	})
}

// answerPermission answers the chat's pending permission request with one
// of the options it offers (or "" to cancel it): any other id would reach
// the agent as a choice it never offered.
func (s *Server) answerPermission(p proto.AnswerPermissionParams) (proto.EmptyResult, *Error) {
	if _, err := s.feedFor(p.ID); err != nil {
		return proto.EmptyResult{}, err
	}
	perm := s.opt.Mux.State(p.ID).Permission
	if perm == nil {
		return proto.EmptyResult{}, errorf(proto.CodeFailed, "chat %s has no pending permission request", p.ID)
	}
	if p.OptionID != "" && !slices.ContainsFunc(perm.Options, func(o proto.PermissionOption) bool { return o.ID == p.OptionID }) {
		return proto.EmptyResult{}, errorf(proto.CodeInvalidParams, "Invalid params: optionId %q is not an option of the pending request", clipText(p.OptionID))
	}
	if err := s.opt.Mux.AnswerPermission(p.ID, p.OptionID); err != nil {
		return proto.EmptyResult{}, failure(err)
	}
	return proto.EmptyResult{}, nil
}

// claim makes t the chat's running turn, unless one runs.
func (f *chatFeed) claim(t *turn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.turn != nil {
		return false
	}
	f.turn = t
	return true
}

// started tells every observer that the turn has started.
func (f *chatFeed) started(t *turn, text string, links []proto.Link) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c, w := range f.watchers {
		w.push(proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryTurnStarted, Text: plaintext.Clean(text), Links: links, At: time.Now()}, Own: c == t.owner}, true)
	}
}

// release ends the chat's turn t, telling every observer how it ended
// (end; nil for a turn that never started).
func (f *chatFeed) release(t *turn, end *proto.ObservedEntry) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.turn == t {
		f.turn = nil
	}
	if end != nil {
		end.At = time.Now()
		f.broadcastLocked(*end, true)
	}
}

// deliver is the mux's observer of the chat: it runs on the goroutine that
// reads the agent, so it only queues.
func (f *chatFeed) deliver(e proto.Entry) {
	if !streamed(e.Kind) {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.turn != nil && e.Kind != proto.EntryStderr {
		f.quiet.heard()
	}
	f.broadcastLocked(proto.ObservedEntry{Entry: e}, false)
}

// streamed reports whether entries of kind k, which the mux hears or the
// transcript holds, go to the chat's observers: all but the transcript's
// own notes and errors.
func streamed(k proto.EntryKind) bool {
	return k != proto.EntryNote && k != proto.EntryError
}

// refuse is the permission policy of a turn that refuses them.
func (f *chatFeed) refuse(p proto.Permission) string {
	f.mu.Lock()
	if f.turn != nil {
		f.quiet.heard()
	}
	f.broadcastLocked(proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryRefused, Title: plaintext.Line(p.Title), At: time.Now()}}, false)
	f.mu.Unlock()
	f.s.opt.Logger.Info("refused a permission request", "chat", f.id, "title", p.Title)
	return mux.RefuseAll(p)
}

// sayQuiet tells every observer that the running turn's agent has been
// quiet for proto.NoReplyAfter. A permission request waiting for a client
// is not the agent being quiet.
func (f *chatFeed) sayQuiet() {
	if f.s.opt.Mux.State(f.id).Permission == nil {
		f.broadcast(proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryNotice, Text: noReplyNotice, At: time.Now()}}, false)
	}
}

func (f *chatFeed) broadcast(e proto.ObservedEntry, always bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.broadcastLocked(e, always)
}

func (f *chatFeed) broadcastLocked(e proto.ObservedEntry, always bool) {
	for _, w := range f.watchers {
		w.push(e, always)
	}
}

// observe starts streaming the chat to c (once: a second call changes
// nothing). The watcher's goroutine counts as one of c's calls (hold), so
// c's queue stays open, and c is not quiet, until the goroutine has ended.
func (f *chatFeed) observe(c *conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.watchers[c]; ok {
		return
	}
	w := &watcher{c: c, feed: f, wake: make(chan struct{}, 1), stop: make(chan struct{})}
	f.watchers[c] = w
	c.hold() // within the observe call, which counts already
	go w.run()
}

// unobserve stops streaming the chat to c.
func (f *chatFeed) unobserve(c *conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if w, ok := f.watchers[c]; ok {
		delete(f.watchers, c)
		close(w.stop)
	}
}

// forget takes w out of the feed once its goroutine ends.
func (f *chatFeed) forget(w *watcher) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.watchers[w.c] == w {
		delete(f.watchers, w.c)
	}
}

// waitSent waits until every entry the feed had for c is in c's queue (or
// c no longer observes the chat, or has gone): an answer queued after it
// reaches the client after them.
func (f *chatFeed) waitSent(c *conn) {
	if wait := f.unsent(c); wait != nil {
		wait()
	}
}

// sentThen calls fn once what waitSent waits for is done: at once when it
// is, else on a goroutine of its own that waits.
func (f *chatFeed) sentThen(c *conn, fn func()) {
	wait := f.unsent(c)
	if wait == nil {
		fn()
		return
	}
	go func() {
		wait()
		fn()
	}()
}

// unsent returns what waits until everything queued for c has been sent
// (or c or its watcher has gone); nil when there is nothing to wait for.
func (f *chatFeed) unsent(c *conn) (wait func()) {
	f.mu.Lock()
	w := f.watchers[c]
	f.mu.Unlock()
	if w == nil {
		return nil
	}
	sent := w.sent()
	select {
	case <-sent:
		return nil
	case <-w.stop:
		return nil
	case <-c.gone:
		return nil
	default:
	}
	return func() {
		select {
		case <-sent:
		case <-w.stop:
		case <-c.gone:
		}
	}
}
