package server

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// This file serves drawing clients (see proto/view.go). The mux's change
// notices have one reader, the fan-out: it reads each changed chat's state
// and terminal once and hands them to every watching connection. Each
// connection keeps the chats that changed since its last notification and
// sends them as one, at most once a frame and never while its last one is
// still waiting in its queue, so a client that reads slowly costs one
// small pending notification, not a backlog. Nothing here polls: with
// nothing changing, no goroutine or timer runs.

// viewFrame is how often a watcher may be told of changes, and how long the
// fan-out gathers notices after one it passed on at once.
const viewFrame = 16 * time.Millisecond

// frameLen is how long the fan-out gathers, and how often a watcher is
// told of the chats it draws: viewFrame unless a test set another.
func (h *viewHub) frameLen() time.Duration {
	if d := h.frame.Load(); d > 0 {
		return time.Duration(d)
	}
	return viewFrame
}

// viewListFrame is how often a watcher that names the chats it draws
// (MethodShow) may be told of changes to the others alone: their states,
// which its list shows. A hundred chats at work, each turning from running
// to waiting and back as its output comes and pauses, are told four times a
// second, together, not at each turn (each told at once cost the client a
// decode and a frame, and the server an encode and a write: scripts/bench
// scale-100). A change of a chat it draws goes within viewFrame, and takes
// the others marked with it.
const viewListFrame = 250 * time.Millisecond

// viewHub is the server's side of its drawing clients.
type viewHub struct {
	s *Server

	// pub orders publications and watch snapshots: what a watcher is told
	// after its snapshot was read after the snapshot. Nothing else waits
	// on it.
	pub sync.Mutex
	// known are the chats the mux has reported; guarded by pub.
	known map[string]struct{}
	// live is, of each chat published, whether its harness was live
	// (Status.Live) then; guarded by pub. The idle check is asked again
	// only when that changes, not at every line a chat prints.
	live map[string]bool

	// mu guards viewers; it is never held across a read of the mux.
	mu      sync.Mutex
	viewers map[*conn]*viewer
	// panes are the TUIs' chat panes lent to the server (lend_pane.go):
	// a slice replaced whole under mu, read without a lock on every
	// publication and echo.
	panes atomic.Pointer[[]*lentPane]

	// clock is what the viewers' budgets read (budget.go).
	clock budgetClock
	// echoes counts the viewers awaiting a key's echo (viewer.echo): while
	// any is, the fan-out reads notices inside a frame too, so the echo
	// is not held for the frame's end.
	echoes atomic.Int32
	// echoWake tells a fan-out waiting out a frame that an echo is now
	// awaited, so that it reads the notices as they come.
	echoWake chan struct{}
	// listFrame is viewListFrame (tests set another); frame, viewFrame's
	// nanoseconds (a test sets another while the hub runs: frameLen).
	listFrame time.Duration
	frame     atomic.Int64
}

func newViewHub(s *Server) *viewHub {
	return &viewHub{s: s, known: map[string]struct{}{}, live: map[string]bool{}, viewers: map[*conn]*viewer{}, clock: realClock{}, listFrame: viewListFrame, echoWake: make(chan struct{}, 1)}
}

// viewer is what the server keeps of one connection that draws: its size
// and, once it watches, the changes it has not been sent yet.
type viewer struct {
	c *conn

	mu         sync.Mutex
	cols, rows int
	watching   bool
	closed     bool
	dirty      map[string]proto.ChatView
	// shown are the chats the client draws (MethodShow); nil is every
	// chat. Of the others it is told only when their state changes: told
	// is the state each was last marked with.
	shown map[string]struct{}
	told  map[string]proto.State
	// screens are the screens last told of the chats shown.
	screens map[string]*toldScreen
	flushAt stopper // set while a notification is scheduled
	// flushGen numbers the timers set: a timer replaced by another does
	// nothing when it fires (its Stop may come too late). flushSlow is set
	// while the one scheduled waits for viewListFrame.
	flushGen  uint64
	flushSlow bool
	// budget, set by MethodBudget, bounds the bytes sent (budget.go).
	budget    *linkBudget
	lastFlush time.Time
	lastLine  uint64 // the last notification's line number (conn.send)
	// echo is the chat this client last typed into, until its next change
	// (the key's echo) is sent: that change goes at once, inside a frame,
	// if it comes within echoWait of echoAt, the key.
	echo   string
	echoAt time.Time
}

