package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
)

// TestReviveOrder: the most recently used chat first; a chat never used
// counts from its harness's start; ties go by chat id.
func TestReviveOrder(t *testing.T) {
	at := func(min int) time.Time { return time.Date(2026, 12, 1, 10, min, 0, 0, time.UTC) }
	recs := []runRecord{
		{Chat: "a", Started: at(0), Used: at(30)},
		{Chat: "b", Started: at(40)},
		{Chat: "c", Started: at(1), Used: at(50)},
		{Chat: "d", Started: at(5)},
		{Chat: "e", Started: at(40)},
		{Chat: "f", Started: at(45), Used: at(2)}, // a use from before a respawn
	}
	reviveOrder(recs)
	var got []string
	for _, r := range recs {
		got = append(got, r.Chat)
	}
	if want := []string{"c", "f", "b", "e", "a", "d"}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}

// TestReviveQueueLeavesAChatAClientStopped: more ACP chats than the bound
// were running when the server died. The next server starts the bound's
// worth (their agents held in initialize); the others wait, shown as
// starting. One a client stops while it waits is never started; the rest
// all start once the first are ready.
func TestReviveQueueLeavesAChatAClientStopped(t *testing.T) {
	w := newWorld(t, true)
	gate := filepath.Join(t.TempDir(), "gate")
	w.cfg.Harness["agent"].Env["ACPMUX_FAKE_INIT_GATE"] = gate
	var err error
	if w.table, err = harness.NewTable(w.cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bound := reviveBound()
	r := w.serve()
	var ids []string
	for range bound + 2 {
		ids = append(ids, w.create("agent", nil))
	}
	c := r.dial()
	for _, id := range ids {
		c.ok(proto.MethodStart, proto.ChatParams{ID: id}, nil)
	}
	for _, id := range ids {
		waitFor(t, "chat "+id+" ready on the first server", func() bool {
			return r.srv.opt.Mux.State(id).Status == proto.StatusWaiting
		})
	}
	w.crash(r)
	if err := os.Remove(gate); err != nil {
		t.Fatal(err)
	}

	r2 := w.serve()
	q := r2.srv.revivals
	var waiting []string
	waitFor(t, "the bound's worth of chats starting, the others queued", func() bool {
		q.mu.Lock()
		defer q.mu.Unlock()
		waiting = waiting[:0]
		for _, rec := range q.waiting {
			waiting = append(waiting, rec.Chat)
		}
		return q.inFlight == bound && len(waiting) == 2
	})
	stopped := waiting[1]
	var list proto.ListResult
	c2 := r2.dial()
	c2.ok(proto.MethodList, nil, &list)
	for _, ch := range list.Chats {
		if ch.ID == stopped && ch.Status != "starting" {
			t.Fatalf("a queued chat is listed %q, want starting", ch.Status)
		}
	}
	c2.ok(proto.MethodStop, proto.ChatParams{ID: stopped}, nil)
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if id == stopped {
			continue
		}
		waitFor(t, "chat "+id+" started again and ready", func() bool {
			st := r2.srv.opt.Mux.State(id)
			if st.Status == proto.StatusFailed {
				t.Fatalf("chat %s failed: %s", id, st.Reason)
			}
			return st.Status == proto.StatusWaiting
		})
	}
	waitFor(t, "the queue to end", func() bool { return !q.busy() })
	if n := len(w.starts(stopped)); n != 1 {
		t.Fatalf("the chat stopped while it waited was started %d times, want once (by the first server)", n)
	}
	if st := r2.srv.opt.Mux.State(stopped); st.Status != proto.StatusStopped {
		t.Fatalf("the chat stopped while it waited is %v", st.Status)
	}
}

// TestReviveRetriesAnInitializeTimeout: a revived ACP chat whose agent
// misses the initialize timeout (held in initialize) is not left failed:
// it is queued again and starts once its agent answers.
func TestReviveRetriesAnInitializeTimeout(t *testing.T) {
	w := newWorld(t, true)
	gate := filepath.Join(t.TempDir(), "gate")
	w.cfg.Harness["agent"].Env["ACPMUX_FAKE_INIT_GATE"] = gate
	// Long enough that the attempt after the gate opens answers in time on
	// a loaded machine; the first, held at the gate, cannot.
	w.cfg.ACP.InitTimeout.Duration = 2 * time.Second
	var err error
	if w.table, err = harness.NewTable(w.cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := w.serve()
	id := w.create("agent", nil)
	r.dial().ok(proto.MethodStart, proto.ChatParams{ID: id}, nil)
	waitFor(t, "the chat ready on the first server", func() bool {
		return r.srv.opt.Mux.State(id).Status == proto.StatusWaiting
	})
	w.crash(r)
	if err := os.Remove(gate); err != nil {
		t.Fatal(err)
	}

	r2 := w.serve()
	waitFor(t, "the revived chat's initialize to time out and be queued again", func() bool {
		return strings.Contains(w.log.String(), "did not answer initialize in time while others started; queued again")
	})
	var list proto.ListResult
	r2.dial().ok(proto.MethodList, nil, &list)
	if len(list.Chats) != 1 || list.Chats[0].Status != "starting" {
		t.Fatalf("between its attempts the chat is listed %+v, want starting", list.Chats)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the chat started again and ready", func() bool {
		st := r2.srv.opt.Mux.State(id)
		if st.Status == proto.StatusFailed && !r2.srv.revivals.queued(id) {
			t.Fatalf("the chat was left failed: %s", st.Reason)
		}
		return st.Status == proto.StatusWaiting
	})
	if n := len(w.starts(id)); n < 3 {
		t.Fatalf("%d starts of the chat, want one on the first server and at least two after", n)
	}
}

// TestRecordsKeepTheLastUse: a use is written to the chat's record, at
// most once per usedEvery, and a respawn's record keeps it.
func TestRecordsKeepTheLastUse(t *testing.T) {
	home := t.TempDir()
	r := NewRecords(home, nil)
	defer r.Close()
	read := func() runRecord {
		t.Helper()
		r.Flush()
		b, err := os.ReadFile(filepath.Join(home, proto.RunningDir, "k3x9q2.json"))
		if err != nil {
			t.Fatal(err)
		}
		var rec runRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatal(err)
		}
		return rec
	}
	r.Used("k3x9q2") // no harness runs: nothing to record
	r.Flush()
	if _, err := os.Stat(filepath.Join(home, proto.RunningDir, "k3x9q2.json")); err == nil {
		t.Fatal("a use with no harness running wrote a record")
	}
	r.Started("k3x9q2", os.Getpid())
	if rec := read(); !rec.Used.IsZero() {
		t.Fatalf("a start wrote a use: %v", rec.Used)
	}
	r.Used("k3x9q2")
	first := read().Used
	if first.IsZero() {
		t.Fatal("the use was not written")
	}
	r.Used("k3x9q2") // within usedEvery: not written again
	if again := read().Used; !again.Equal(first) {
		t.Fatalf("a use within %v was written: %v, then %v", usedEvery, first, again)
	}
	r.Ended("k3x9q2", true)
	r.Started("k3x9q2", os.Getpid()) // the respawn
	if kept := read().Used; !kept.Equal(first) {
		t.Fatalf("the respawn's record has used %v, want %v", kept, first)
	}
}
