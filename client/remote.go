package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file is the TUI's mux over the wire: Remote does what the TUI asks
// of a mux by calling the server, and keeps what the TUI reads on every
// change (each chat's state and terminal) in memory, fed by the server's
// change notifications, so those reads never wait on the socket.

// PullTimeout bounds Render and Transcript, which the TUI calls while it
// draws: past it the TUI is given the last text it got.
const PullTimeout = 5 * time.Second

// Remote is a mux that lives in the server: it satisfies the TUI's Mux
// interface over one connection at a time. Closing it closes the
// connection and leaves every harness running. When the connection ends
// (kill-server, a crash), each chat that was running is shown failed with
// the reason and every call fails at once; with Follow, the Remote dials
// again with a backoff until a server answers, then watches its chats, and
// the chats' states and the shown chat's screen come back.
type Remote struct {
	changes chan string
	notices chan proto.Notice
	// link hears of each loss and return of the connection (see Link).
	link chan struct{}
	// wake cuts the backoff of the redial loop short: a server was just
	// started.
	wake chan struct{}
	// home and binary are where to dial again, and the program that starts
	// a server; home is "" until Follow.
	home, binary string
	news         chan proto.News

	mu     sync.Mutex
	c      *Conn // the connection in use, replaced on a reconnection
	chats  map[string]*remoteChat
	ready  bool                 // the watch call has been answered
	early  []proto.StatesResult // notifications that came before it
	lost   error                // why the connection ended, once it has
	closed bool

	// shown is the chat the client draws, as last asked of Show; showing
	// is set while a goroutine tells the server of it; acked is the chat
	// the server last said it takes as shown. A screen the server sends
	// with a change is taken only while the three agree.
	shown   *string
	showing bool
	acked   *string
	// looked is the chat last named to Look, and size the last size given
	// to ResizeAll: both are told again to a server reconnected to.
	looked *string
	size   *proto.SizeParams
	// redialing is set while the redial loop runs.
	redialing bool
	// dial makes a new connection for the redial loop (nil: the Remote
	// does not follow), bounded by dialTimeout, with waits from
	// backoffFirst doubling to backoffMax between failures; host is the
	// configured host it dials over ssh ("" for the local server).
	dial                     func(ctx context.Context) (*Conn, error)
	dialTimeout              time.Duration
	backoffFirst, backoffMax time.Duration
	host                     string
	// files is the agent home's store when this client runs on the
	// server's machine: List reads the chat files itself (ReadFilesFrom).
	files *sessions.Store
	// connecting, for a Remote made before its first connection
	// (NewConnectingRemote), is closed once ConnectWith has made it or
	// failed; connectErr then says why it failed.
	connecting chan struct{}
	connectErr error
	// cfg is the server's config as last heard (remote_config.go).
	cfg remoteConfig
}

// remoteChat is what a Remote holds of one chat.
type remoteChat struct {
	view proto.ChatView
	// pending is set while a change notice for the chat waits in Changes.
	pending bool
	// text and entries are the last screen and transcript the server sent,
	// shown again when it cannot be asked.
	text    string
	entries []proto.Entry
	// epoch, seq and base say which transcript entries are and as of
	// which of its changes, and where they start in the conversation:
	// the server then sends only what changed since.
	epoch, seq uint64
	base       int64
	// rows are the lines of the screen the server last told unasked
	// (ChatView.Screen), which its next patch changes; screen is them
	// joined. pushed is set while that is the chat's screen as it is (the
	// chat is the one shown): Render needs no round trip.
	rows   []string
	screen string
	pushed bool
}

// NewRemote makes c the connection of a Remote: it watches every chat the
// server's mux knows, and reports each of them on Changes once, so the TUI
// reads them all. The Remote owns c from then on, even on an error.
func NewRemote(c *Conn) (*Remote, error) {
	r := newRemote()
	r.c = c
	if err := r.adopt(c, StartTimeout); err != nil {
		return nil, err
	}
	return r, nil
}

