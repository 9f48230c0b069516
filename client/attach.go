package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/acpmux/acpmux-tui/proto"
)

// This file is `attach` on the client's side: a chat the server runs, shown
// in this terminal as its harness draws it (see proto/attach.go).

// DetachKey is ctrl+], the byte that leaves an attached chat.
const DetachKey = proto.DetachKey

// Bounds of the client's own buffers.
const (
	// maxBehind is how much of the stream may wait for the terminal before
	// the client drops it and asks the server for a redraw.
	maxBehind = 4 << 20
	// maxTyped is how much typed input may wait for the server (a harness
	// that does not read its input); more is dropped, so ctrl+] is always
	// read.
	maxTyped = 1 << 20
	// maxInputCall is the most input one call carries.
	maxInputCall = 64 << 10
	// attachNowMax is the most output the connection's reader writes to
	// the terminal itself (writeNowLocked): a key's echo, a line or a
	// small redraw.
	attachNowMax = 4 << 10
)

// attachCallTimeout bounds the calls attach waits for other than the
// first and the input: a resize, a redraw, the detach.
const attachCallTimeout = 30 * time.Second

// detachInputWait is how long a detach waits for the input typed before
// ctrl+] to reach a harness (one that does not read its input holds it).
const detachInputWait = 5 * time.Second

// Default terminal size when the terminal does not say.
const (
	defaultCols = 80
	defaultRows = 24
)

// Attach shows the server's chat id in the terminal in/out over c: the
// harness is started unless it runs, the pty takes the terminal's size and
// follows it, the terminal shows the chat's screen as it is and then what
// the harness draws, and input goes to the harness until ctrl+] detaches.
// It returns when the user detaches ("detached"), the harness ends for good
// (how it ended, "exit status 0"; an error when it failed), a fatal signal
// arrives (a *SignalError), or the connection ends. Whichever way, the
// harness keeps running in the server unless it ended by itself.
//
// Whichever way it returns, even by a panic, it gives the terminal back as
// it found it: every mode the harness set (mouse tracking, keypad, cursor
// keys, bracketed paste, a hidden cursor, the alternate screen...) reset,
// then cooked mode. Attach sets c's notification handler; c is the
// caller's to close.
func Attach(c *Conn, id string, in, out *os.File) (how string, err error) {
	return attach(c, id, in, out, nil)
}

// attach is Attach; with keys set, the input is read from keys (one
// reader of in that outlives this attach, so a reconnected attach reads
// on where this one stopped) instead of from in.
func attach(c *Conn, id string, in, out *os.File, keys *keyPump) (how string, err error) {
	cols, rows := terminalSize(int(out.Fd()))
	fatal, winch, stop := attachSignals()
	defer stop()

	st := newAttachStream(id)
	c.OnNotify(st.notified)
	defer c.OnNotify(nil)

	// The first call, with the terminal still cooked: a refusal prints as
	// any error, and a signal while the harness starts ends attach.
	type attached struct {
		res proto.AttachResult
		err error
	}
	first := make(chan attached, 1)
	go func() {
		var a attached
		a.err = c.Call(context.Background(), proto.MethodAttach, proto.AttachParams{ID: id, Cols: cols, Rows: rows}, &a.res)
		first <- a
	}()
	var res proto.AttachResult
	select {
	case a := <-first:
		if a.err != nil {
			return "", a.err
		}
		res = a.res
	case sig := <-fatal:
		return "", &SignalError{Signal: sig.(syscall.Signal)}
	}

	t, err := borrowTerminal(in, out)
	if err != nil {
		_ = callBounded(c, proto.MethodDetach, proto.DetachParams{ID: id}, nil)
		return "", err
	}
	defer func() {
		if r := recover(); r != nil {
			t.restore()
			panic(r)
		}
		t.restore()
	}()

	size := &attachSize{cols: cols, rows: rows}
	st.resync = func() {
		go func() {
			cols, rows := size.get()
			var r proto.AttachResult
			if callBounded(c, proto.MethodAttach, proto.AttachParams{ID: id, Cols: cols, Rows: rows, Resync: true}, &r) == nil {
				st.redraw(r.Gen, r.Snapshot)
			}
		}()
	}
	st.redraw(res.Gen, res.Snapshot)
	ended := make(chan attachEnd, 1)
	go func() {
		defer t.restoreIfPanicking()
		ended <- st.writeTo(t)
	}()
	go func() {
		<-c.Done()
		st.lost()
	}()

	typed := newTypedInput(c, id)
	sent := make(chan struct{})
	go func() { defer close(sent); typed.send() }()
	detached := make(chan struct{})
	if keys == nil {
		go func() {
			defer t.restoreIfPanicking()
			forwardInput(in, detached, typed.add)
		}()
	} else {
		// The pump's goroutine sends each key itself, until attach returns.
		keys.consume(keyForwarder(t, detached, typed.add))
		defer keys.consume(nil)
	}
	sizes := make(chan [2]int, 1)
	defer close(sizes)
	go func() {
		for s := range sizes {
			_ = callBounded(c, proto.MethodAttachResize, proto.AttachResizeParams{ID: id, Cols: s[0], Rows: s[1]}, nil)
		}
	}()

	for {
		select {
		case <-detached:
			t.restore()
			// What was typed before ctrl+] reaches the harness first.
			typed.close()
			select {
			case <-sent:
			case <-time.After(detachInputWait):
			}
			_ = callBounded(c, proto.MethodDetach, proto.DetachParams{ID: id}, nil)
			select {
			case sig := <-fatal:
				return "", &SignalError{Signal: sig.(syscall.Signal)}
			default:
			}
			return "detached", nil
		case sig := <-fatal:
			t.restore()
			typed.close()
			return "", &SignalError{Signal: sig.(syscall.Signal)}
		case <-winch:
			if cols, rows, err := term.GetSize(int(out.Fd())); err == nil {
				size.set(cols, rows)
				select {
				case <-sizes: // an older size not sent yet: this one replaces it
				default:
				}
				sizes <- [2]int{cols, rows}
			}
		case e := <-ended:
			typed.close()
			return e.how, e.err
		}
	}
}

