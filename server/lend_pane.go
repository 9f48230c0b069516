package server

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/internal/rawio"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/screen"
)

// This file takes a TUI's terminal for its chat pane (proto.MethodLendPane;
// proto/lendpane.go says what the TUI and the server each do). While the
// loan lasts, a key typed into the focused chat goes from the terminal to
// the pty here, and its echo from the pty's reader to the terminal here:
// no TUI process is woken on the way, as none is under tmux. Everything
// else stays the TUI's: it is handed back the keys it must see, and its
// drawing of the rest of its screen comes over the loan's connection and
// is written between the pane's rows, this being the terminal's one
// writer, so neither can cut into the other's escape sequences.

// maxPaneBehind is how much may wait to be written to a lent terminal that
// does not keep up; past it the loan ends and the TUI draws everything
// again itself.
const maxPaneBehind = 1 << 20

// readerStopWait bounds the wait for the keys' reader to stop at the end
// of a loan. Its read ends at once (a deadline, through the poller); the
// bound is for a terminal someone made blocking, and is long, as a key the
// reader takes after the end is told is lost, and a loaded machine may run
// the reader late.
const readerStopWait = 10 * time.Second

// lentPane is a TUI's chat pane lent to the server.
type lentPane struct {
	s       *Server
	c       *conn
	p       proto.LendPaneParams
	in, out *os.File
	outRaw  syscall.RawConn
	keep    [256]bool // bytes handed back to the TUI
	cursor  func(cell string) string

	readerDone chan struct{}

	mu sync.Mutex
	// ending is set once the loan began to end; ended once nothing more
	// is written (emit refuses from then on).
	ending, ended bool
	rest          []byte
	why           string
	// stamps and rows are the pane's rows as last drawn; shown each row
	// as the terminal was sent it, the cursor included ("" before the
	// first); curRow and curCol the cursor drawn (-1 for none).
	stamps         []uint64
	rows, shown    []string
	change         []byte // AppendLineChange's, kept for the next row
	curRow, curCol int
	// pending waits to be written while writing is set (the flusher's);
	// flushed is closed when that flusher ends.
	pending []byte
	writing bool
	flushed chan struct{}
	lost    bool   // something given to be written was not
	drawn   uint64 // the last of the TUI's drawings taken (PaneDrawParams.Seq)
	// awaiting is set from a key typed until its echo is drawn, or
	// echoWait after it.
	awaiting bool
	echoAt   time.Time
}

// lendsPane reports whether a connection's first message is the call
// that lends a pane.
func lendsPane(first []byte) bool {
	req, ok, rpcErr := DecodeLine(first)
	return ok && rpcErr == nil && req.Method == proto.MethodLendPane && bytes.Count(first, []byte("\n")) == 1
}

// checkLend refuses a loan's params that are out of bounds.
func checkLend(p proto.LendPaneParams) *Error {
	switch {
	case p.ID == "":
		return errorf(proto.CodeInvalidParams, "Invalid params: id is required")
	case p.X < 0 || p.Y < 0 || p.X > proto.MaxCols || p.Y > proto.MaxRows:
		return errorf(proto.CodeInvalidParams, "Invalid params: x must be 0..%d and y 0..%d", proto.MaxCols, proto.MaxRows)
	case len(p.HandBack) > proto.MaxHandBack:
		return errorf(proto.CodeInvalidParams, "Invalid params: at most %d bytes to hand back", proto.MaxHandBack)
	case !plainSGR(p.CursorOn) || !plainSGR(p.CursorOff):
		return errorf(proto.CodeInvalidParams, "Invalid params: the cursor's styles must be SGR sequences of at most %d bytes", proto.MaxCursorSGR)
	}
	return checkSize(proto.SizeParams{Cols: p.Cols, Rows: p.Rows}, false)
}

// plainSGR reports whether s is nothing but SGR sequences (ESC [ digits,
// ';' or ':' m), short: all a cursor's cell may write to the terminal.
func plainSGR(s string) bool {
	if len(s) > proto.MaxCursorSGR {
		return false
	}
	for s != "" {
		if len(s) < 3 || s[0] != 0x1b || s[1] != '[' {
			return false
		}
		end := 2
		for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == ';' || s[end] == ':') {
			end++
		}
		if end == len(s) || s[end] != 'm' {
			return false
		}
		s = s[end+1:]
	}
	return true
}

