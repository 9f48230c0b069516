package frame

import (
	"errors"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/acpmux/acpmux-tui/internal/ttyreopen"
	"github.com/acpmux/acpmux-tui/proto"
)

// Input is the terminal's input opened again as a file of its own, which
// Go reads through its poller (give it to tea.WithInput).
//
// Bubble Tea reads a terminal with an epoll set of its own: its reader
// hands a key to the event loop, then blocks in epoll_wait, a system call
// that keeps the thread's processor, so the event loop it just woke waits
// for the runtime to take that processor back or to wake another thread
// (about 60 us a key here, by `go tool trace -pprof=sched`). A reader
// parked in the poller gives the processor up at once, and the event loop
// runs next on it.
//
// The terminal is opened again, not made non-blocking in place: the
// non-blocking flag belongs to the open file, which the shell and the
// programs after us share with standard input.
//
// Input also lends the chat pane to the server (Lend, Want): while a loan
// lasts, the server reads the terminal and this reader waits; the keys it
// hands back at the end are read here first.
type Input struct {
	f      *os.File
	inPath string // the terminal's input, to open again for a loan

	mu      sync.Mutex
	r       *Renderer
	lend    Lender
	settle  func()
	barrier func(done func())
	outPath string
	// want is the pane the model would have lent (Want); lastLent the
	// last that was, refused the last refused: neither is lent again
	// until the model says it wants it after the end (fresh).
	want, lastLent, refused *proto.LendPaneParams
	fresh                   bool
	loan                    PaneLoan
	loanDone                chan struct{} // closed when loan has ended
	reading                 bool          // Read waits on f
	rest                    []byte        // handed back, read before f
	closed                  bool
	closing                 chan struct{} // closed by Close
}

// PaneLoan is a chat pane lent to the server (client.Loan).
type PaneLoan interface {
	// Ended hears the end, once the server neither reads nor writes.
	Ended() <-chan proto.PaneEndedParams
	// Draw has the server write b; it returns the drawing's number.
	Draw(b []byte) uint64
	// Sent is the number of the last drawing sent.
	Sent() uint64
	// Back asks for the pane back.
	Back()
	// Close ends the loan's connection.
	Close()
}

// Lender lends the pane p with the terminal's descriptors in and out
// (closed by the caller once it returns).
type Lender func(p proto.LendPaneParams, in, out int) (PaneLoan, error)

// OpenInput opens the terminal in reads again for Bubble Tea. It returns
// nil when in is not a terminal or cannot be opened again (no /proc): the
// program then reads in itself, as Bubble Tea does by default.
func OpenInput(in *os.File) *Input {
	if in == nil || !term.IsTerminal(int(in.Fd())) {
		return nil
	}
	f, err := ttyreopen.Read(in)
	if err != nil {
		return nil
	}
	return &Input{f: f, inPath: ttyreopen.Path(in), closing: make(chan struct{})}
}

// Lend has panes lent through lend, the Renderer r leaving them alone
// while they are, and out the terminal's output (a terminal, opened again
// for each loan). settle, when set, runs as a loan ends, before the keys
// handed back are read: it waits until the model's source has what the
// server drew last (client.Remote.Sync).
func (i *Input) Lend(r *Renderer, out *os.File, lend Lender, settle func()) {
	if out == nil || !term.IsTerminal(int(out.Fd())) {
		return
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	i.r, i.lend, i.settle, i.outPath = r, lend, settle, ttyreopen.Path(out)
}

// Barrier has the reader, before it lends a pane, wait until b's done has
// run: b sends a message through the model that calls done once every key
// read before it has reached the chat (tui.LoanBarrier), so a key typed
// into the loan never overtakes one read here. Set it before the program
// reads.
func (i *Input) Barrier(b func(done func())) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.barrier = b
}

// barrierWait bounds the wait for the barrier: a model that does not
// answer has the pane not lent (refused) rather than the keys unread.
const barrierWait = 10 * time.Second

// Want says which pane the model would have lent now, nil for none; the
// model says it after each update. A loan of another pane, or of none, is
// asked back; a pane not lent is lent when the reader next waits for keys
// (now, when it waits already).
func (i *Input) Want(p *proto.LendPaneParams) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.lend == nil || i.closed {
		return
	}
	if p != nil {
		cp := *p
		p = &cp
	}
	i.want, i.fresh = p, true
	if !sameLoan(p, i.refused) {
		i.refused = nil // refused once, asked again when wanted again
	}
	if i.loan != nil {
		if !sameLoan(p, i.lastLent) {
			i.loan.Back()
		}
		return
	}
	if i.reading && i.lendableLocked() != nil {
		_ = i.f.SetReadDeadline(time.Now()) // the reader lends it
	}
}