// terminalSize is the terminal's size, or the default when it does not
// say.
func terminalSize(fd int) (cols, rows int) {
	cols, rows, err := term.GetSize(fd)
	if err != nil {
		return defaultCols, defaultRows
	}
	return cols, rows
}

// attachSignals catches the fatal signals and the terminal's resizes for
// an attach until stop. Caught before the terminal goes raw, so no fatal
// signal can end the process with the terminal left raw; stopped only once
// it is restored (deferred before the restore).
func attachSignals() (fatal, winch chan os.Signal, stop func()) {
	fatal = make(chan os.Signal, 1)
	signal.Notify(fatal, fatalSignals...)
	winch = make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	return fatal, winch, func() {
		signal.Stop(fatal)
		signal.Stop(winch)
	}
}

// callBounded makes a call attach makes after the first, within
// attachCallTimeout.
func callBounded(c *Conn, method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), attachCallTimeout)
	defer cancel()
	return c.Call(ctx, method, params, result)
}

// attachSize is the terminal's size as last seen.
type attachSize struct {
	mu         sync.Mutex
	cols, rows int
}

func (s *attachSize) get() (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cols, s.rows
}

func (s *attachSize) set(cols, rows int) {
	s.mu.Lock()
	s.cols, s.rows = cols, rows
	s.mu.Unlock()
}

// forwardInput copies input to send until it reads ctrl+], then closes
// detached. Bytes before ctrl+] in the same read are still sent.
func forwardInput(in io.Reader, detached chan<- struct{}, send func([]byte)) {
	buf := make([]byte, 4096)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if i := bytes.IndexByte(chunk, DetachKey); i >= 0 {
				if i > 0 {
					send(chunk[:i])
				}
				close(detached)
				return
			}
			send(chunk)
		}
		if err != nil {
			close(detached)
			return
		}
	}
}

// attachEnd is how an attach ended by itself.
type attachEnd struct {
	how string
	err error
}

// attachStream puts the server's stream in order for the terminal. Each
// redraw starts a generation; output of the generation shown is written,
// output of an older one dropped, output of a newer one held until its
// redraw comes (an answer and a notification may arrive in either order).
// Whatever the terminal has not taken waits in one buffer; past maxBehind
// it is dropped and a redraw asked for.
type attachStream struct {
	id     string
	resync func() // asks the server for a redraw; set before the first one

	mu        sync.Mutex
	cur       uint64 // the generation shown
	dropping  bool   // fell behind: output of cur is dropped until a redraw
	redrawLen int    // pending starts with a redraw this long
	pending   []byte
	spare     []byte
	held      []heldOutput
	heldBytes int
	end       *proto.ExitedParams
	gone      bool // the connection has ended
	wake      chan struct{}
	// term is the terminal writeTo writes to, once it runs; writing is
	// set while it writes what it took.
	term    *borrowedTerminal
	writing bool
}

// heldOutput is output of a generation whose redraw has not come yet.
type heldOutput struct {
	gen  uint64
	data []byte
}

func newAttachStream(id string) *attachStream {
	return &attachStream{id: id, wake: make(chan struct{}, 1)}
}

func (s *attachStream) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// notified takes the server's notifications (on the connection's reader:
// it never blocks).
func (s *attachStream) notified(method string, params json.RawMessage) {
	switch method {
	case proto.NotifyOutput:
		var p proto.OutputParams
		if json.Unmarshal(params, &p) != nil || p.ID != s.id {
			return
		}
		if p.Snapshot {
			s.redraw(p.Gen, p.Data)
		} else {
			s.output(p.Gen, p.Data)
		}
	case proto.NotifyExited:
		var p proto.ExitedParams
		if json.Unmarshal(params, &p) != nil || p.ID != s.id {
			return
		}
		s.mu.Lock()
		s.end = &p
		s.mu.Unlock()
		s.poke()
	}
}