// viewerOf returns the connection's viewer, made on first use.
func (h *viewHub) viewerOf(c *conn) *viewer {
	h.mu.Lock()
	defer h.mu.Unlock()
	v, ok := h.viewers[c]
	if !ok {
		v = &viewer{c: c, dirty: map[string]proto.ChatView{}, told: map[string]proto.State{}, screens: map[string]*toldScreen{}}
		h.viewers[c] = v
	}
	return v
}

// unwatch forgets a connection that is ending. It is called once its calls
// have returned and before its queue closes: after it, nothing is queued
// for the connection.
func (h *viewHub) unwatch(c *conn) {
	h.mu.Lock()
	v, ok := h.viewers[c]
	delete(h.viewers, c)
	h.mu.Unlock()
	if !ok {
		return
	}
	v.mu.Lock()
	v.closed = true
	v.cancelLocked()
	v.forgetEchoLocked()
	v.mu.Unlock()
	h.pub.Lock()
	h.drawnChangedLocked()
	h.pub.Unlock()
}

// drawnChangedLocked tells the mux which chats the watchers draw, after a
// watcher came, went or named others: the output of the chats none draws
// is told to the hub a few times a second (mux.SetDrawn), as the viewers
// need only their states. Called with pub held.
func (h *viewHub) drawnChangedLocked() {
	drawn := map[string]struct{}{}
	for _, v := range h.all() {
		v.mu.Lock()
		all := v.watching && !v.closed && v.shown == nil
		if v.watching && !v.closed {
			for id := range v.shown {
				drawn[id] = struct{}{}
			}
		}
		v.mu.Unlock()
		if all {
			h.s.opt.Mux.SetDrawn(nil)
			return
		}
	}
	for _, lp := range h.lentPanes() {
		drawn[lp.p.ID] = struct{}{}
	}
	h.s.opt.Mux.SetDrawn(drawn)
}

// fanOut reads the mux's change notices until stop closes. A notice that
// comes after a quiet spell is passed on at once (a keystroke's echo waits
// for no timer); the ones that follow within a frame are left in the
// mux's channel, unread, and taken together at the frame's end by the one
// timer, so a flooding chat is read once a frame, however often its pty
// is, and a hundred chats printing wake this goroutine once a frame, not
// once a line. The channel holds a notice per chat at most (the mux sends
// another only once the chat was read), so up to its 1,024 slots a frame's
// notices all wait there; past that the mux drops one as it does for a
// receiver far behind, and the chat is told of with its next change.
func (h *viewHub) fanOut(stop <-chan struct{}) {
	changes := h.s.opt.Mux.Changes()
	h.s.opt.Mux.SetEcho(h.takeEcho)
	defer h.s.opt.Mux.SetEcho(nil)
	// Until a watcher comes, no one draws any chat.
	h.pub.Lock()
	h.drawnChangedLocked()
	h.pub.Unlock()
	gathered := map[string]struct{}{}
	window := time.NewTimer(h.frameLen())
	window.Stop()
	for {
		select {
		case <-stop:
			return
		case id := <-changes:
			h.publish(map[string]struct{}{id: {}})
		}
		// A frame is open: gather what came in it at its end, until a
		// frame passes with nothing. While a client awaits a key's echo
		// the notices are read as they come, and one of a chat awaited
		// goes at once with what was gathered.
		for {
			window.Reset(h.frameLen())
		frame:
			for {
				var notices <-chan string
				if h.echoes.Load() > 0 {
					notices = changes
				}
				select {
				case <-stop:
					window.Stop()
					return
				case <-window.C:
					break frame
				case <-h.echoWake: // look at h.echoes again
				case id := <-notices:
					gathered[id] = struct{}{}
					if h.awaited(id) {
						window.Stop()
						break frame
					}
				}
			}
		drain:
			for {
				select {
				case id := <-changes:
					gathered[id] = struct{}{}
				default:
					break drain
				}
			}
			if len(gathered) == 0 {
				break
			}
			h.publish(gathered)
			clear(gathered)
		}
	}
}

