package tui

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
)

// nowMux is the fake mux that can also send at once, as client.Router
// does: what it sends at once goes to the same writes, in the order sent;
// its answers come when the test gives them.
type nowMux struct {
	*fakeMux
	mu      sync.Mutex
	pending []func(error) // done of each write sent at once, unanswered
	nowErr  error         // WriteNow's own refusal, when set
}

func (n *nowMux) WriteNow(id string, b []byte, done func(error)) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.nowErr != nil {
		return n.nowErr
	}
	n.writes <- writeReq{id, append([]byte(nil), b...)}
	n.pending = append(n.pending, done)
	return nil
}

// answer answers the oldest write sent at once.
func (n *nowMux) answer(err error) {
	n.mu.Lock()
	done := n.pending[0]
	n.pending = n.pending[1:]
	n.mu.Unlock()
	done(err)
}

func (n *nowMux) unanswered() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.pending)
}

// TestKeysGoAtOnceAndInOrder: a key with nothing on its way goes at once,
// from the UI goroutine; keys typed while one is unanswered are queued
// behind it and still reach the harness in the order typed; a failure
// told later by the answer is reported; and a key WriteNow cannot send
// goes by the queue.
func TestKeysGoAtOnceAndInOrder(t *testing.T) {
	n := &nowMux{fakeMux: newFakeMux(nil)}
	ready := true
	w := newInputWriter(n, func() {}, func() bool { return ready })
	defer w.close()
	next := func(what string) string {
		t.Helper()
		select {
		case req := <-n.writes:
			return string(req.b)
		case <-time.After(10 * time.Second):
			t.Fatalf("no write of %s within 10s", what)
			return ""
		}
	}

	w.send("c1", []byte("a"))
	if got := next("a"); got != "a" || n.unanswered() != 1 {
		t.Fatalf("first key: wrote %q with %d sent at once, want a sent at once", got, n.unanswered())
	}
	w.send("c1", []byte("b")) // a is unanswered: b waits in the queue
	w.send("c1", []byte("c"))
	if got := next("b") + next("c"); got != "bc" || n.unanswered() != 1 {
		t.Fatalf("keys behind an unanswered one: wrote %q, %d at once; want bc by the queue", got, n.unanswered())
	}
	n.answer(errors.New("the harness is not reading"))
	select {
	case e := <-w.errs:
		if e.id != "c1" {
			t.Fatalf("the failure was reported for %q, want c1", e.id)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the answer's failure was not reported within 10s")
	}
	// Nothing on its way now: the next key goes at once again.
	waitIdle(t, w)
	w.send("c1", []byte("d"))
	if got := next("d"); got != "d" || n.unanswered() != 1 {
		t.Fatalf("a key after all were answered: wrote %q with %d at once, want d at once", got, n.unanswered())
	}
	n.answer(nil)

	// While the chat shown is not yet told to the server, keys wait in
	// the queue behind that news.
	ready = false
	w.send("c1", []byte("e"))
	if got := next("e"); got != "e" || n.unanswered() != 0 {
		t.Fatalf("a key before the news: wrote %q with %d at once, want e by the queue", got, n.unanswered())
	}
	ready = true
	n.nowErr = errors.New("not connected yet")
	waitIdle(t, w)
	w.send("c1", []byte("f"))
	if got := next("f"); got != "f" || n.unanswered() != 0 {
		t.Fatalf("a key WriteNow refused: wrote %q with %d at once, want f by the queue", got, n.unanswered())
	}
}

// waitIdle waits until no write is on its way.
func waitIdle(t *testing.T, w *inputWriter) {
	t.Helper()
	wait.Until(t, "no write on its way", func() bool { return w.busy.Load() == 0 })
}