// redraw starts generation gen with its snapshot, unless a newer one is
// shown: what waited for the terminal is covered by it.
func (s *attachStream) redraw(gen uint64, snapshot []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen <= s.cur {
		return
	}
	s.cur, s.dropping = gen, false
	s.pending = append(s.pending[:0], snapshot...)
	s.redrawLen = len(snapshot)
	if s.redrawLen == 0 {
		// An empty redraw (a chat that has never run) still counts as one:
		// the writer resets nothing for it.
		s.redrawLen = -1
	}
	kept := s.held[:0]
	s.heldBytes = 0
	for _, h := range s.held {
		switch {
		case h.gen == gen:
			s.pending = append(s.pending, h.data...)
		case h.gen > gen:
			kept = append(kept, h)
			s.heldBytes += len(h.data)
		}
	}
	clear(s.held[len(kept):])
	s.held = kept
	s.poke()
}

// output adds output of generation gen.
func (s *attachStream) output(gen uint64, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case gen < s.cur || (gen == s.cur && s.dropping):
		return
	case gen > s.cur:
		s.held = append(s.held, heldOutput{gen, data})
		s.heldBytes += len(data)
		if s.heldBytes > maxBehind {
			s.held, s.heldBytes = nil, 0
			s.fallBehindLocked()
		}
		return
	}
	if s.writeNowLocked(data) {
		return
	}
	s.pending = append(s.pending, data...)
	if len(s.pending) > maxBehind {
		s.pending, s.redrawLen = nil, 0
		s.fallBehindLocked()
	}
	s.poke()
}

// writeNowLocked writes small output to the terminal at once, from the
// connection's reader, when nothing waits before it and the terminal takes
// it without waiting (writableNow): a key's echo then reaches the screen
// without waking writeTo, which cost a share of its round trip. It reports
// false, and writeTo writes data, otherwise.
func (s *attachStream) writeNowLocked(data []byte) bool {
	if s.term == nil || s.writing || len(s.pending) > 0 || s.redrawLen != 0 || len(data) > attachNowMax || !writableNow(s.term.out) {
		return false
	}
	s.term.Write(data)
	return true
}

// writableNow reports whether the terminal takes output now: it has room
// and is not stopped. A write of a few bytes then returns at once (a
// terminal with less room than that left is one being read; it waits for
// the reader no longer than that).
func writableNow(out *os.File) bool {
	fds := []unix.PollFd{{Fd: int32(out.Fd()), Events: unix.POLLOUT}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n == 1 && fds[0].Revents&unix.POLLOUT != 0
}

// fallBehindLocked drops the output of the generation shown and asks for a
// redraw to start again from.
func (s *attachStream) fallBehindLocked() {
	if s.dropping {
		return
	}
	s.dropping = true
	if s.resync != nil {
		s.resync()
	}
}

// lost records that the connection has ended: what arrived is still
// written.
func (s *attachStream) lost() {
	s.mu.Lock()
	s.gone = true
	s.mu.Unlock()
	s.poke()
}

// writeTo writes the stream to the terminal until the harness's end has
// been written after its output, or the connection ended.
func (s *attachStream) writeTo(t *borrowedTerminal) attachEnd {
	s.mu.Lock()
	s.term = t
	s.mu.Unlock()
	for {
		s.mu.Lock()
		buf, redrawLen := s.pending, s.redrawLen
		s.pending, s.spare, s.redrawLen = s.spare[:0], nil, 0
		s.writing = len(buf) > 0 || redrawLen != 0
		end := s.end
		if end != nil && end.Gen > s.cur {
			end = nil // its generation's redraw has not come yet
		}
		gone := s.gone
		s.mu.Unlock()

		rest := buf
		if redrawLen != 0 {
			n := max(redrawLen, 0)
			t.redraw(rest[:n])
			rest = rest[n:]
		}
		if len(rest) > 0 {
			t.Write(rest)
		}
		s.mu.Lock()
		s.spare = buf[:0]
		s.writing = false
		more := len(s.pending) > 0 || s.redrawLen != 0
		s.mu.Unlock()
		switch {
		case more:
			continue
		case end != nil:
			return endOf(end)
		case gone:
			return attachEnd{err: fmt.Errorf("attach %s: %w", s.id, errServerClosed)}
		}
		<-s.wake
	}
}

// endOf is how attach reports the harness's end: a failure is an error,
// anything else the way it ended.
func endOf(e *proto.ExitedParams) attachEnd {
	if e.Status == "failed" {
		return attachEnd{err: errors.New(e.How)}
	}
	return attachEnd{how: e.How}
}