// publish reads each chat once (which also lets the mux send its next
// notice), marks it on every watcher, and, when a chat is new or its
// harness started or ended, has the idle check look again.
func (h *viewHub) publish(ids map[string]struct{}) {
	m := h.s.opt.Mux
	h.pub.Lock()
	views := make(map[string]proto.ChatView, len(ids))
	var moved []string // new chats, and those whose harness started or ended
	for id := range ids {
		h.known[id] = struct{}{}
		st := h.s.chatState(id)
		views[id] = proto.ChatView{State: st, Terminal: m.Terminal(id)}
		if was, ok := h.live[id]; !ok || was != st.Status.Live() {
			h.live[id] = st.Status.Live()
			moved = append(moved, id)
		}
	}
	// The idle check hears of a start or an end before any viewer does, so
	// what a client sees next never precedes the server's own look.
	for _, id := range moved {
		h.s.track(id)
	}
	if len(moved) > 0 {
		h.s.poke()
	}
	// A lent pane first: it is the user's screen, the viewers' sockets
	// are on their way to one.
	for _, lp := range h.lentPanes() {
		if cv, ok := views[lp.p.ID]; ok {
			lp.changed(cv)
		}
	}
	for _, v := range h.all() {
		v.mark(views)
	}
	h.pub.Unlock()
}

// all returns the viewers now, read under h.mu, which is not held while
// they are told anything.
func (h *viewHub) all() []*viewer {
	h.mu.Lock()
	defer h.mu.Unlock()
	all := make([]*viewer, 0, len(h.viewers))
	for _, v := range h.viewers {
		all = append(all, v)
	}
	return all
}

// mark adds changed chats to what the viewer will be told, and sends or
// schedules the notification.
func (v *viewer) mark(views map[string]proto.ChatView) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed || !v.watching {
		return
	}
	drawn := false  // a chat the client draws is among those marked now
	unlent := false // one of them is not in a pane lent to the server
	lent := v.c.s.views.lentPanes()
	for id, cv := range views {
		if _, shown := v.shown[id]; v.shown != nil && !shown {
			// A chat the client does not draw: its screen's changes are
			// of no use to it, its state's are (the list shows them).
			if last, ok := v.told[id]; ok && last.Equal(cv.State) {
				continue
			}
		} else {
			drawn = true
			unlent = unlent || !slices.ContainsFunc(lent, func(lp *lentPane) bool { return lp.p.ID == id })
		}
		v.dirty[id] = cv
		v.told[id] = cv.State
	}
	if len(v.dirty) == 0 {
		return
	}
	if drawn && v.echoedLocked(views) && v.c.sent(v.lastLine) {
		// The echo of a key typed here: at once, whatever frame is open,
		// with what was gathered.
		v.cancelLocked()
		v.flushLocked()
		return
	}
	if drawn && !unlent {
		// Drawn on the terminal by the server already (a lent pane): the
		// client's own copy waits for the frame's end, and its wake-up
		// stays off the way of the next key.
		if v.flushAt == nil || v.flushSlow {
			v.scheduleLocked(realClock{}.AfterFunc, v.c.s.views.frameLen(), false)
		}
		return
	}
	if v.flushAt != nil && !(drawn && v.flushSlow) {
		return // one is due soon enough: these go with it
	}
	// With no notification scheduled, what was marked before has been
	// sent (or never will be: the connection is going), so the chats
	// marked now say which frame this one waits for.
	frame, slow := v.c.s.views.listFrame, true
	if drawn {
		frame, slow = v.c.s.views.frameLen(), false
	}
	wait := frame - time.Since(v.lastFlush)
	if wait <= 0 && v.c.sent(v.lastLine) {
		v.cancelLocked()
		v.flushLocked()
		return
	}
	// Within a frame of the last one, wait for the frame's end; past it,
	// the last notification is still on its way, which a moment, not a
	// frame, lets through. An answer in the queue is no reason to wait:
	// a key's echo often comes while the answer to its write is queued.
	v.scheduleLocked(realClock{}.AfterFunc, max(wait, v.c.s.views.frameLen()/4), slow)
}

