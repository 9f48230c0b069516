package server

import (
	"cmp"
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/acpmux/acpmux-tui/acp/agent"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file is what a server does at its start with the records a server
// that died left behind (an orderly end removes them all): it ends what
// is left of those harnesses, then starts their chats again. A chat is
// started as any start does it, through the mux: with the folders stored
// for it now, each checked again by the shared validator, and its
// conversation resumed (a Claude Code chat's launch has --resume once its
// session exists; an ACP chat with a stored session gets session/load). A
// chat stopped on purpose, or whose harness exited by itself, has no
// record, and is left alone.
//
// The chats start a few at a time (reviveBound), the most recently used
// first: a server that died with many ACP chats would otherwise spawn
// every agent at once, and on a loaded machine each would miss its
// initialize timeout. A chat waits in the queue without a clock running:
// its init timeout counts from its agent's spawn. One whose agent still
// misses it is started again, at the back of the queue, a few times
// (reviveAttempts): while the queue runs, the load is most likely ours.

// endLeftovers ends what is left running of the harnesses a server that
// died recorded, and returns their records, to start the chats again once
// the server listens. It runs with the single-server lock held and before
// the socket exists, so no client sees a chat whose old harness still
// runs. A record from another boot is dropped without acting on it: its
// pids name nothing of it any more, and nothing of it is started again.
func (s *Server) endLeftovers() []runRecord {
	r, log := s.opt.Records, s.opt.Logger
	if r == nil {
		return nil
	}
	for _, name := range r.junk() {
		log.Warn("removing a file that is not a record of a running harness", "file", name)
		r.removeFile(name)
	}
	recs, err := r.load()
	if err != nil {
		log.Error("records of running harnesses", "err", err)
		return nil
	}
	var left []runRecord
	for _, rec := range recs {
		if r.boot == "" || rec.BootID != r.boot {
			log.Info("dropping the record of a harness from before a reboot", "chat", rec.Chat, "pid", rec.Pid)
			r.forget(rec.Chat)
			continue
		}
		left = append(left, rec)
	}
	endSurvivors(left, r.boot, survivorGrace, log)
	r.Flush()
	return left
}

// reviveBound is how many revived chats start at once: one per CPU, and
// at least two. A chat is starting until its ACP session is set up (or
// its setup failed), or its pty harness has spawned.
func reviveBound() int { return max(2, runtime.NumCPU()) }

// reviveAttempts is how many times a revived chat whose agent did not
// answer initialize in time is started before it is left failed. A
// respawn after a crash is not the way: it would start outside the queue,
// as many at once as timed out.
const reviveAttempts = 3

// lastUse is when the record's chat was last used: typed into or prompted
// (Records.Used), or else started.
func (r runRecord) lastUse() time.Time {
	if r.Used.After(r.Started) {
		return r.Used
	}
	return r.Started
}

// reviveOrder sorts records most recently used first (ties by chat id).
func reviveOrder(recs []runRecord) {
	slices.SortStableFunc(recs, func(a, b runRecord) int {
		if c := b.lastUse().Compare(a.lastUse()); c != 0 {
			return c
		}
		return cmp.Compare(a.Chat, b.Chat)
	})
}

// reviveQueue is the chats still to start again, in order; a stop, a
// start or a removal of one by a client takes it out (reviveQueue.take).
// A nil queue has nothing in it.
type reviveQueue struct {
	mu       sync.Mutex
	cond     *sync.Cond
	waiting  []runRecord
	inFlight int             // starting now: a retry may come back
	starting map[string]bool // the chats of inFlight
	attempts map[string]int
	closed   bool
}

// revive starts the chats of recs again, in the background, and returns
// a channel closed once it is done: every chat started (or given up), or
// ctx ended. A chat that cannot start (its folder or a stored folder has
// gone, its harness is unknown, the chat was removed) is logged and left
// as the refused start leaves it, its reason in its state; its record
// goes, so the next server does not try again.
//
// A chat that would be refused is refused at once, before the server
// answers, so no client sees it queued; the others show as starting while
// they wait.
func (s *Server) revive(ctx context.Context, recs []runRecord) <-chan struct{} {
	done := make(chan struct{})
	q := s.revivals
	reviveOrder(recs)
	var queued []runRecord
	for _, rec := range recs {
		if err := s.opt.Mux.CheckStart(rec.Chat); err != nil {
			s.reviveOne(rec) // refused as the start refuses, its reason in its state
			continue
		}
		queued = append(queued, rec)
	}
	q.mu.Lock()
	q.waiting = append(q.waiting, queued...)
	q.mu.Unlock()
	stop := context.AfterFunc(ctx, q.close)
	go func() {
		defer close(done)
		defer stop()
		slots := make(chan struct{}, reviveBound())
		var starting sync.WaitGroup
		defer starting.Wait()
		for {
			slots <- struct{}{}
			rec, ok := q.next()
			if !ok {
				return
			}
			if !s.reviveOne(rec) {
				q.finish(rec.Chat, nil)
				<-slots
				continue
			}
			starting.Go(func() {
				defer func() { <-slots }()
				q.finish(rec.Chat, s.waitRevived(ctx, rec, q))
			})
		}
	}()
	return done
}

// reviveOne starts a chat of the queue, and reports whether it started.
func (s *Server) reviveOne(rec runRecord) bool {
	log, id := s.opt.Logger, rec.Chat
	if _, err := s.opt.Store.Load(id); err != nil {
		log.Warn("chat not started again after the server died", "chat", id, "err", err)
		s.opt.Records.forget(id)
		return false
	}
	s.track(id)
	if err := s.opt.Mux.Start(id, 0, 0); err != nil {
		log.Warn("chat not started again after the server died", "chat", id, "err", err)
		s.opt.Records.forget(id)
		return false
	}
	log.Info("chat started again after the server died", "chat", id, "diedServerPid", rec.ServerPid, "lastUsed", rec.lastUse())
	return true
}

// waitRevived waits until a revived chat has started, and returns its
// record to queue again when its agent missed the initialize timeout and
// has attempts left.
func (s *Server) waitRevived(ctx context.Context, rec runRecord, q *reviveQueue) *runRecord {
	err := s.opt.Mux.WaitStarted(ctx, rec.Chat)
	if !errors.Is(err, agent.ErrInitTimeout) {
		return nil
	}
	n := q.attempt(rec.Chat)
	if n >= reviveAttempts {
		s.opt.Logger.Warn("chat started again after the server died: its agent did not answer initialize in time; giving up",
			"chat", rec.Chat, "attempts", n)
		return nil
	}
	s.opt.Mux.Wait(rec.Chat) // the failed agent is gone before it starts again
	s.opt.Logger.Warn("chat started again after the server died: its agent did not answer initialize in time while others started; queued again",
		"chat", rec.Chat, "attempt", n)
	return &rec
}

func newReviveQueue() *reviveQueue {
	q := &reviveQueue{attempts: map[string]int{}, starting: map[string]bool{}}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// next takes the first chat waiting, waiting for a retry while chats are
// starting; ok is false once nothing is left, or the queue was closed.
func (q *reviveQueue) next() (runRecord, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for !q.closed && len(q.waiting) == 0 && q.inFlight > 0 {
		q.cond.Wait()
	}
	if q.closed || len(q.waiting) == 0 {
		return runRecord{}, false
	}
	rec := q.waiting[0]
	q.waiting = q.waiting[1:]
	q.inFlight++
	q.starting[rec.Chat] = true
	return rec, true
}

// finish ends the start of chat id that next handed out, queueing retry
// (if not nil) at the back.
func (q *reviveQueue) finish(id string, retry *runRecord) {
	q.mu.Lock()
	q.inFlight--
	delete(q.starting, id)
	if retry != nil && !q.closed {
		q.waiting = append(q.waiting, *retry)
	}
	q.cond.Broadcast()
	q.mu.Unlock()
}

// attempt counts a start of chat id that timed out, and returns how many
// there were.
func (q *reviveQueue) attempt(id string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.attempts[id]++
	return q.attempts[id]
}

// take removes chat id from the queue (a client stopped, started or
// removed it: it is the client's now), and reports whether it was there.
func (q *reviveQueue) take(id string) bool {
	if q == nil {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	i := slices.IndexFunc(q.waiting, func(r runRecord) bool { return r.Chat == id })
	if i < 0 {
		return false
	}
	q.waiting = slices.Delete(q.waiting, i, i+1)
	return true
}

// queued reports whether chat id waits in the queue, or is starting
// from it (a retry may follow).
func (q *reviveQueue) queued(id string) bool {
	if q == nil {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.starting[id] || slices.ContainsFunc(q.waiting, func(r runRecord) bool { return r.Chat == id })
}

// ids returns the chats that wait in the queue or are starting from it.
func (q *reviveQueue) ids() []string {
	if q == nil {
		return nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	ids := make([]string, 0, len(q.starting)+len(q.waiting))
	for id := range q.starting {
		ids = append(ids, id)
	}
	for _, r := range q.waiting {
		ids = append(ids, r.Chat)
	}
	return ids
}

// busy reports whether chats wait or are starting: the server is not idle.
func (q *reviveQueue) busy() bool {
	if q == nil {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return !q.closed && (len(q.waiting) > 0 || q.inFlight > 0)
}

func (q *reviveQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

// chatState is the mux's state of chat id, but for a chat waiting in the
// revive queue (or between its attempts), which is starting.
func (s *Server) chatState(id string) proto.State {
	st := s.opt.Mux.State(id)
	if !st.Status.Live() && s.revivals.queued(id) {
		st.Status = proto.StatusStarting
	}
	return st
}