func newRemote() *Remote {
	return &Remote{changes: make(chan string, 1024), notices: make(chan proto.Notice, 16), chats: map[string]*remoteChat{},
		link: make(chan struct{}, 1), wake: make(chan struct{}, 1), news: make(chan proto.News, 16),
		cfg: remoteConfig{changed: make(chan struct{}, 1)}}
}

// adopt makes c the Remote's connection: it watches every chat the server
// knows and reports each of them (and each known before) on Changes. On an
// error c is closed and the Remote is as it was.
func (r *Remote) adopt(c *Conn, timeout time.Duration) error {
	r.mu.Lock()
	r.ready, r.early = false, nil
	r.mu.Unlock()
	c.OnNotify(r.notified)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var res proto.StatesResult
	if err := c.Call(ctx, proto.MethodWatch, proto.SizeParams{}, &res); err != nil {
		c.Close()
		return fmt.Errorf("watch the server's chats: %w", err)
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		c.Close()
		return errors.New("the remote is closed")
	}
	// The first connection of a connecting Remote is no return: nothing
	// was told of a server before it. It ends the wait of the calls made
	// meanwhile in the same step as it is made, so a Look either finds
	// the connection or is told here.
	first := r.firstPending()
	again := r.lost != nil && !first
	r.c, r.lost, r.acked = c, nil, nil
	fetchConfig, epoch := r.configAdopted()
	if first {
		close(r.connecting)
	}
	if again {
		// What the last server told is no more: a chat it does not
		// report now is stopped, and every screen is asked for again.
		// Its last screen stays until the new server sends one.
		for _, ch := range r.chats {
			was := ch.view.State
			ch.view = proto.ChatView{State: proto.State{Status: proto.StatusStopped, Started: was.Started, Transport: was.Transport}}
			ch.rows, ch.screen, ch.pushed = nil, "", false
		}
	}
	// Notifications that came before the answer hold states read after its
	// snapshot (the server orders the two): they go on top of it.
	r.apply(res)
	for _, n := range r.early {
		r.apply(n)
	}
	r.early, r.ready = nil, true
	for id := range r.chats {
		r.noticeLocked(id)
	}
	looked, size := r.looked, r.size
	if again && r.shown != nil && !r.showing {
		r.showing = true
		go r.tellShown()
	}
	r.mu.Unlock()
	go r.watchConn(c)
	if fetchConfig {
		go r.fetchConfig(c, epoch)
	}
	if first && looked != nil {
		go func() { _ = r.call(proto.MethodLook, proto.LookParams{ID: *looked}, nil) }()
	}
	if again {
		// The new server hears what this client looks at and its size.
		go func() {
			if size != nil {
				_ = r.call(proto.MethodResize, *size, nil)
			}
			if looked != nil {
				_ = r.call(proto.MethodLook, proto.LookParams{ID: *looked}, nil)
			}
		}()
		r.signalLink()
	}
	return nil
}

