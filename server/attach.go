package server

import (
	"errors"
	"sync"
	"time"

	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file serves attached clients (see proto/attach.go). Each
// attachment taps its chat's output in the mux and gathers it in one
// buffer, which a goroutine of its own sends whenever the connection's
// queue is empty (small output with nothing before it, a key's echo, the
// mux's reader sends itself): a client that reads slowly gets fewer, bigger
// notifications, and one that falls MaxAttachPending behind gets a redraw
// instead of the backlog. The harness and the other clients never wait on
// it; only a client that stops reading altogether is dropped, by the
// connection's write timeout.

// Between two looks at a connection whose queue is not empty. The writer
// says nothing when it has written a line, so the flusher looks again,
// backing off while the client is slow.
const (
	attachRetryMin = time.Millisecond
	attachRetryMax = 32 * time.Millisecond
)

// attachNowMax is the most output the mux's reader sends itself, when
// nothing waits before it: a key's echo, a line or a small redraw. Waking
// the flusher for it cost a tenth of an echo's round trip over ssh; more
// goes through the flusher, which gathers it while the client is slow.
const attachNowMax = 4 << 10

// attachSet is one connection's attachments, by chat id. Its zero value is
// ready to use.
type attachSet struct {
	mu     sync.Mutex
	byID   map[string]*attachment
	closed bool // the connection is ending: no attachment is added
}

func (as *attachSet) get(id string) *attachment {
	as.mu.Lock()
	defer as.mu.Unlock()
	return as.byID[id]
}

// add records a, or reports false when the connection is ending or already
// has an attachment to the chat.
func (as *attachSet) add(a *attachment) bool {
	as.mu.Lock()
	defer as.mu.Unlock()
	if as.closed || as.byID[a.id] != nil {
		return false
	}
	if as.byID == nil {
		as.byID = map[string]*attachment{}
	}
	as.byID[a.id] = a
	return true
}

// any reports whether the connection has an attachment.
func (as *attachSet) any() bool {
	as.mu.Lock()
	defer as.mu.Unlock()
	return len(as.byID) > 0
}

// remove forgets a, if it is still the connection's attachment to its
// chat, and reports whether it was.
func (as *attachSet) remove(a *attachment) bool {
	as.mu.Lock()
	defer as.mu.Unlock()
	if as.byID[a.id] != a {
		return false
	}
	delete(as.byID, a.id)
	return true
}

// closeAll ends every attachment of a connection that is ending. It is
// called once the connection's calls have returned and before its queue
// closes: after it, nothing is queued for the connection.
func (as *attachSet) closeAll() {
	as.mu.Lock()
	as.closed = true
	all := make([]*attachment, 0, len(as.byID))
	for _, a := range as.byID {
		all = append(all, a)
	}
	clear(as.byID)
	as.mu.Unlock()
	for _, a := range all {
		a.close()
	}
}

// attachment is one client's view of one chat: a mux.OutputSink whose
// output waits in one buffer for the flusher, which sends it to the
// connection, or writes it to the client's terminal when the client lent
// it (term, attach_term.go).
type attachment struct {
	s    *Server
	c    *conn
	id   string
	term *lentTerminal

	untap func()
	wake  chan struct{} // something is due; never blocks
	stop  chan struct{} // closed to end the flusher
	done  chan struct{} // closed when the flusher has ended
	once  sync.Once

	mu         sync.Mutex
	cols, rows int    // the client's terminal
	gen        uint64 // the generation of the last redraw
	snap       []byte // that redraw, while it waits to be sent
	hasSnap    bool
	out        []byte // output after it, waiting to be sent
	spare      []byte // the buffer last sent, for the next output
	sending    bool   // the flusher is sending what it took
	behind     bool   // output was dropped: a redraw is due
	holding    bool   // a call is about to answer with the redraw
	end        *proto.ExitedParams
	closed     bool
}

func newAttachment(s *Server, c *conn, id string, cols, rows int) *attachment {
	return &attachment{
		s: s, c: c, id: id, cols: cols, rows: rows, holding: true,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
}

// Output gathers the harness's output (mux.OutputSink; the chat's lock is
// held).
func (a *attachment) Output(p []byte) {
	a.mu.Lock()
	if a.closed || a.behind {
		a.mu.Unlock()
		return
	}
	if a.sendNowLocked(p) {
		a.mu.Unlock()
		return
	}
	if len(a.out)+len(p) > proto.MaxAttachPending {
		a.out, a.behind = nil, true
	} else {
		a.out = append(a.out, p...)
	}
	a.mu.Unlock()
	a.poke()
}

// sendNowLocked sends small output at once from the mux's reader when
// nothing of the attachment waits to be sent or is being sent, and the
// connection's queue is empty (its line then goes out with no hand-off,
// see conn.send); it reports false, and the flusher sends it, otherwise.
// a.mu is held, so the flusher takes nothing sent after it meanwhile.
func (a *attachment) sendNowLocked(p []byte) bool {
	if len(p) > attachNowMax || a.holding || a.sending || a.hasSnap || len(a.out) > 0 || a.end != nil {
		return false
	}
	if a.term != nil {
		if !a.term.writeNow(p) {
			return false
		}
		if a.term.modes.Version() != a.term.told {
			a.poke() // the flusher tells the client
		}
		return true
	}
	if len(a.c.out) > 0 || a.c.dropped.Load() {
		return false
	}
	a.c.notify(proto.NotifyOutput, proto.OutputParams{ID: a.id, Gen: a.gen, Data: p})
	return true
}

// Redraw starts a generation (mux.OutputSink; the chat's lock is held): what
// waited to be sent is covered by the redraw.
func (a *attachment) Redraw(snapshot []byte) {
	a.mu.Lock()
	a.gen++
	a.snap, a.hasSnap = snapshot, true
	a.out, a.behind = a.out[:0], false
	a.mu.Unlock()
	a.poke()
}

// Ended records the harness's end, to be told after its output
// (mux.OutputSink; the chat's lock is held).
func (a *attachment) Ended(st proto.State) {
	how := st.Reason
	if st.Status == proto.StatusStopped {
		how = "stopped"
	}
	a.mu.Lock()
	a.end = &proto.ExitedParams{ID: a.id, How: how, Status: st.Status.String(), ExitCode: st.ExitCode}
	a.mu.Unlock()
	a.poke()
}

func (a *attachment) poke() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// answer takes the redraw due for a call's answer and lets the flusher go
// on with what follows it.
func (a *attachment) answer() proto.AttachResult {
	a.mu.Lock()
	r := proto.AttachResult{Snapshot: a.snap, Gen: a.gen}
	if r.Snapshot == nil {
		r.Snapshot = []byte{}
	}
	a.snap, a.hasSnap, a.holding = nil, false, false
	a.mu.Unlock()
	a.poke()
	return r
}

// close ends the attachment for good: no more output is heard, the flusher
// ends, nothing more is sent.
func (a *attachment) close() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	if a.untap != nil {
		a.untap()
	}
	a.once.Do(func() { close(a.stop) })
	if a.term != nil {
		// A write to a stopped terminal does not hold the end.
		a.term.out.SetWriteDeadline(time.Now())
	}
	<-a.done
	if a.term != nil {
		a.giveBack()
	}
}

// flush sends what is due whenever the connection's queue is empty, until
// the attachment closes or its harness's end has been sent.
func (a *attachment) flush() {
	defer close(a.done)
	retry := time.NewTimer(attachRetryMin)
	retry.Stop()
	defer retry.Stop()
	wait := attachRetryMin
	for {
		select {
		case <-a.wake:
		case <-retry.C:
		case <-a.stop:
			return
		case <-a.c.gone:
			return
		}
		if a.c.dropped.Load() {
			return
		}
		if a.term == nil && len(a.c.out) > 0 {
			retry.Reset(wait)
			wait = min(2*wait, attachRetryMax)
			continue
		}
		wait = attachRetryMin
		a.mu.Lock()
		if a.holding || a.closed {
			a.mu.Unlock()
			continue
		}
		if a.behind {
			a.mu.Unlock()
			// A fresh redraw, in the order of the output; it wakes us.
			a.s.opt.Mux.RedrawTap(a.id, a)
			continue
		}
		gen, end := a.gen, a.end
		snap, hasSnap := a.snap, a.hasSnap
		out := a.out
		a.snap, a.hasSnap = nil, false
		a.out, a.spare = a.spare[:0], nil
		a.sending = true
		a.mu.Unlock()

		switch {
		case a.term != nil:
			if hasSnap {
				a.term.redraw(snap)
			}
			if len(out) > 0 {
				a.term.write(out)
			}
		default:
			if hasSnap {
				a.c.notify(proto.NotifyOutput, proto.OutputParams{ID: a.id, Gen: gen, Snapshot: true, Data: snap})
			}
			if len(out) > 0 {
				a.c.notify(proto.NotifyOutput, proto.OutputParams{ID: a.id, Gen: gen, Data: out})
			}
		}
		a.mu.Lock()
		a.spare = out // sent: free to fill again
		a.sending = false
		var reset []byte
		if a.term != nil {
			reset = a.term.modesToTellLocked()
		}
		a.mu.Unlock()
		if reset != nil {
			a.c.notify(proto.NotifyModes, proto.ModesParams{ID: a.id, Reset: reset})
		}
		if end != nil {
			end.Gen = gen
			if a.term != nil {
				// Given back before the client hears of the end.
				a.c.attached.remove(a)
				a.giveBack()
			}
			a.c.notify(proto.NotifyExited, end)
			a.finish()
			return
		}
	}
}

// finish ends an attachment whose harness has ended, from its flusher.
func (a *attachment) finish() {
	a.c.attached.remove(a)
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.untap()
}

// attach serves MethodAttach.
func (s *Server) attach(c *conn, p proto.AttachParams) (proto.AttachResult, *Error) {
	if err := checkAttach(p); err != nil {
		return proto.AttachResult{}, err
	}
	if a := c.attached.get(p.ID); a != nil {
		if a.term != nil {
			return proto.AttachResult{}, errorf(proto.CodeFailed, "chat %s: this connection lent the chat its terminal", p.ID)
		}
		return s.resync(a, p), nil
	}
	if p.Resync {
		return proto.AttachResult{}, errorf(proto.CodeFailed, "chat %s: this connection is not attached to it", p.ID)
	}
	a := newAttachment(s, c, p.ID, p.Cols, p.Rows)
	if err := s.startAttachment(a); err != nil {
		return proto.AttachResult{}, err
	}
	return a.answer(), nil
}

// checkAttach checks an attach's params.
func checkAttach(p proto.AttachParams) *Error {
	if p.ID == "" {
		return errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	}
	return checkSize(proto.SizeParams{Cols: p.Cols, Rows: p.Rows}, true)
}

// startAttachment taps a's chat, records a as its connection's attachment
// and starts the harness unless it runs. The flusher holds the first
// redraw until the caller lets it go. On an error nothing of a is left
// running.
func (s *Server) startAttachment(a *attachment) *Error {
	if _, err := s.opt.Store.Load(a.id); err != nil {
		return failure(err)
	}
	untap, err := s.opt.Mux.Tap(a.id, a.cols, a.rows, a)
	if errors.Is(err, mux.ErrNotPty) {
		return errorf(proto.CodeInvalidParams, "Invalid params: chat %s speaks ACP: attach shows pty chats (use prompt, or the TUI)", a.id)
	}
	if err != nil {
		return failure(err)
	}
	// The user of an attached terminal looks at the chat for as long as
	// it is attached.
	a.untap = func() { untap(); s.opt.Mux.Look(a, "") }
	if !a.c.attached.add(a) {
		untap()
		return errorf(proto.CodeFailed, "chat %s: this connection is already attaching to it", a.id)
	}
	s.opt.Mux.Look(a, a.id)
	go a.flush()
	s.track(a.id)
	err = s.opt.Mux.Start(a.id, a.cols, a.rows)
	s.poke()
	if err != nil {
		a.c.attached.remove(a)
		a.close()
		s.opt.Logger.Warn("attach refused", "chat", a.id, "err", err)
		return failure(err)
	}
	s.opt.Logger.Info("client attached", "chat", a.id, "terminal", a.term != nil)
	return nil
}

// resync starts a new generation of a connection's stream: a redraw at the
// client's size, the size taken first when it is given.
func (s *Server) resync(a *attachment, p proto.AttachParams) proto.AttachResult {
	a.mu.Lock()
	if p.Cols > 0 && p.Rows > 0 {
		a.cols, a.rows = p.Cols, p.Rows
	}
	cols, rows := a.cols, a.rows
	a.holding = true
	a.mu.Unlock()
	s.opt.Mux.Resize(a.id, cols, rows)
	s.opt.Mux.RedrawTap(a.id, a)
	return a.answer()
}

// attachInput serves MethodAttachInput.
func (s *Server) attachInput(c *conn, p proto.AttachInputParams) (struct{}, *Error) {
	a := c.attached.get(p.ID)
	if a == nil {
		return struct{}{}, errorf(proto.CodeFailed, "chat %s: this connection is not attached to it", p.ID)
	}
	if a.term != nil {
		return struct{}{}, errorf(proto.CodeFailed, "chat %s: the server reads this connection's keys from its terminal", p.ID)
	}
	if err := s.typed(a, p.Data); err != nil {
		return struct{}{}, failure(err)
	}
	return struct{}{}, nil
}

// typed sends what was typed on a's terminal to its harness.
func (s *Server) typed(a *attachment, data []byte) error {
	a.mu.Lock()
	cols, rows := a.cols, a.rows
	a.mu.Unlock()
	// The pty takes the size of the client that types (nothing is done
	// when it has it already).
	s.opt.Mux.Resize(a.id, cols, rows)
	if err := s.opt.Mux.Write(a.id, data); err != nil {
		return err
	}
	s.opt.Records.Used(a.id)
	return nil
}

// attachResize serves MethodAttachResize.
func (s *Server) attachResize(c *conn, p proto.AttachResizeParams) (struct{}, *Error) {
	if err := checkSize(proto.SizeParams{Cols: p.Cols, Rows: p.Rows}, false); err != nil {
		return struct{}{}, err
	}
	a := c.attached.get(p.ID)
	if a == nil {
		return struct{}{}, errorf(proto.CodeFailed, "chat %s: this connection is not attached to it", p.ID)
	}
	a.mu.Lock()
	a.cols, a.rows = p.Cols, p.Rows
	a.mu.Unlock()
	s.opt.Mux.Resize(p.ID, p.Cols, p.Rows)
	return struct{}{}, nil
}

// detach serves MethodDetach: the stream ends, the harness keeps running.
func (s *Server) detach(c *conn, p proto.DetachParams) (struct{}, *Error) {
	if a := c.attached.get(p.ID); a != nil {
		c.attached.remove(a)
		a.close()
		s.opt.Logger.Info("client detached", "chat", p.ID)
	}
	return struct{}{}, nil
}