// lendPane serves MethodLendPane.
func (s *Server) lendPane(c *conn, p proto.LendPaneParams) (struct{}, *Error) {
	t := c.terminal.Swap(nil)
	if t == nil {
		return struct{}{}, errorf(proto.CodeInvalidParams, "Invalid params: no terminal came with the connection's first message")
	}
	if err := checkLend(p); err != nil {
		t.close()
		return struct{}{}, err
	}
	st, term := s.chatState(p.ID), s.opt.Mux.Terminal(p.ID)
	if !st.Status.Live() || term.Cols != p.Cols || term.Rows != p.Rows {
		t.close()
		return struct{}{}, errorf(proto.CodeInvalidParams, "Invalid params: chat %s is not a live pty chat of %dx%d", clipText(p.ID), p.Cols, p.Rows)
	}
	raw, err := t.out.SyscallConn()
	if err != nil {
		t.close()
		return struct{}{}, failure(err)
	}
	lp := &lentPane{s: s, c: c, p: p, in: t.in, out: t.out, outRaw: raw, readerDone: make(chan struct{}), curRow: -1, curCol: -1}
	lp.keep[0x1b] = true
	for _, b := range p.HandBack {
		lp.keep[b] = true
	}
	on, off := p.CursorOn, p.CursorOff
	lp.cursor = func(cell string) string { return on + cell + off }
	if !c.pane.CompareAndSwap(nil, lp) {
		t.close()
		return struct{}{}, errorf(proto.CodeInvalidRequest, "Invalid Request: this connection lends a pane already")
	}
	s.views.addPane(lp, proto.ChatView{State: st, Terminal: term})
	go lp.readKeys()
	s.opt.Logger.Debug("pane lent", "chat", p.ID)
	return struct{}{}, nil
}

// paneDraw serves MethodPaneDraw: the TUI's drawing, written in turn.
func (s *Server) paneDraw(c *conn, p proto.PaneDrawParams) (struct{}, *Error) {
	lp := c.pane.Load()
	if lp == nil {
		return struct{}{}, errorf(proto.CodeInvalidRequest, "Invalid Request: no pane is lent on this connection")
	}
	lp.mu.Lock()
	if lp.emitLocked(p.Data) {
		lp.drawn = p.Seq
	}
	lp.mu.Unlock()
	return struct{}{}, nil
}

// paneBack serves MethodPaneBack.
func (s *Server) paneBack(c *conn, _ struct{}) (struct{}, *Error) {
	if lp := c.pane.Load(); lp != nil {
		go lp.end(nil, proto.PaneEndBack, false)
	}
	return struct{}{}, nil
}

// readKeys types what comes from the terminal into the chat, up to the
// first byte the TUI keeps, which ends the loan with the rest handed
// back; or until the loan ends otherwise (the read's deadline).
func (lp *lentPane) readKeys() {
	defer close(lp.readerDone)
	buf := make([]byte, 4096)
	in := rawio.ReaderOf(lp.in)
	for {
		n, err := in.Read(buf)
		chunk := buf[:max(n, 0)]
		lp.mu.Lock()
		ending := lp.ending
		if ending {
			// Read as the loan ended: the TUI's to read.
			lp.rest = append(lp.rest, chunk...)
		}
		lp.mu.Unlock()
		if ending {
			return
		}
		i := 0
		for i < len(chunk) && !lp.keep[chunk[i]] {
			i++
		}
		if i > 0 {
			lp.typeKeys(chunk[:i])
		}
		switch {
		case i < len(chunk):
			lp.end(slices.Clone(chunk[i:]), proto.PaneEndKey, true)
			return
		case err != nil:
			lp.end(nil, proto.PaneEndTerminal, true)
			return
		}
	}
}

// typeKeys writes keys to the chat, whose next change is then drawn at
// once as their echo.
func (lp *lentPane) typeKeys(b []byte) {
	lp.mu.Lock()
	if !lp.awaiting {
		lp.awaiting = true
		lp.s.views.echoes.Add(1)
	}
	lp.echoAt = time.Now()
	lp.mu.Unlock()
	select {
	case lp.s.views.echoWake <- struct{}{}:
	default: // a wake is on its way already
	}
	if err := lp.s.opt.Mux.Write(lp.p.ID, b); err != nil {
		go lp.end(nil, proto.PaneEndChat, false)
		return
	}
	lp.s.opt.Records.Used(lp.p.ID)
}

// awaits reports whether the pane awaits chat id's change as a key's echo.
func (lp *lentPane) awaits(id string) bool {
	if lp.p.ID != id {
		return false
	}
	lp.mu.Lock()
	defer lp.mu.Unlock()
	return lp.awaiting && time.Since(lp.echoAt) <= echoWait
}