// scheduleLocked has flushDue run after d on the timers of after, in place
// of any notification scheduled before; slow says it waits for
// viewListFrame.
func (v *viewer) scheduleLocked(after func(time.Duration, func()) stopper, d time.Duration, slow bool) {
	v.cancelLocked()
	v.flushGen++
	gen := v.flushGen
	v.flushSlow = slow
	v.flushAt = after(d, func() { v.flushDue(gen) })
}

// cancelLocked stops the notification scheduled, if any.
func (v *viewer) cancelLocked() {
	if v.flushAt != nil {
		v.flushAt.Stop()
		v.flushAt = nil
		v.flushGen++
	}
}

// flushDue sends the changes gathered, unless the last notification is
// still in the connection's queue: then it looks again a frame later. It
// runs only while a change waits, and ends with the connection. gen is the
// timer's: one replaced since does nothing.
func (v *viewer) flushDue(gen uint64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if gen != v.flushGen {
		return
	}
	v.flushAt = nil
	if v.closed || len(v.dirty) == 0 || v.c.dropped.Load() {
		return
	}
	if !v.c.sent(v.lastLine) {
		v.scheduleLocked(realClock{}.AfterFunc, v.c.s.views.frameLen(), false)
		return
	}
	v.flushLocked()
}

func (v *viewer) flushLocked() {
	if v.budget != nil {
		v.flushBudgeted()
		return
	}
	var screens []proto.ScreenUpdate
	for id, cv := range v.dirty {
		if _, shown := v.shown[id]; !shown {
			continue
		}
		// The screen goes with the change: the client draws the chat
		// without a round trip to ask for it. When only the screen and
		// the cursor moved, as with a key's echo, it goes as a
		// notification small to write and quick to read.
		if u, screenOnly := v.screenOf(id, &cv); screenOnly {
			screens = append(screens, u)
			delete(v.dirty, id)
		} else {
			v.dirty[id] = cv
		}
	}
	if len(v.dirty) > 0 {
		v.lastLine = v.c.notify(proto.NotifyChanged, proto.StatesResult{States: v.dirty})
		v.dirty = map[string]proto.ChatView{}
	}
	for _, u := range screens {
		v.lastLine = v.c.send(proto.EncodeScreenUpdate(u))
	}
	v.lastFlush = time.Now()
}

// watch makes the connection a watcher and answers every chat the mux
// knows, as it is now.
func (h *viewHub) watch(c *conn, p proto.SizeParams) (proto.StatesResult, *Error) {
	if err := checkSize(p, true); err != nil {
		return proto.StatesResult{}, err
	}
	v := h.viewerOf(c)
	m := h.s.opt.Mux
	h.pub.Lock()
	defer h.pub.Unlock()
	v.mu.Lock()
	v.watching = true
	v.cols, v.rows = p.Cols, p.Rows
	v.mu.Unlock()
	h.drawnChangedLocked()
	states := make(map[string]proto.ChatView, len(h.known))
	for id := range h.known {
		states[id] = proto.ChatView{State: h.s.chatState(id), Terminal: m.Terminal(id)}
	}
	return proto.StatesResult{States: states}, nil
}

