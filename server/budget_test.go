package server

import (
	"encoding/json"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
)

// fakeClock is a budgetClock the test moves: its timers fire only when
// the test fires them, so a refill happens exactly when the test says.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	added  chan struct{} // a token each time a timer is set
}

type fakeTimer struct {
	c       *fakeClock
	at      time.Time
	f       func()
	stopped bool
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Unix(1_000_000_000, 0), added: make(chan struct{}, 1)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) stopper {
	c.mu.Lock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	select {
	case c.added <- struct{}{}:
	default:
	}
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.stopped
	t.stopped = true
	return was
}

// fireNext moves the clock to the earliest timer set and fires it,
// reporting false when none is set.
func (c *fakeClock) fireNext() bool {
	c.mu.Lock()
	live := c.timers[:0]
	for _, t := range c.timers {
		if !t.stopped {
			live = append(live, t)
		}
	}
	c.timers = live
	if len(live) == 0 {
		c.mu.Unlock()
		return false
	}
	sort.Slice(live, func(i, j int) bool { return live[i].at.Before(live[j].at) })
	t := live[0]
	c.timers = live[1:]
	t.stopped = true
	if t.at.After(c.now) {
		c.now = t.at
	}
	c.mu.Unlock()
	t.f()
	return true
}

// budgetReader reads a budgeted watcher's lines in a goroutine of its own,
// counting the notification bytes and telling when a chat's screen shows
// a text.
type budgetReader struct {
	mu       sync.Mutex
	bytes    int64          // of the changed and screen notifications
	longest  int            // the longest such line
	lines    map[string]int // notification lines per chat
	seenText chan struct{}
}

func readBudgeted(t *testing.T, v *viewClient, id, text string) *budgetReader {
	br := &budgetReader{lines: map[string]int{}, seenText: make(chan struct{})}
	go func() {
		seen := false
		for {
			v.nc.SetReadDeadline(time.Now().Add(hangDeadline))
			b, err := v.r.ReadBytes('\n')
			if err != nil {
				return // the connection closed at the test's end
			}
			var l viewLine
			if err := json.Unmarshal(b, &l); err != nil {
				t.Errorf("not JSON: %v\n%s", err, b)
				return
			}
			var patches map[string]*proto.ScreenPatch
			switch l.Method {
			case proto.NotifyChanged:
				var n proto.StatesResult
				json.Unmarshal(l.Params, &n)
				patches = map[string]*proto.ScreenPatch{}
				for cid, cv := range n.States {
					patches[cid] = cv.Screen
				}
			case proto.NotifyScreen:
				var u proto.ScreenUpdate
				json.Unmarshal(l.Params, &u)
				patches = map[string]*proto.ScreenPatch{u.ID: &u.Screen}
			default:
				continue
			}
			br.mu.Lock()
			br.bytes += int64(len(b))
			br.longest = max(br.longest, len(b))
			for cid := range patches {
				br.lines[cid]++
			}
			br.mu.Unlock()
			if p := patches[id]; p != nil && !seen && patchHas(p, text) {
				seen = true
				close(br.seenText)
			}
		}
	}()
	return br
}

func patchHas(p *proto.ScreenPatch, text string) bool {
	if p.Full != nil && strings.Contains(*p.Full, text) {
		return true
	}
	for _, r := range p.Rows {
		if strings.Contains(r, text) {
			return true
		}
	}
	return false
}

func (br *budgetReader) counts() (int64, int, map[string]int) {
	br.mu.Lock()
	defer br.mu.Unlock()
	lines := map[string]int{}
	for k, n := range br.lines {
		lines[k] = n
	}
	return br.bytes, br.longest, lines
}