// notified hears the server's notifications on the connection's reader
// goroutine: it only updates memory and never blocks.
func (r *Remote) notified(method string, params json.RawMessage) {
	if method == proto.NotifyNotice {
		var n proto.Notice
		if json.Unmarshal(params, &n) == nil {
			select {
			case r.notices <- n:
			default: // the TUI is far behind: it misses a notification
			}
		}
		return
	}
	if method == proto.NotifyChatsChanged || method == proto.NotifyConfigRefused {
		r.heardNews(method, params)
		return
	}
	if method == proto.NotifyConfigChanged {
		r.heardConfig(params)
		return
	}
	if method == proto.NotifyScreen {
		u, err := proto.DecodeScreenUpdate(params)
		if err != nil {
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		ch := r.chat(u.ID)
		ch.view.Terminal.CursorCol, ch.view.Terminal.CursorRow = u.Cursor[0], u.Cursor[1]
		ch.pushed = ch.patch(&u.Screen) && r.showsLocked(u.ID)
		r.noticeLocked(u.ID)
		return
	}
	if method != proto.NotifyChanged {
		return
	}
	var n proto.StatesResult
	if json.Unmarshal(params, &n) != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.ready {
		r.early = append(r.early, n)
		return
	}
	r.apply(n)
	for id := range n.States {
		r.noticeLocked(id)
	}
}

// apply stores states the server sent, and the screens sent with them;
// r.mu is held.
func (r *Remote) apply(n proto.StatesResult) {
	for id, v := range n.States {
		ch := r.chat(id)
		ch.pushed = v.Screen != nil && ch.patch(v.Screen) && r.showsLocked(id)
		v.Screen = nil
		ch.view = v
	}
}

// patch applies a screen the server told, whole or as the lines that
// changed, and reports whether the chat's screen is known now.
func (ch *remoteChat) patch(p *proto.ScreenPatch) bool {
	if p.Full != nil {
		ch.rows = strings.Split(*p.Full, "\n")
		ch.screen = *p.Full
		return true
	}
	if ch.rows == nil {
		return false // no screen to patch: Render asks for it
	}
	for i, row := range p.Rows {
		if i < 0 || i >= len(ch.rows) {
			ch.rows = nil
			return false
		}
		ch.rows[i] = row
	}
	if len(p.Rows) > 0 {
		ch.screen = strings.Join(ch.rows, "\n")
	}
	return true
}

// showsLocked reports whether the chat is the one shown, and the server
// has said it takes it as shown; r.mu is held.
func (r *Remote) showsLocked(id string) bool {
	return r.shown != nil && r.acked != nil && *r.shown == id && *r.acked == id
}

// unpushLocked forgets every screen sent unasked: the chat shown changed,
// and the server will not keep them up to date. r.mu is held.
func (r *Remote) unpushLocked() {
	for _, ch := range r.chats {
		ch.pushed = false
	}
}

// chat returns a chat's entry, made on first use; r.mu is held.
func (r *Remote) chat(id string) *remoteChat {
	ch, ok := r.chats[id]
	if !ok {
		ch = &remoteChat{}
		r.chats[id] = ch
	}
	return ch
}

// noticeLocked reports the chat on Changes unless a notice for it waits
// already; when the TUI is far behind, the notice is dropped and the
// chat's next change is told. r.mu is held.
func (r *Remote) noticeLocked(id string) {
	ch := r.chat(id)
	if ch.pending {
		return
	}
	select {
	case r.changes <- id:
		ch.pending = true
	default:
	}
}

// watchConn waits for the connection's end. Unless the Remote was closed,
// every chat that was running is shown failed, saying the server is gone:
// the TUI shows it rather than screens that no longer move.
func (r *Remote) watchConn(c *Conn) {
	<-c.Done()
	c.mu.Lock()
	cause := c.err
	c.mu.Unlock()
	r.mu.Lock()
	host := r.host
	r.mu.Unlock()
	var linkErr error
	if host != "" {
		// What ssh said of its end, read before r.mu is taken: it may
		// wait a moment for the process to go.
		linkErr = LinkError(c)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.c != c {
		return
	}
	then := "quit and open the TUI again"
	if r.dial != nil {
		then = "reconnecting when one is back"
	}
	if linkErr != nil {
		r.lost = fmt.Errorf("%v; reconnecting", linkErr)
	} else {
		r.lost = fmt.Errorf("lost the connection to the server (%v); %s", cause, then)
	}
	for id, ch := range r.chats {
		// A host's chats run on over there while its link is down: they
		// keep their states (the TUI says the link is down), and the
		// server says how they are once the link is back.
		if ch.view.State.Status.Live() && linkErr == nil {
			st := &ch.view.State
			st.Status, st.Reason, st.LastError, st.Pid = proto.StatusFailed, r.lost.Error(), r.lost.Error(), 0
			st.LastOutput = "" // what a harness said is not why the server went
		}
		r.noticeLocked(id)
	}
	r.signalLink()
	if r.dial != nil && !r.redialing {
		r.redialing = true
		go r.redial()
	}
}

// heardNews passes on what the server told of chat files changed on disk
// or a config it refused. It never blocks: past a full queue a notice is
// dropped, which loses no change of chats, as the TUI reads every chat
// again when it takes one of those still queued.
func (r *Remote) heardNews(method string, params json.RawMessage) {
	var n proto.News
	if method == proto.NotifyChatsChanged {
		var p proto.ChatsChangedParams
		if json.Unmarshal(params, &p) != nil || len(p.IDs) == 0 {
			return
		}
		n.Chats = p.IDs
	} else {
		var p proto.ConfigRefusedParams
		if json.Unmarshal(params, &p) != nil || p.Message == "" {
			return
		}
		n.ConfigRefused = p.Message
	}
	select {
	case r.news <- n:
	default:
	}
}

// News delivers what the server tells of changes made outside this
// client: chat files changed on disk, a config it refused.
func (r *Remote) News() <-chan proto.News { return r.news }

// Notices delivers the server's notices of chats that need their user
// while nobody looks at them.
func (r *Remote) Notices() <-chan proto.Notice { return r.notices }

// Look tells the server which chat the user sees now ("" for none): it is
// not announced while they do, and its unread mark goes.
func (r *Remote) Look(id string) error {
	r.mu.Lock()
	r.looked = &id
	first := r.firstPending()
	r.mu.Unlock()
	if first {
		// Told with the first connection (adopt): the TUI says which
		// chat it shows while it draws, and must not wait for a server.
		return nil
	}
	return r.call(proto.MethodLook, proto.LookParams{ID: id}, nil)
}

// Changes delivers ids of chats whose state or screen changed, at most one
// pending per chat until State or Render is called for it.
func (r *Remote) Changes() <-chan string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changes
}

// shareChanges has the Remote tell its changes on ch from now on, with
// what it told and was not yet read: the local server's Remote tells the
// Router's channel itself, so a key's echo reaches the TUI with no
// goroutine in between to wake.
func (r *Remote) shareChanges(ch chan string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.changes
	r.changes = ch
	for {
		select {
		case id := <-old:
			select {
			case ch <- id:
			default: // the TUI is far behind: the chat's next change is told
				r.chat(id).pending = false
			}
		default:
			return
		}
	}
}

// State returns the chat's state as last sent; a chat the server has not
// reported is stopped.
func (r *Remote) State(id string) proto.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	ch, ok := r.chats[id]
	if !ok {
		return proto.State{Status: proto.StatusStopped}
	}
	ch.pending = false
	return ch.view.State
}

