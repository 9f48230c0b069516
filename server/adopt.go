package server

import (
	"bytes"
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/acpmux/acpmux-tui/internal/rawio"
	"github.com/acpmux/acpmux-tui/proto"
)

// This file lets a client hand the server its standard input and output:
// `acpmux-tui proxy`, which another host's acpmux-tui runs over ssh. The
// server then reads the connection's lines from the one and writes its
// answers to the other itself, and the proxy, which copied every line
// through its own process (a wake-up each way of every key's round trip),
// only waits for the connection's end. The socket stays open for that
// wait: closing the connection closes it, so the proxy exits as the
// connection ends, also when the server dies.
//
// The hand-over is the connection's first message: proto.AdoptLine with
// the two descriptors (SCM_RIGHTS), standard input first. The server
// answers proto.AdoptedLine on the socket before it reads the descriptors;
// a server that does not know the line answers it as any unknown method
// (the descriptors are closed as the message is read without room for
// them), and the proxy copies as before.

// maxFirstRead bounds the first read of a connection, which looks for the
// hand-over: the rest of what the client sent stays in the socket.
const maxFirstRead = 4 << 10

// stdio is a client's standard input and output, or its terminal's,
// handed over.
type stdio struct {
	in, out *os.File
	read    io.Reader // in, read with bare read(2)s where it can be
}

// close closes both.
func (s *stdio) close() {
	s.in.Close()
	s.out.Close()
}

// nonblocking makes a client's descriptors non-blocking, so that their
// files are read and written through the poller: deadlines hold, and
// closing one ends a read or a write under way.
func nonblocking(fds []int) bool {
	for _, fd := range fds {
		if err := unix.SetNonblock(fd, true); err != nil {
			return false
		}
	}
	return true
}

// adoptable is a client's unix socket, or, once the client handed over its
// standard input and output, those two; the socket is then only held, and
// closed with them.
type adoptable struct {
	*net.UnixConn
	sock io.Reader // the socket, read with bare read(2)s
	io   atomic.Pointer[stdio]
}

func newAdoptable(nc *net.UnixConn) *adoptable {
	return &adoptable{UnixConn: nc, sock: rawio.ReaderOf(nc)}
}

func (a *adoptable) Read(b []byte) (int, error) {
	if s := a.io.Load(); s != nil {
		return s.read.Read(b)
	}
	return a.sock.Read(b)
}

func (a *adoptable) Write(b []byte) (int, error) {
	if s := a.io.Load(); s != nil {
		return s.out.Write(b)
	}
	return a.UnixConn.Write(b)
}

func (a *adoptable) SetReadDeadline(t time.Time) error {
	if s := a.io.Load(); s != nil {
		return s.in.SetReadDeadline(t)
	}
	return a.UnixConn.SetReadDeadline(t)
}

func (a *adoptable) SetWriteDeadline(t time.Time) error {
	if s := a.io.Load(); s != nil {
		return s.out.SetWriteDeadline(t)
	}
	return a.UnixConn.SetWriteDeadline(t)
}

func (a *adoptable) SetDeadline(t time.Time) error {
	if err := a.SetReadDeadline(t); err != nil {
		return err
	}
	return a.SetWriteDeadline(t)
}

// Close closes the socket and what was handed over, which ends a read or
// a write under way.
func (a *adoptable) Close() error {
	if s := a.io.Load(); s != nil {
		s.in.Close()
		s.out.Close()
	}
	return a.UnixConn.Close()
}

// firstMessage reads the connection's first message, and takes the hand-
// over when it is one: it returns what the client sent that is to be read
// as lines (none after a hand-over). A connection that sends nothing
// within its first call's wait is dropped by the timer that waits for it
// (admit.go), which ends this read.
func (c *conn) firstMessage() ([]byte, error) {
	a, ok := c.nc.(*adoptable)
	if !ok || c.hookOnly {
		return nil, nil
	}
	buf := make([]byte, maxFirstRead)
	oob := make([]byte, unix.CmsgSpace(3*4)) // room for the most a hand-over sends
	n, oobn, _, _, err := a.UnixConn.ReadMsgUnix(buf, oob)
	n, oobn = max(n, 0), max(oobn, 0) // -1 with some errors
	fds := rights(oob[:oobn])
	if err == nil && len(fds) == 2 && (lendsTerminal(buf[:n]) || lendsPane(buf[:n])) && c.keepTerminal(fds) {
		return buf[:n], nil // the call reads as any other, and takes the terminal
	}
	if err == nil && len(fds) == 3 {
		if harness, ok := adoptsDoor(buf[:n]); ok && c.adoptDoor(a, fds, harness) {
			return nil, nil
		}
	}
	if err != nil || !bytes.Equal(buf[:n], []byte(proto.AdoptLine)) || len(fds) != 2 || !c.adopt(a, fds) {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return buf[:n], err
	}
	return nil, nil
}

// rights returns the descriptors a message carried (SCM_RIGHTS).
func rights(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		if got, err := unix.ParseUnixRights(&m); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

// adopt serves the connection on the client's standard input and output,
// fds[0] and fds[1], from now on; false leaves it on its socket (the
// descriptors are the caller's to close). It runs before the connection's
// writer and its first call, so nothing else writes meanwhile.
func (c *conn) adopt(a *adoptable, fds []int) bool {
	if !c.firstCall.Stop() {
		return false // the connection is being dropped for its silence
	}
	c.called.Store(true)
	if !nonblocking(fds) {
		return false
	}
	a.UnixConn.SetWriteDeadline(time.Now().Add(c.s.opt.WriteTimeout))
	_, err := a.UnixConn.Write([]byte(proto.AdoptedLine))
	a.UnixConn.SetWriteDeadline(time.Time{})
	if err != nil {
		return false
	}
	// A write that would wait goes to the writer.
	s := &stdio{in: os.NewFile(uintptr(fds[0]), "client stdin"), out: os.NewFile(uintptr(fds[1]), "client stdout")}
	s.read = rawio.ReaderOf(s.in)
	c.raw = rawOf(s.out)
	a.io.Store(s)
	return true
}

// rawOf is the descriptor a connection's lines are written to at once: a
// unix socket's own, or the standard output a client handed over; nil for
// another connection (a WebSocket).
func rawOf(nc any) syscall.RawConn {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}
