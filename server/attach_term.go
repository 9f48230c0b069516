package server

import (
	"bytes"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acpmux/acpmux-tui/internal/rawio"
	"github.com/acpmux/acpmux-tui/internal/termmodes"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file lends a chat a client's terminal (proto.MethodAttachTerminal),
// as tmux's server is lent its clients' terminals: the attachment writes
// the harness's output to the terminal and reads its keys itself, so a
// key's way to the harness and its echo's way back wake no client process
// (each such wake-up cost a share of the round trip, most over ssh, where
// `ssh -t HOST acpmux-tui attach ID` is then built as tmux's is).
//
// The client sends the call as its connection's first message with the
// terminal's input and output (SCM_RIGHTS), raw already. The attachment
// draws and writes as the client's attach would (attachStream and
// borrowedTerminal there): the modes the harness sets are followed, and
// reset before the terminal is given back, on every way the attachment
// ends; the client then restores the termios and the blocking mode.

// giveBackWait bounds the write of the reset when the terminal is given
// back: a terminal that is stopped (ctrl+s) or gone does not hold the end.
const giveBackWait = time.Second

// lentTerminal is a terminal a client handed over to an attachment. Its
// writes are the attachment's sends: one at a time (the mux's reader
// under the attachment's lock, or its flusher while sending).
type lentTerminal struct {
	in, out *os.File
	outFd   int // out's descriptor, polled without asking out for it (Fd would make it blocking)
	// spare is a copy of in's descriptor that the poller does not hold:
	// once the keys' reader has ended, it makes the terminal blocking
	// again, for the shell after us even when the client died first.
	spare      int
	readerDone chan struct{} // closed when readKeys ends; nil before it runs
	inReader   atomic.Bool   // giveBack runs on readKeys' own goroutine
	modes      *termmodes.Modes
	drawn      bool // something has been written since the terminal was lent
	once       sync.Once
	// told is the modes' version the client was last told of (NotifyModes),
	// and reset what it was told; the flusher's, under the attachment's lock.
	told  uint64
	reset []byte
}

// lendsTerminal reports whether a connection's first message is the call
// that hands over a terminal.
func lendsTerminal(first []byte) bool {
	req, ok, rpcErr := DecodeLine(first)
	return ok && rpcErr == nil && req.Method == proto.MethodAttachTerminal && bytes.Count(first, []byte("\n")) == 1
}

// keepTerminal keeps the terminal a connection's first message handed
// over, fds[0] its input and fds[1] its output, for the call to take;
// false leaves the descriptors to the caller.
func (c *conn) keepTerminal(fds []int) bool {
	if !nonblocking(fds) {
		return false
	}
	c.terminal.Store(&stdio{in: os.NewFile(uintptr(fds[0]), "terminal in"), out: os.NewFile(uintptr(fds[1]), "terminal out")})
	return true
}

// attachTerminal serves MethodAttachTerminal.
func (s *Server) attachTerminal(c *conn, p proto.AttachParams) (struct{}, *Error) {
	t := c.terminal.Swap(nil)
	if t == nil {
		return struct{}{}, errorf(proto.CodeInvalidParams, "Invalid params: no terminal came with the connection's first message")
	}
	if err := checkAttach(p); err != nil || p.Resync {
		t.close()
		if err == nil {
			err = errorf(proto.CodeInvalidParams, "Invalid params: resync is for %s", proto.MethodAttach)
		}
		return struct{}{}, err
	}
	fd, err := fdOf(t.out)
	if err != nil {
		t.close()
		return struct{}{}, failure(err)
	}
	inFd, err := fdOf(t.in)
	if err != nil {
		t.close()
		return struct{}{}, failure(err)
	}
	spare, err := unix.Dup(inFd)
	if err != nil {
		t.close()
		return struct{}{}, failure(err)
	}
	unix.CloseOnExec(spare)
	a := newAttachment(s, c, p.ID, p.Cols, p.Rows)
	modes := termmodes.New()
	a.term = &lentTerminal{in: t.in, out: t.out, outFd: fd, spare: spare, modes: modes, reset: modes.Reset()}
	if err := s.startAttachment(a); err != nil {
		a.giveBack()
		return struct{}{}, err
	}
	a.term.readerDone = make(chan struct{})
	go a.readKeys()
	a.mu.Lock()
	a.holding = false // the flusher draws the first redraw
	a.mu.Unlock()
	a.poke()
	return struct{}{}, nil
}

// fdOf is f's descriptor, read without making f blocking.
func fdOf(f *os.File) (int, error) {
	raw, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	err = raw.Control(func(d uintptr) { fd = int(d) })
	return fd, err
}

// write writes harness output to the terminal, following its modes.
func (t *lentTerminal) write(p []byte) {
	t.drawn = t.drawn || len(p) > 0
	t.modes.Scan(p)
	_, _ = t.out.Write(p)
}

// redraw draws a snapshot of the chat's screen: on a terminal that shows
// an earlier state of the chat, the modes that state set are reset first,
// as the client's attach does (borrowedTerminal.redraw).
func (t *lentTerminal) redraw(snapshot []byte) {
	lead := termmodes.SaveTitles
	if t.drawn {
		lead = string(t.modes.Reset()) + termmodes.SaveTitles
		t.modes = termmodes.New()
	}
	t.drawn = true
	t.modes.Scan(snapshot)
	_, _ = t.out.Write(append([]byte(lead), snapshot...))
}

// writeNow writes small output at once when the terminal takes it without
// waiting: it has room, and is not stopped.
func (t *lentTerminal) writeNow(p []byte) bool {
	fds := []unix.PollFd{{Fd: int32(t.outFd), Events: unix.POLLOUT}}
	if n, err := unix.Poll(fds, 0); err != nil || n != 1 || fds[0].Revents&unix.POLLOUT == 0 {
		return false
	}
	t.write(p)
	return true
}

// modesToTellLocked returns the reset the client is to be told of, when
// the modes changed it since it was last told; a.mu is held and the flusher
// is not sending.
func (t *lentTerminal) modesToTellLocked() []byte {
	if v := t.modes.Version(); v != t.told {
		t.told = v
		if r := t.modes.Reset(); !bytes.Equal(r, t.reset) {
			t.reset = r
			return r
		}
	}
	return nil
}

// giveBack ends what the attachment writes to its terminal, resets the
// modes the harness set and lets go of the terminal; only the first call
// does anything. The flusher has ended, or is the caller.
func (a *attachment) giveBack() {
	t := a.term
	t.once.Do(func() {
		a.mu.Lock()
		a.closed = true // the mux's reader writes nothing more
		a.mu.Unlock()
		if t.drawn {
			t.out.SetWriteDeadline(time.Now().Add(giveBackWait))
			_, _ = t.out.Write(t.modes.Reset())
		}
		(&stdio{in: t.in, out: t.out}).close()
		// Blocking again only once nothing of ours reads it: a blocking
		// read under way would take the shell's next line.
		if t.readerDone != nil && !t.inReader.Load() {
			<-t.readerDone
		}
		_ = unix.SetNonblock(t.spare, false)
		unix.Close(t.spare)
	})
}

// readKeys sends what is typed on the terminal to the harness until the
// detach key, or until the terminal ends (hung up, or given back).
func (a *attachment) readKeys() {
	defer close(a.term.readerDone)
	buf := make([]byte, 4096)
	in := rawio.ReaderOf(a.term.in)
	for {
		n, err := in.Read(buf)
		chunk := buf[:max(n, 0)]
		i := bytes.IndexByte(chunk, proto.DetachKey)
		if i >= 0 {
			chunk = chunk[:i]
		}
		if len(chunk) > 0 {
			_ = a.s.typed(a, chunk)
		}
		if i >= 0 || err != nil {
			if a.c.attached.remove(a) {
				a.term.inReader.Store(true)
				a.close()
				a.c.notify(proto.NotifyDetached, proto.DetachParams{ID: a.id})
				a.s.opt.Logger.Info("client detached", "chat", a.id, "how", "terminal")
			}
			return
		}
	}
}