// forgetEchoLocked awaits no echo.
func (lp *lentPane) forgetEchoLocked() {
	if lp.awaiting {
		lp.awaiting = false
		lp.s.views.echoes.Add(-1)
	}
}

// changed draws the rows of the chat that changed, and the cursor's: on
// the goroutine that publishes the change, which for a key's echo is the
// one that read it from the pty. A chat that stopped or changed size ends
// the loan: the TUI draws it otherwise.
func (lp *lentPane) changed(cv proto.ChatView) {
	t := cv.Terminal
	if !cv.State.Status.Live() || t.Cols != lp.p.Cols || t.Rows != lp.p.Rows {
		go lp.end(nil, proto.PaneEndChat, false)
		return
	}
	// The cursor read with the rows, not cv's: more output may have come
	// since cv was made, and the rows show it.
	stamps, fresh, cursor, ok := lp.s.opt.Mux.ScreenRows(lp.p.ID, lp.stampsNow())
	if !ok || len(stamps) != lp.p.Rows {
		go lp.end(nil, proto.PaneEndChat, false)
		return
	}
	row, col := -1, -1
	if cursor.Visible {
		row, col = cursor.Row, cursor.Col
	}
	lp.mu.Lock()
	defer lp.mu.Unlock()
	if lp.ending {
		return
	}
	if len(lp.rows) != len(stamps) {
		lp.rows, lp.shown = make([]string, len(stamps)), make([]string, len(stamps))
	}
	moved := row != lp.curRow || col != lp.curCol
	var b []byte
	for i := range stamps {
		text, isFresh := fresh[i]
		if isFresh {
			lp.rows[i] = text
		}
		if isFresh || moved && (i == row || i == lp.curRow) {
			b = lp.appendRow(b, i, row, col)
		}
	}
	lp.stamps, lp.curRow, lp.curCol = stamps, row, col
	lp.forgetEchoLocked()
	lp.emitLocked(b)
}

// stampsNow is the stamps of the rows last drawn (nil draws them all).
func (lp *lentPane) stampsNow() []uint64 {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	return lp.stamps
}

// appendRow appends row i drawn at its place in the pane, with the cursor
// when it is on that row, as the TUI draws it: only the cells that changed
// since it was last drawn (a key's echo is a cell or two of a wide row),
// the whole row the first time.
func (lp *lentPane) appendRow(b []byte, i, curRow, curCol int) []byte {
	line := lp.rows[i]
	if i == curRow {
		line = screen.WithCursor(line, curCol, lp.p.Cols, lp.cursor)
	}
	old := lp.shown[i]
	lp.shown[i] = line
	if old == "" {
		b = appendCUP(b, lp.p.Y+i, lp.p.X)
		b = append(b, line...)
		return append(b, "\x1b[0m"...)
	}
	change, col, changed := screen.AppendLineChange(lp.change[:0], old, line)
	lp.change = change
	if !changed {
		return b
	}
	b = appendCUP(b, lp.p.Y+i, lp.p.X+col)
	return append(b, change...)
}

// appendCUP moves the cursor to row y, column x of the terminal (from 0),
// and resets the styles.
func appendCUP(b []byte, y, x int) []byte {
	b = append(b, "\x1b["...)
	b = strconv.AppendInt(b, int64(y+1), 10)
	b = append(b, ';')
	b = strconv.AppendInt(b, int64(x+1), 10)
	return append(b, "H\x1b[0m"...)
}

// emitLocked writes b to the terminal after what waits already: what the
// terminal takes at once is written here, on the caller's goroutine, and
// the rest by a flusher that waits for the terminal. It reports whether b
// was taken; past maxPaneBehind the loan ends.
func (lp *lentPane) emitLocked(b []byte) bool {
	if lp.ended {
		if len(b) > 0 {
			lp.lost = true
		}
		return false
	}
	if len(b) == 0 {
		return true
	}
	if lp.writing {
		if len(lp.pending)+len(b) > maxPaneBehind {
			lp.lost = true
			go lp.end(nil, proto.PaneEndBehind, false)
			return false
		}
		lp.pending = append(lp.pending, b...)
		return true
	}
	rest, err := rawio.WriteNow(lp.outRaw, b)
	if err != nil {
		lp.lost = true
		go lp.end(nil, proto.PaneEndTerminal, false)
		return false
	}
	if len(rest) > 0 {
		lp.pending = append(lp.pending[:0], rest...)
		lp.writing = true
		lp.flushed = make(chan struct{})
		go lp.flush(lp.flushed)
	}
	return true
}