// show sets the chats the connection draws, and tells it of those newly
// named as they are now: while they were not drawn, it was not told of
// their screens' changes.
func (h *viewHub) show(c *conn, p proto.ShowParams) (struct{}, *Error) {
	if len(p.IDs) > maxShown {
		return struct{}{}, errorf(proto.CodeInvalidParams, "Invalid params: at most %d ids", maxShown)
	}
	v := h.viewerOf(c)
	m := h.s.opt.Mux
	h.pub.Lock()
	defer h.pub.Unlock()
	v.mu.Lock()
	before := v.shown
	v.shown = make(map[string]struct{}, len(p.IDs))
	for _, id := range p.IDs {
		v.shown[id] = struct{}{}
	}
	for id := range v.screens {
		if _, still := v.shown[id]; !still {
			// Its screen goes on unseen: the next one told is whole.
			delete(v.screens, id)
		}
	}
	v.mu.Unlock()
	h.drawnChangedLocked()
	views := map[string]proto.ChatView{}
	for _, id := range p.IDs {
		_, known := h.known[id]
		if _, was := before[id]; known && before != nil && !was {
			views[id] = proto.ChatView{State: h.s.chatState(id), Terminal: m.Terminal(id)}
		}
	}
	if len(views) > 0 {
		v.mark(views)
	}
	return struct{}{}, nil
}

// maxShown bounds the ids of one MethodShow.
const maxShown = 1024

// checkSize bounds a size from the wire; zero is allowed where it means
// "not known".
func checkSize(p proto.SizeParams, zeroOK bool) *Error {
	if p.Cols < 0 || p.Cols > proto.MaxCols || p.Rows < 0 || p.Rows > proto.MaxRows ||
		(!zeroOK && (p.Cols == 0 || p.Rows == 0)) {
		return errorf(proto.CodeInvalidParams, "Invalid params: cols must be 1..%d and rows 1..%d", proto.MaxCols, proto.MaxRows)
	}
	return nil
}

func (h *viewHub) render(p proto.RenderParams) (proto.RenderResult, *Error) {
	if p.ID == "" {
		return proto.RenderResult{}, errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	}
	return proto.RenderResult{Text: h.s.opt.Mux.Render(p.ID, p.Scroll)}, nil
}

func (h *viewHub) transcript(p proto.TranscriptParams) (proto.TranscriptResult, *Error) {
	if p.ID == "" {
		return proto.TranscriptResult{}, errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	}
	res, ok := h.s.opt.Mux.TranscriptSince(p.ID, p.Epoch, p.Since)
	if !ok || !res.Delta && res.Entries == nil {
		res.Entries = []proto.Entry{}
	}
	res.TurnRunning = h.s.opt.Mux.State(p.ID).Status == proto.StatusRunning
	return res, nil
}

func (h *viewHub) history(p proto.HistoryParams) (proto.HistoryResult, *Error) {
	if p.ID == "" {
		return proto.HistoryResult{}, errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	}
	if p.MaxBytes < 0 {
		return proto.HistoryResult{}, errorf(proto.CodeInvalidParams, "Invalid params: maxBytes must not be negative")
	}
	lines := h.s.opt.Mux.History(p.ID, p.MaxBytes)
	if lines == nil {
		lines = []string{}
	}
	return proto.HistoryResult{Lines: lines}, nil
}

// write sends a client's keys to a chat. The pty takes the size of the
// client that last typed or resized: when two clients of different sizes
// share a chat, the one typing sees it drawn at its size.
func (h *viewHub) write(c *conn, p proto.WriteParams) (struct{}, *Error) {
	if p.ID == "" {
		return struct{}{}, errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	}
	m := h.s.opt.Mux
	v := h.viewerOf(c)
	v.mu.Lock()
	cols, rows := v.cols, v.rows
	v.mu.Unlock()
	if cols > 0 && rows > 0 {
		if t := m.Terminal(p.ID); t.Cols > 0 && (t.Cols != cols || t.Rows != rows) {
			m.Resize(p.ID, cols, rows)
			// The mux tells of output, not of sizes: the other watchers
			// learn the new one from here.
			h.publish(map[string]struct{}{p.ID: {}})
		}
	}
	v.awaitEcho(p.ID)
	if err := m.Write(p.ID, p.Data); err != nil {
		return struct{}{}, failure(err)
	}
	h.s.opt.Records.Used(p.ID)
	return struct{}{}, nil
}