// sameLoan reports whether two panes are one.
func sameLoan(a, b *proto.LendPaneParams) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ID == b.ID && a.X == b.X && a.Y == b.Y && a.Cols == b.Cols && a.Rows == b.Rows &&
		a.CursorOn == b.CursorOn && a.CursorOff == b.CursorOff && string(a.HandBack) == string(b.HandBack)
}

// lendableLocked is the pane to lend now, or nil.
func (i *Input) lendableLocked() *proto.LendPaneParams {
	w := i.want
	if w == nil || i.closed || sameLoan(w, i.refused) || sameLoan(w, i.lastLent) && !i.fresh {
		return nil
	}
	return w
}

// Read reads what the terminal has, parked in the poller until it has
// some: first what a loan handed back, and while a pane is lent, nothing
// until the loan ends.
func (i *Input) Read(p []byte) (int, error) {
	for {
		i.mu.Lock()
		if len(i.rest) > 0 {
			n := copy(p, i.rest)
			i.rest = i.rest[n:]
			i.mu.Unlock()
			return n, nil
		}
		w := i.lendableLocked()
		i.reading = w == nil
		i.mu.Unlock()
		if w != nil {
			if i.passBarrier(*w) {
				i.lendPane(*w)
			}
			continue
		}
		n, err := i.f.Read(p)
		i.mu.Lock()
		i.reading = false
		if n > 0 {
			// Keys read here go their own way to the chat: no loan before
			// the model has had them and said it wants one after.
			i.fresh = false
		}
		i.mu.Unlock()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			_ = i.f.SetReadDeadline(time.Time{})
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
}

// passBarrier waits for the barrier, and reports whether p is still the
// pane to lend after it.
func (i *Input) passBarrier(p proto.LendPaneParams) bool {
	i.mu.Lock()
	b := i.barrier
	i.mu.Unlock()
	if b == nil {
		return true
	}
	done := make(chan struct{})
	var once sync.Once
	b(func() { once.Do(func() { close(done) }) })
	timeout := time.NewTimer(barrierWait)
	defer timeout.Stop()
	select {
	case <-done:
	case <-i.closing:
		return false
	case <-timeout.C:
		i.mu.Lock()
		i.refused = &p
		i.mu.Unlock()
		return false
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	w := i.lendableLocked()
	return w != nil && sameLoan(w, &p) && len(i.rest) == 0
}

// lendPane lends pane p and waits for the loan's end.
func (i *Input) lendPane(p proto.LendPaneParams) {
	refuse := func() {
		i.mu.Lock()
		i.refused = &p
		i.mu.Unlock()
	}
	in, err := unix.Open(i.inPath, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		refuse()
		return
	}
	out, err := unix.Open(i.outPath, unix.O_WRONLY|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		unix.Close(in)
		refuse()
		return
	}
	i.r.Hold(Hole{X: p.X, Y: p.Y, W: p.Cols, H: p.Rows})
	loan, err := i.lend(p, in, out)
	unix.Close(in) // the server holds its own now
	unix.Close(out)
	if err != nil {
		i.r.Unlend(func() bool { return true })
		refuse()
		return
	}
	i.r.LendTo(func(b []byte) { loan.Draw(b) })
	done := make(chan struct{})
	defer close(done)
	i.mu.Lock()
	i.loan, i.loanDone, i.lastLent, i.refused = loan, done, &p, nil
	if !sameLoan(i.want, &p) || i.closed {
		loan.Back() // the model changed its mind meanwhile
	}
	i.mu.Unlock()
	var e proto.PaneEndedParams
	select {
	case e = <-loan.Ended():
	case <-i.closing:
		e = proto.PaneEndedParams{Why: proto.PaneEndClosed, Lost: true}
	}
	loan.Close()
	if i.settle != nil && !e.Lost {
		i.settle()
	}
	i.r.Unlend(func() bool { return e.Lost || e.Drawn != loan.Sent() })
	i.mu.Lock()
	// Not lent again before the model has had what came back: it says it
	// wants the pane again after that (a Want made during the loan does
	// not count).
	i.loan, i.fresh = nil, false
	i.rest = append(i.rest, e.Rest...)
	i.mu.Unlock()
}

// loanBackWait bounds how long Close waits for a loan to end.
const loanBackWait = time.Second

// Close closes the terminal opened again, after asking back any pane
// lent (waiting for it within loanBackWait); a Read under way returns.
func (i *Input) Close() error {
	i.mu.Lock()
	if i.closed {
		i.mu.Unlock()
		return nil
	}
	i.closed = true
	loan, done := i.loan, i.loanDone
	i.mu.Unlock()
	if loan != nil {
		loan.Back()
		select {
		case <-done:
		case <-time.After(loanBackWait):
			loan.Close() // a server that does not answer: its connection ends
		}
	}
	close(i.closing)
	return i.f.Close()
}
