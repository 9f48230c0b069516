package frame

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"

	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/screen"
)

// shown is the plain text of a 20x4 terminal after bytes.
func shown(bytes ...string) []string {
	s := screen.New(20, 4, 0)
	for _, b := range bytes {
		s.Write([]byte(b))
	}
	out := make([]string, 4)
	for i := range out {
		out[i] = s.PlainLine(i)
	}
	return out
}

// While a rectangle is lent, the frames write around it (what another
// writer drew there stays), through the loan, as do Emit's sequences; what
// came before the loan was made is held for it; given back, the
// rectangle's rows are drawn again from the last frame, or every row when
// something may not have been written.
func TestRendererWritesAroundTheLentHole(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	r, d, out := started(t, 20, 4, c)
	c.advance(time.Second)
	d.Update("aaaaaaaaaaaaaaaaaaaa\nbbbbbbbbbbbbbbbbbbbb\ncccccccccccccccccccc\ndddddddddddddddddddd")
	before := out.take()

	r.Hold(Hole{X: 5, Y: 1, W: 10, H: 2})
	c.advance(time.Second)
	d.Update("aaaaaaaaaaaaaaaaaaaa\nBBBBBBBBBBBBBBBBBBBB\nCCCCCCCCCCCCCCCCCCCC\nDDDDDDDDDDDDDDDDDDDD")
	r.Emit("\a")
	if got := out.take(); got != "" {
		t.Fatalf("a frame went to the terminal while the hole was being lent: %q", got)
	}
	var mu sync.Mutex
	var lent strings.Builder
	r.LendTo(func(b []byte) { mu.Lock(); lent.Write(b); mu.Unlock() })
	mu.Lock()
	held := lent.String()
	mu.Unlock()
	if !strings.HasSuffix(held, "\a") {
		t.Errorf("the held frame and bell did not go to the loan in turn: %q", held)
	}
	// The server's drawing in the hole, then the frame written around it.
	server := "\x1b[2;6Hserverrow1\x1b[3;6Hserverrow2"
	want := []string{"aaaaaaaaaaaaaaaaaaaa", "BBBBBserverrow1BBBBB", "CCCCCserverrow2CCCCC", "DDDDDDDDDDDDDDDDDDDD"}
	if got := shown(before, server, held); !equalLines(got, want) {
		t.Fatalf("drawn around the hole:\n%q\nwant\n%q", got, want)
	}
	// A change inside the hole alone writes nothing.
	c.advance(time.Second)
	d.Update("aaaaaaaaaaaaaaaaaaaa\nBBBBBxxxxxxxxxxBBBBB\nCCCCCCCCCCCCCCCCCCCC\nDDDDDDDDDDDDDDDDDDDD")
	mu.Lock()
	if rest := strings.TrimPrefix(lent.String(), held); rest != "" {
		t.Errorf("a change inside the hole was written: %q", rest)
	}
	mu.Unlock()

	r.Unlend(nil)
	back := out.take()
	if got, want := shown(before, server, held, back), []string{"aaaaaaaaaaaaaaaaaaaa", "BBBBBxxxxxxxxxxBBBBB", "CCCCCCCCCCCCCCCCCCCC", "DDDDDDDDDDDDDDDDDDDD"}; !equalLines(got, want) {
		t.Fatalf("given back, the hole's rows are not the last frame's:\n%q\nwant\n%q", got, want)
	}
	if strings.Contains(back, "DDDD") {
		t.Errorf("a row outside the hole was drawn again: %q", back)
	}

	r.Hold(Hole{X: 5, Y: 1, W: 10, H: 2})
	r.LendTo(func([]byte) {})
	r.Unlend(func() bool { return true })
	if got := out.take(); !strings.Contains(got, "aaaa") || !strings.Contains(got, "DDDD") {
		t.Errorf("given back with something lost, not every row was drawn again: %q", got)
	}
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.TrimRight(a[i], " ") != strings.TrimRight(b[i], " ") {
			return false
		}
	}
	return true
}

// testLoan is a loan as the server makes one, told its end by the test.
type testLoan struct {
	p     proto.LendPaneParams
	ended chan proto.PaneEndedParams
	backs chan struct{}

	mu  sync.Mutex
	seq uint64
}