// Terminal returns the chat's terminal as last sent.
func (r *Remote) Terminal(id string) proto.Terminal {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ch, ok := r.chats[id]; ok {
		return ch.view.Terminal
	}
	return proto.Terminal{}
}

// Show tells the server which chat the client draws ("" for none): of the
// others it then hears only when their state changes, not of every change
// of their screens, which with many chats at work is most of the news. It
// does not wait: the server is told in order, from a goroutine, and tells
// of the chat newly shown at once, as it is now.
func (r *Remote) Show(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.shown != nil && *r.shown == id {
		return
	}
	r.shown = &id
	r.unpushLocked()
	if !r.showing {
		r.showing = true
		go r.tellShown()
	}
}

// tellShown tells the server of the chat shown until it has been told of
// the last one Show named.
func (r *Remote) tellShown() {
	_ = r.awaitFirst(context.Background())
	var told *string
	for {
		r.mu.Lock()
		want := r.shown
		if (told != nil && *told == *want) || r.lost != nil || r.closed {
			r.showing = false
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		ids := []string{}
		if *want != "" {
			ids = append(ids, *want)
		}
		r.mu.Lock()
		c := r.c
		r.mu.Unlock()
		if err := r.call(proto.MethodShow, proto.ShowParams{IDs: ids}, nil); err != nil {
			var answered *serverError
			r.mu.Lock()
			if !errors.As(err, &answered) && r.c != c && r.lost == nil && !r.closed {
				// The connection was replaced under the call: tell the
				// new server.
				r.mu.Unlock()
				told = nil
				continue
			}
			// A server without the method tells of every chat, as
			// before; a connection lost is told again once it is back.
			r.showing = false
			r.mu.Unlock()
			return
		}
		told = want
		r.mu.Lock()
		r.acked = want
		// A screen sent before this answer may be of a chat the server
		// had stopped telling of; the next one will be sent after it.
		r.unpushLocked()
		r.mu.Unlock()
	}
}

// Render asks the server for the chat's screen, scrolled up by scroll
// lines. On any failure it returns the last screen it got for the chat.
// The live screen of the chat shown (Show) comes with each change of it,
// and is returned without asking.
func (r *Remote) Render(id string, scroll int) string {
	r.mu.Lock()
	ch := r.chat(id)
	ch.pending = false
	if ch.pushed && scroll == 0 && r.showsLocked(id) && r.lost == nil {
		ch.text = ch.screen
		r.mu.Unlock()
		return ch.text
	}
	last, lost, c := ch.text, r.lost, r.c
	r.mu.Unlock()
	if lost != nil {
		return last
	}
	ctx, cancel := context.WithTimeout(context.Background(), PullTimeout)
	defer cancel()
	var res proto.RenderResult
	if err := c.Call(ctx, proto.MethodRender, proto.RenderParams{ID: id, Scroll: scroll}, &res); err != nil {
		return last
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	ch = r.chat(id) // made again if the chat was forgotten meanwhile
	if ch.pushed && scroll == 0 && r.showsLocked(id) {
		// The screen told with a change while this one was asked for is
		// the newer.
		res.Text = ch.screen
	}
	ch.text = res.Text
	return res.Text
}

// Transcript asks the server for an ACP chat's transcript; on any failure
// it returns the last one it got.
// Only what changed since the last is sent, when the server can tell
// (proto.TranscriptResult.Delta): a streamed chunk of a long conversation
// costs its message, not the conversation.
func (r *Remote) Transcript(id string) []proto.Entry {
	r.mu.Lock()
	ch := r.chat(id)
	last, base, lost, c := ch.entries, ch.base, r.lost, r.c
	p := proto.TranscriptParams{ID: id, Epoch: ch.epoch, Since: ch.seq}
	r.mu.Unlock()
	if lost != nil {
		return last
	}
	ctx, cancel := context.WithTimeout(context.Background(), PullTimeout)
	defer cancel()
	var res proto.TranscriptResult
	if err := c.Call(ctx, proto.MethodTranscript, p, &res); err != nil {
		return last
	}
	entries := res.Entries
	if res.Delta {
		var ok bool
		if entries, ok = proto.ApplyDelta(last, base, res); !ok {
			// What is held does not fit the change: the whole, once.
			p.Epoch, p.Since, res = 0, 0, proto.TranscriptResult{}
			if err := c.Call(ctx, proto.MethodTranscript, p, &res); err != nil {
				return last
			}
			entries = res.Entries
		}
	}
	r.mu.Lock()
	ch = r.chat(id)
	ch.entries, ch.epoch, ch.seq, ch.base = entries, res.Epoch, res.Seq, res.Base
	r.mu.Unlock()
	return entries
}

// History asks the server for a pty chat's scrollback and screen as plain
// lines, at most maxBytes; nil on any failure.
func (r *Remote) History(id string, maxBytes int) []string {
	r.mu.Lock()
	lost, c := r.lost, r.c
	r.mu.Unlock()
	if lost != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), PullTimeout)
	defer cancel()
	var res proto.HistoryResult
	if err := c.Call(ctx, proto.MethodHistory, proto.HistoryParams{ID: id, MaxBytes: maxBytes}, &res); err != nil {
		return nil
	}
	return res.Lines
}

// Close closes the connection. Every harness keeps running in the server.
func (r *Remote) Close() {
	r.mu.Lock()
	r.closed = true
	c := r.c
	r.mu.Unlock()
	if c != nil {
		c.Close()
	}
}