// flush writes what waits, waiting for the terminal, until nothing does.
func (lp *lentPane) flush(done chan struct{}) {
	defer close(done)
	var b []byte
	for {
		lp.mu.Lock()
		b = append(b[:0], lp.pending...)
		lp.pending = lp.pending[:0]
		if len(b) == 0 {
			lp.writing = false
			lp.mu.Unlock()
			return
		}
		lp.mu.Unlock()
		if _, err := lp.out.Write(b); err != nil {
			lp.mu.Lock()
			lp.writing, lp.lost = false, true
			lp.pending = nil
			lp.mu.Unlock()
			go lp.end(nil, proto.PaneEndTerminal, false)
			return
		}
	}
}

// end ends the loan, once: nothing more is read or written, what waits is
// written (within giveBackWait), and the TUI is told, with what it is
// handed back. fromReader is set on readKeys' own goroutine.
func (lp *lentPane) end(rest []byte, why string, fromReader bool) {
	lp.mu.Lock()
	if lp.ending {
		// Ended meanwhile by another: what the reader hands back goes
		// with that end, which waits for the reader before it tells.
		lp.rest = append(lp.rest, rest...)
		lp.mu.Unlock()
		return
	}
	lp.ending, lp.why = true, why
	lp.rest = append(lp.rest, rest...)
	lp.forgetEchoLocked()
	lp.mu.Unlock()
	lp.s.views.dropPane(lp)
	// The TUI's own copy of the chat waited for frames while the pane was
	// lent: it goes now, before the end is told, so the TUI that syncs
	// after the end draws the pane as the server last did.
	lp.s.views.flushChat(lp.p.ID)
	if !fromReader {
		_ = lp.in.SetReadDeadline(time.Now())
		select {
		case <-lp.readerDone:
		case <-time.After(readerStopWait):
			// A terminal made blocking under us (by another holder of
			// its open file: the TUI opens one for the loan alone) is
			// read by a read no deadline ends: the loan ends without it.
			lp.s.opt.Logger.Warn("a lent pane's terminal did not stop being read", "chat", lp.p.ID)
		}
	}
	lp.mu.Lock()
	lp.ended = true
	flushed := lp.flushed
	writing := lp.writing
	lp.mu.Unlock()
	if writing {
		_ = lp.out.SetWriteDeadline(time.Now().Add(giveBackWait))
		<-flushed
	}
	lp.mu.Lock()
	ended := proto.PaneEndedParams{ID: lp.p.ID, Rest: lp.rest, Why: lp.why, Lost: lp.lost, Drawn: lp.drawn}
	lp.mu.Unlock()
	lp.in.Close()
	lp.out.Close()
	lp.c.notify(proto.NotifyPaneEnded, ended)
	lp.s.opt.Logger.Debug("pane given back", "chat", lp.p.ID, "why", why)
}

// addPane draws a lent pane whole, as its chat is now (cv), and with each
// change of the chat from then on. Under pub, no publication draws it
// meanwhile: its rows are drawn in the order they changed.
func (h *viewHub) addPane(lp *lentPane, cv proto.ChatView) {
	h.pub.Lock()
	defer h.pub.Unlock()
	// The whole pane first: what the TUI drew there may be a moment old.
	lp.changed(cv)
	h.mu.Lock()
	panes := append(slices.Clone(h.lentPanes()), lp)
	h.panes.Store(&panes)
	h.mu.Unlock()
	h.drawnChangedLocked()
}

// dropPane forgets a pane whose loan ends.
func (h *viewHub) dropPane(lp *lentPane) {
	h.mu.Lock()
	panes := slices.DeleteFunc(slices.Clone(h.lentPanes()), func(p *lentPane) bool { return p == lp })
	h.panes.Store(&panes)
	h.mu.Unlock()
	h.pub.Lock()
	h.drawnChangedLocked()
	h.pub.Unlock()
}

// flushChat sends every watcher what waits of chat id (and the rest that
// waits with it) now.
func (h *viewHub) flushChat(id string) {
	for _, v := range h.all() {
		v.mu.Lock()
		if _, waiting := v.dirty[id]; waiting && !v.closed && v.watching {
			v.cancelLocked()
			v.flushLocked()
		}
		v.mu.Unlock()
	}
}

// lentPanes returns the panes lent now: a slice not to be changed.
func (h *viewHub) lentPanes() []*lentPane {
	if p := h.panes.Load(); p != nil {
		return *p
	}
	return nil
}