func (l *testLoan) Ended() <-chan proto.PaneEndedParams { return l.ended }
func (l *testLoan) Draw([]byte) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	return l.seq
}
func (l *testLoan) Sent() uint64 { l.mu.Lock(); defer l.mu.Unlock(); return l.seq }

// Back is told on backs, and ends the loan as the server does.
func (l *testLoan) Back() {
	select {
	case l.backs <- struct{}{}:
	default:
	}
	select {
	case l.ended <- proto.PaneEndedParams{ID: l.p.ID, Why: proto.PaneEndBack}:
	default: // ended already
	}
}
func (l *testLoan) Close() {}

// lendRig is an Input on a real terminal (a pty) whose loans the test
// makes: each loan asked for is sent on loans, or refused while refuse
// is set.
type lendRig struct {
	in      *Input
	master  *os.File
	loans   chan *testLoan
	settles chan struct{} // a settle, each time a loan ends
	mu      sync.Mutex
	refuse  bool
	read    chan string
}

func newLendRig(t *testing.T) *lendRig {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the terminal is opened again through /proc")
	}
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	t.Cleanup(func() { master.Close(); tty.Close() })
	if _, err := term.MakeRaw(int(tty.Fd())); err != nil {
		t.Fatal(err)
	}
	in := OpenInput(tty)
	if in == nil {
		t.Fatal("the terminal was not opened again")
	}
	g := &lendRig{in: in, master: master, loans: make(chan *testLoan, 4), read: make(chan string, 16), settles: make(chan struct{}, 16)}
	c := &clock{t: time.Unix(0, 0)}
	r, _ := running(t, 20, 4, c)
	in.Lend(r, tty, func(p proto.LendPaneParams, _, _ int) (PaneLoan, error) {
		g.mu.Lock()
		refuse := g.refuse
		g.mu.Unlock()
		if refuse {
			return nil, errors.New("refused")
		}
		l := &testLoan{p: p, ended: make(chan proto.PaneEndedParams, 1), backs: make(chan struct{}, 4)}
		g.loans <- l
		return l, nil
	}, func() { g.settles <- struct{}{} })
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 64)
		for {
			n, err := in.Read(buf)
			if err != nil {
				return
			}
			g.read <- string(buf[:n])
		}
	}()
	t.Cleanup(func() { in.Close(); <-done })
	return g
}

func (g *lendRig) loan(t *testing.T, what string) *testLoan {
	t.Helper()
	select {
	case l := <-g.loans:
		return l
	case <-time.After(wait.Hang):
		t.Fatalf("no loan was made: %s", what)
		return nil
	}
}

func (g *lendRig) reads(t *testing.T, want string) {
	t.Helper()
	select {
	case got := <-g.read:
		if got != want {
			t.Fatalf("read %q, want %q", got, want)
		}
	case <-time.After(wait.Hang):
		t.Fatalf("nothing was read; want %q", want)
	}
}

func (g *lendRig) noLoan(t *testing.T, what string) {
	t.Helper()
	// The reader reads what is typed when no loan is made: a key typed
	// now comes back from Read, not from a loan.
	if _, err := g.master.WriteString("k"); err != nil {
		t.Fatal(err)
	}
	g.reads(t, "k")
	select {
	case <-g.loans:
		t.Fatalf("a loan was made: %s", what)
	default:
	}
}

