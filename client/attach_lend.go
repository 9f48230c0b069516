package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/acpmux/acpmux-tui/internal/termmodes"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file is `attach` lending the server the terminal itself
// (proto.MethodAttachTerminal), as a tmux client lends its server the
// terminal: the server reads the keys and writes the chat to the terminal,
// and this process only waits, for the end, a resize or a signal. The
// client's own way (Attach) is for a server older than the hand-over, and
// for input or output that is not a terminal.

// ErrNotLent is AttachTerminal's answer when the terminal was not handed
// over: in or out is not a terminal, or the server does not take it. The
// terminal is as it was; Attach shows the chat instead.
var ErrNotLent = errors.New("attach: the terminal was not handed over")

// AttachTerminal shows the chat id of the agent home's server in the
// terminal in/out by handing the terminal to the server, as Attach shows
// it: the harness is started unless it runs, the pty follows the
// terminal's size, and ctrl+] detaches. It returns as Attach does, and
// gives the terminal back as it found it on every way out: the server
// resets the modes the harness set before it tells the end, and this
// process restores the termios and the blocking mode. When the server
// dies under it, the reset it last sent (proto.NotifyModes) is written
// here.
func AttachTerminal(home, id string, in, out *os.File) (how string, err error) {
	inFd, outFd := int(in.Fd()), int(out.Fd())
	if !term.IsTerminal(inFd) || !term.IsTerminal(outFd) {
		return "", ErrNotLent
	}
	cols, rows := terminalSize(outFd)
	fatal, winch, stop := attachSignals()
	defer stop()

	nc, err := DialSocket(home)
	if err != nil {
		return "", err
	}
	saved, err := term.MakeRaw(inFd)
	if err != nil {
		nc.Close()
		return "", ErrNotLent
	}
	var (
		once  sync.Once
		mu    sync.Mutex
		reset = termmodes.New().Reset() // what the server last said gives the terminal back
	)
	restore := func(resetModes bool) {
		once.Do(func() {
			// The server set the terminal non-blocking while it held it;
			// the shell after us reads it blocking.
			_ = unix.SetNonblock(inFd, false)
			_ = unix.SetNonblock(outFd, false)
			if resetModes {
				mu.Lock()
				_, _ = out.Write(reset)
				mu.Unlock()
			}
			_ = term.Restore(inFd, saved)
		})
	}
	defer func() {
		if r := recover(); r != nil {
			restore(true)
			panic(r)
		}
		restore(false)
	}()

	c := newConn(&lendingConn{UnixConn: nc, rights: unix.UnixRights(inFd, outFd)})
	defer c.Close()
	ended := make(chan attachEnd, 1)
	c.OnNotify(func(method string, params json.RawMessage) {
		var e attachEnd
		switch method {
		case proto.NotifyDetached:
			var p proto.DetachParams
			if json.Unmarshal(params, &p) != nil || p.ID != id {
				return
			}
			e.how = "detached"
		case proto.NotifyExited:
			var p proto.ExitedParams
			if json.Unmarshal(params, &p) != nil || p.ID != id {
				return
			}
			e = endOf(&p)
		case proto.NotifyModes:
			var p proto.ModesParams
			if json.Unmarshal(params, &p) == nil && p.ID == id {
				mu.Lock()
				reset = p.Reset
				mu.Unlock()
			}
			return
		default:
			return
		}
		select {
		case ended <- e:
		default:
		}
	})

	first := make(chan error, 1)
	go func() {
		first <- c.Call(context.Background(), proto.MethodAttachTerminal, proto.AttachParams{ID: id, Cols: cols, Rows: rows}, nil)
	}()
	select {
	case err := <-first:
		var rpcErr *RPCError
		if errors.As(err, &rpcErr) && rpcErr.Code == proto.CodeMethodNotFound {
			return "", ErrNotLent
		}
		if err != nil {
			return "", err
		}
	case sig := <-fatal:
		return "", &SignalError{Signal: sig.(syscall.Signal)}
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
		case e := <-ended:
			return e.how, e.err
		case sig := <-fatal:
			// The server gives the terminal back before it answers; one
			// that does not answer leaves it to us.
			if callBounded(c, proto.MethodDetach, proto.DetachParams{ID: id}, nil) != nil {
				restore(true)
			}
			return "", &SignalError{Signal: sig.(syscall.Signal)}
		case <-winch:
			if cols, rows, err := term.GetSize(outFd); err == nil {
				select {
				case <-sizes: // an older size not sent yet: this one replaces it
				default:
				}
				sizes <- [2]int{cols, rows}
			}
		case <-c.Done():
			select {
			case e := <-ended: // told just before the connection ended
				return e.how, e.err
			default:
			}
			restore(true)
			return "", fmt.Errorf("attach %s: %w", id, errServerClosed)
		}
	}
}

// lendingConn is the socket whose first write carries the terminal's
// descriptors with it.
type lendingConn struct {
	*net.UnixConn
	rights []byte // sent with the first write, then nil
}

func (l *lendingConn) Write(b []byte) (int, error) {
	if l.rights == nil {
		return l.UnixConn.Write(b)
	}
	rights := l.rights
	l.rights = nil
	n, _, err := l.UnixConn.WriteMsgUnix(b, rights, nil)
	if err == nil && n < len(b) {
		var m int
		m, err = l.UnixConn.Write(b[n:])
		n += m
	}
	return n, err
}