// resize sets every chat to the client's size and remembers it as the
// client's.
func (h *viewHub) resize(c *conn, p proto.SizeParams) (struct{}, *Error) {
	if err := checkSize(p, false); err != nil {
		return struct{}{}, err
	}
	v := h.viewerOf(c)
	v.mu.Lock()
	v.cols, v.rows = p.Cols, p.Rows
	v.mu.Unlock()
	h.s.opt.Mux.ResizeAll(p.Cols, p.Rows)
	h.pub.Lock()
	all := make(map[string]struct{}, len(h.known))
	for id := range h.known {
		all[id] = struct{}{}
	}
	h.pub.Unlock()
	h.publish(all) // the mux tells of output, not of sizes
	return struct{}{}, nil
}

// forget stops a chat that is being deleted and drops its screen.
func (h *viewHub) forget(p proto.ForgetParams) (struct{}, *Error) {
	if p.ID == "" {
		return struct{}{}, errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	}
	h.s.revivals.take(p.ID)
	h.s.opt.Mux.Forget(p.ID)
	h.pub.Lock()
	delete(h.known, p.ID)
	delete(h.live, p.ID)
	h.pub.Unlock()
	h.mu.Lock()
	for _, v := range h.viewers {
		v.mu.Lock()
		delete(v.told, p.ID)
		delete(v.screens, p.ID)
		v.mu.Unlock()
	}
	h.mu.Unlock()
	h.s.poke()
	return struct{}{}, nil
}

// createAndStart creates a chat as _acpmux/new does (the chat service
// checks it first, so a refusal takes no prewarmed harness) and starts
// it; the mux makes it, a chat that may take a prewarmed harness from its
// pool. When the chat was made but its harness did not start, the error's
// data carries the chat as "created", so the client can show it.
func (s *Server) createAndStart(c *conn, p proto.CreateAndStartParams) (proto.ChatJSON, *Error) {
	var refused *Error
	if p.Sandbox, refused = s.webSandbox(c, p.Sandbox); refused != nil {
		return proto.ChatJSON{}, refused
	}
	n, err := s.chats.Check(newChatOf(p.NewParams))
	if err != nil {
		return proto.ChatJSON{}, failure(err)
	}
	if err := checkSize(proto.SizeParams{Cols: p.Cols, Rows: p.Rows}, true); err != nil {
		return proto.ChatJSON{}, err
	}
	meta, err := s.opt.Mux.CreateAndStart(n, p.Cols, p.Rows)
	if meta == nil {
		return proto.ChatJSON{}, failure(err)
	}
	s.track(meta.ID)
	s.poke()
	chat := s.view(sessions.Entry{ID: meta.ID, Meta: meta})
	if err != nil {
		s.opt.Logger.Warn("created chat did not start", "chat", meta.ID, "err", err)
		return proto.ChatJSON{}, withCreated(failure(err), chat)
	}
	s.opt.Logger.Info("chat created and started", "chat", meta.ID, "harness", meta.Harness)
	return chat, nil
}

// withCreated adds the chat that was made to a start's failure. A folder
// refusal, encoded whole already, is left as it is: the store refuses
// those before it makes a chat.
func withCreated(e *Error, chat proto.ChatJSON) *Error {
	if e.raw != nil {
		return e
	}
	data, ok := e.Data.(map[string]any)
	if !ok {
		data = map[string]any{}
	}
	data["created"] = chat
	e.Data = data
	return e
}

// fill has the mux start the prewarmed harnesses its pool lacks.
func (s *Server) fill(struct{}) (struct{}, *Error) {
	if err := s.opt.Mux.Fill(); err != nil {
		return struct{}{}, failure(err)
	}
	return struct{}{}, nil
}