// The reader lends the pane the model wants as soon as it waits for keys;
// what the loan hands back at its end is read first, and the same pane is
// not lent again until the model says it wants it after that; a pane no
// longer wanted is asked back; a refused pane is not asked for again until
// another is wanted.
func TestInputLendsThePaneWanted(t *testing.T) {
	g := newLendRig(t)
	p := &proto.LendPaneParams{ID: "c1", X: 5, Y: 1, Cols: 10, Rows: 2}
	g.in.Want(p)
	l := g.loan(t, "the pane wanted while the reader waited")
	if l.p.ID != "c1" || l.p.Cols != 10 {
		t.Fatalf("lent %+v", l.p)
	}
	g.in.Want(p) // said during the loan: not a want after its end
	l.ended <- proto.PaneEndedParams{ID: "c1", Rest: []byte("\x1b[A"), Why: proto.PaneEndKey}
	g.reads(t, "\x1b[A")
	if len(g.settles) != 1 {
		t.Errorf("the loan was not settled at its end (%d settles)", len(g.settles))
	}
	g.noLoan(t, "the pane was lent again before the model had read what came back")

	g.in.Want(p)
	l = g.loan(t, "the pane wanted again")
	g.in.Want(p) // the same: kept
	select {
	case <-l.backs:
		t.Fatal("a loan of the pane still wanted was asked back")
	default:
	}
	g.in.Want(nil)
	select {
	case <-l.backs:
	case <-time.After(wait.Hang):
		t.Fatal("a loan no longer wanted was not asked back")
	}
	g.noLoan(t, "a loan was made with none wanted")

	g.mu.Lock()
	g.refuse = true
	g.mu.Unlock()
	g.in.Want(p)
	g.noLoan(t, "a refused pane was lent")
	g.in.Want(p)
	g.noLoan(t, "a refused pane was asked for again")
	g.mu.Lock()
	g.refuse = false
	g.mu.Unlock()
	q := *p
	q.Rows = 3
	g.in.Want(&q)
	if l := g.loan(t, "another pane after a refusal"); l.p.Rows != 3 {
		t.Fatalf("lent %+v", l.p)
	}
}

// Before it lends a pane, the reader waits for the barrier through the
// model, and lends only the pane the model still wants after it.
func TestInputLendsOnlyPastTheBarrier(t *testing.T) {
	g := newLendRig(t)
	barriers := make(chan func(), 4)
	g.in.Barrier(func(done func()) { barriers <- done })
	next := func(what string) func() {
		t.Helper()
		select {
		case done := <-barriers:
			return done
		case <-time.After(wait.Hang):
			t.Fatalf("no barrier was sent: %s", what)
			return nil
		}
	}
	p := &proto.LendPaneParams{ID: "c1", X: 5, Y: 1, Cols: 10, Rows: 2}
	g.in.Want(p)
	done := next("the pane wanted")
	select {
	case l := <-g.loans:
		t.Fatalf("lent %+v before the barrier passed", l.p)
	default:
	}
	done()
	l := g.loan(t, "the barrier passed")
	l.ended <- proto.PaneEndedParams{ID: "c1", Rest: []byte("r"), Why: proto.PaneEndKey}
	g.reads(t, "r")

	// The model no longer wants the pane when the barrier passes.
	g.in.Want(p)
	done = next("the pane wanted again")
	g.in.Want(nil)
	done()
	g.noLoan(t, "the pane no longer wanted after the barrier")
}

// Unlend asks whether something was lost only once it holds the lock, so
// a drawing that went to the loan while it waited is counted, and every
// row is drawn again (a frame the server never wrote, as the loan ended,
// left the summary stale on a CI run).
func TestUnlendCountsTheDrawingItWaitedFor(t *testing.T) {
	c := &clock{t: time.Unix(0, 0)}
	r, d, out := started(t, 20, 4, c)
	c.advance(time.Second)
	d.Update("aaaaaaaaaaaaaaaaaaaa\nbbbbbbbbbbbbbbbbbbbb\ncccccccccccccccccccc\ndddddddddddddddddddd")
	out.take()
	r.Hold(Hole{X: 5, Y: 1, W: 10, H: 2})

	var sent atomic.Int64
	var once sync.Once
	drawing, release := make(chan struct{}), make(chan struct{})
	r.LendTo(func([]byte) {
		once.Do(func() { close(drawing) })
		<-release // the loan's writer is slow: the Renderer's lock is held
		sent.Add(1)
	})
	go r.Emit("\a")
	<-drawing
	asked := make(chan int64, 1)
	unlent := make(chan struct{})
	go func() {
		defer close(unlent)
		r.Unlend(func() bool { n := sent.Load(); asked <- n; return n != 0 })
	}()
	close(release)
	select {
	case <-unlent:
	case <-time.After(wait.Hang):
		t.Fatal("Unlend did not return once the drawing was sent")
	}
	if n := <-asked; n != 1 {
		t.Fatalf("Unlend asked with %d drawings sent, before the one it waited for", n)
	}
	if got := out.take(); !strings.Contains(got, "aaaa") || !strings.Contains(got, "dddd") {
		t.Errorf("with a drawing lost, not every row was drawn again: %q", got)
	}
}
