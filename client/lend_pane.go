package client

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acpmux/acpmux-tui/proto"
)

// lendWait bounds the loan's call: a server that does not answer it at
// once leaves the TUI its pane.
const lendWait = 10 * time.Second

// Loan is a TUI's chat pane lent to the agent home's server
// (proto.MethodLendPane): until it ends, the server reads the terminal
// and draws the pane, and the TUI's own drawing goes through Draw.
type Loan struct {
	c     *Conn
	ended chan proto.PaneEndedParams
	once  sync.Once

	mu  sync.Mutex
	seq uint64 // the last drawing sent
}

// LendPane lends the server of home the terminal whose input and output
// are the descriptors in and out (opened again for the loan: the server
// makes them non-blocking), for the pane p. The descriptors are the
// caller's still; it may close them once LendPane returns. A refusal is
// the server's error (an *RPCError; Method not found from a server older
// than the loan).
func LendPane(home string, p proto.LendPaneParams, in, out int) (*Loan, error) {
	nc, err := DialSocket(home)
	if err != nil {
		return nil, err
	}
	c := newConn(&lendingConn{UnixConn: nc, rights: unix.UnixRights(in, out)})
	l := &Loan{c: c, ended: make(chan proto.PaneEndedParams, 1)}
	c.OnNotify(func(method string, params json.RawMessage) {
		if method != proto.NotifyPaneEnded {
			return
		}
		var e proto.PaneEndedParams
		if json.Unmarshal(params, &e) != nil {
			e = proto.PaneEndedParams{Why: proto.PaneEndClosed, Lost: true}
		}
		l.finish(e)
	})
	go func() {
		<-c.Done()
		// A server gone without a word may have left anything drawn.
		l.finish(proto.PaneEndedParams{ID: p.ID, Why: proto.PaneEndClosed, Lost: true})
	}()
	ctx, cancel := context.WithTimeout(context.Background(), lendWait)
	defer cancel()
	if err := c.Call(ctx, proto.MethodLendPane, p, nil); err != nil {
		c.Close()
		return nil, err
	}
	return l, nil
}

// finish tells the loan's end, once.
func (l *Loan) finish(e proto.PaneEndedParams) {
	l.once.Do(func() { l.ended <- e })
}

// Ended hears the loan's end, once: the server reads and writes the
// terminal no more.
func (l *Loan) Ended() <-chan proto.PaneEndedParams { return l.ended }

// Draw has the server write b to the terminal, in turn with the pane's
// rows; it returns the drawing's number (proto.PaneDrawParams.Seq).
func (l *Loan) Draw(b []byte) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	_ = l.c.Notify(proto.MethodPaneDraw, proto.PaneDrawParams{Seq: l.seq, Data: b})
	return l.seq
}

// Sent is the number of the last drawing sent.
func (l *Loan) Sent() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seq
}

// Back asks for the pane back; Ended hears when it is.
func (l *Loan) Back() { _ = l.c.Notify(proto.MethodPaneBack, struct{}{}) }

// Close closes the loan's connection, which ends the loan if it had not.
func (l *Loan) Close() { l.c.Close() }