// TestBudgetFloodAndQuietChat: on one connection with a byte budget, a
// chat that prints as fast as it can and a chat that changes once. Once
// the bucket is empty, the quiet chat's echo goes out within two refills
// (the chats waiting take turns), the flood goes on getting its share,
// and the bytes sent never pass burst + rate x time + one line. The
// budget's clock is the test's: a refill happens when the test fires it.
func TestBudgetFloodAndQuietChat(t *testing.T) {
	seq, err := exec.LookPath("seq")
	if err != nil {
		t.Fatalf("seq, the flood's program: %v", err)
	}
	clock := newFakeClock()
	r := newRig(t, rigOpt{
		server: func(s *Server) { s.views.clock = clock },
		config: func(c *config.Config) {
			c.Harness["seq"] = config.HarnessConfig{Command: seq, Args: []string{"1", "2000000000"}}
		},
	})
	v := newViewClient(r)
	var flood, quiet proto.ChatJSON
	v.ok(proto.MethodNew, proto.NewParams{Harness: "seq"}, &flood)
	v.ok(proto.MethodNew, proto.NewParams{}, &quiet)
	v.watch(80, 24)
	v.ok(proto.MethodShow, proto.ShowParams{IDs: []string{flood.ID, quiet.ID}}, nil)
	v.ok(proto.MethodStart, proto.ChatParams{ID: quiet.ID, Cols: 80, Rows: 24}, nil)
	v.waitScreen(quiet.ID, "ready>")
	v.ok(proto.MethodStart, proto.ChatParams{ID: flood.ID, Cols: 80, Rows: 24}, nil)
	v.waitChat(flood.ID, "the flood running", liveView)

	const rate = proto.MinBudget
	v.ok(proto.MethodBudget, proto.BudgetParams{BytesPerSecond: rate}, nil)
	start := clock.Now()
	br := readBudgeted(t, v, quiet.ID, "echo: quiet change")

	// The flood empties the bucket (its burst) at one line a frame, and
	// the viewer then waits on the test's clock.
	select {
	case <-clock.added:
	case <-time.After(hangDeadline):
		t.Fatal("the flood did not empty the bucket: no refill timer was set")
	}
	key, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 900001, "method": proto.MethodWrite,
		"params": proto.WriteParams{ID: quiet.ID, Data: []byte("quiet change\r")}})
	v.send(string(key))
	// The echo is on the chat's screen and the chat waits in the viewer,
	// behind the flood: no refill came since the bucket emptied.
	waitFor(t, "the quiet chat's echo on its screen and marked for the budgeted watcher", func() bool {
		return strings.Contains(r.srv.opt.Mux.Render(quiet.ID, 0), "echo: quiet change") && r.srv.budgetedMarked(quiet.ID)
	})
	before, _, _ := br.counts()

	refills := 0
	for seen := false; !seen; {
		if refills > 10 {
			t.Fatalf("the quiet chat's echo did not arrive after %d refills", refills)
		}
		r.srv.refill(t, clock, br)
		refills++
		select {
		case <-br.seenText:
			seen = true
		default:
		}
	}
	// Two chats wait: the quiet one's turn is the first or the second.
	if refills > 2 {
		t.Fatalf("the quiet chat's echo came after %d refills; the chats waiting take turns, so 2 at most", refills)
	}
	// The flood still gets through, a line per refill.
	_, _, atQuiet := br.counts()
	for i := 0; i < 20; i++ {
		r.srv.refill(t, clock, br)
	}
	waitFor(t, "the flood's lines after 20 refills", func() bool {
		_, _, now := br.counts()
		return now[flood.ID] >= atQuiet[flood.ID]+10
	})

	got, longest, lines := br.counts()
	spent, burst := r.srv.budgetSpent()
	elapsed := clock.Now().Sub(start).Seconds()
	bound := burst + rate*elapsed + float64(longest)
	t.Logf("%d refills to the quiet echo; over %.3f s of the budget's clock: %d bytes read (%d after the bucket emptied), %d charged, bound %.0f; lines %v",
		refills, elapsed, got, got-before, spent, bound, lines)
	if float64(spent) > bound || float64(got) > bound {
		t.Fatalf("sent %d bytes (read %d) over %.3f s at %d B/s with a burst of %.0f: over the bound %.0f", spent, got, elapsed, rate, burst, bound)
	}
	if lines[flood.ID] < 10 {
		t.Fatalf("the flood chat had %d lines", lines[flood.ID])
	}
}

// budgetedMarked reports whether the budgeted watcher has the chat marked,
// waiting to be sent.
func (s *Server) budgetedMarked(id string) bool {
	for c := range s.viewerConns() {
		v := s.views.viewerOf(c)
		v.mu.Lock()
		_, marked := v.dirty[id]
		budgeted := v.budget != nil
		v.mu.Unlock()
		if budgeted {
			return marked
		}
	}
	return false
}

// budgetSpent returns the bytes the budgeted watcher was charged and its
// bucket's burst.
func (s *Server) budgetSpent() (int64, float64) {
	for c := range s.viewerConns() {
		v := s.views.viewerOf(c)
		v.mu.Lock()
		b := v.budget
		var spent int64
		var burst float64
		if b != nil {
			spent, burst = b.spent, b.burst
		}
		v.mu.Unlock()
		if b != nil {
			return spent, burst
		}
	}
	return 0, 0
}

// refill fires the budget's refill timer, once it is set, and waits until
// the watcher has read every line it sent.
func (s *Server) refill(t *testing.T, clock *fakeClock, br *budgetReader) {
	t.Helper()
	waitFor(t, "the budget's refill timer set", func() bool {
		clock.mu.Lock()
		defer clock.mu.Unlock()
		for _, tm := range clock.timers {
			if !tm.stopped {
				return true
			}
		}
		return false
	})
	clock.fireNext()
	waitFor(t, "the watcher read every byte the budget was charged", func() bool {
		spent, _ := s.budgetSpent()
		got, _, _ := br.counts()
		return got == spent
	})
}
