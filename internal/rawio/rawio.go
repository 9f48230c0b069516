// Package rawio reads and writes descriptors the Go runtime polls with bare
// system calls: the server reads a key, a line of a client or an agent,
// and writes its echo or answer, on the goroutine that has it, without
// telling the scheduler it enters a system call. The descriptors are
// non-blocking, so no call here ever waits in the kernel: a read with
// nothing to read waits on the poller (honouring the read deadline), and a
// write leaves what does not fit at once to a caller that may wait, or to
// a goroutine of its own (QueueOf).
//
// Telling the scheduler (entersyscall, as os.File and net.Conn do) wakes
// its monitor thread, sysmon, from its sleep whenever every processor was
// idle, that is at each key of a quiet chat: a thread's wake-up and its
// 20 µs sleeps after it, on a machine whose two cores are also running the
// harness and the terminal (perf of the server under scripts/bench
// keys-tui: sysmon was over a quarter of its CPU).
package rawio

import (
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Read reads what the descriptor behind rc holds into b, waiting on the
// runtime's poller while it holds nothing, until rc's read deadline. The
// end of the descriptor is io.EOF; a failed read is an *os.SyscallError
// (a pty whose harness side closed fails with EIO).
func Read(rc syscall.RawConn, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	op := readOps.Get().(*readOp)
	op.b = b
	err := rc.Read(op.fn)
	n, errno := op.n, op.errno
	*op = readOp{fn: op.fn}
	readOps.Put(op)
	switch {
	case err != nil:
		return 0, err // the deadline passed, or the descriptor closed
	case errno != 0:
		return 0, os.NewSyscallError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	ioAcquire()
	return n, nil
}

// readOp is one Read's state, and the function that RawConn.Read calls
// with the descriptor, made once with it: a closure made at each call
// would be an allocation at each key and each line, for the garbage
// collector to come back for.
type readOp struct {
	b     []byte
	n     int
	errno syscall.Errno
	fn    func(fd uintptr) bool
}

var readOps = sync.Pool{New: func() any {
	op := &readOp{}
	op.fn = op.read
	return op
}}

func (op *readOp) read(fd uintptr) bool {
	for {
		r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&op.b[0])), uintptr(len(op.b)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // wait on the poller
		}
		op.n, op.errno = int(r), e
		return true
	}
}

// ReaderOf reads r with Read when r is a non-blocking descriptor the
// runtime polls (an *os.File of a pipe, a pty or a terminal, a
// *net.UnixConn), and with r's own Read otherwise: a bare read(2) of a
// blocking descriptor would hold a processor while it waits.
func ReaderOf(r io.Reader) io.Reader {
	if rc, ok := nonblocking(r); ok {
		return reader{rc}
	}
	return r
}

type reader struct{ rc syscall.RawConn }

func (r reader) Read(b []byte) (int, error) { return Read(r.rc, b) }

// ErrBacklog is a Write refused because what waits to be written would
// pass the queue's limit: the reader has stopped reading.
var ErrBacklog = errors.New("the reader has not taken what was written before: too much waits")

// QueueOf writes to w, a descriptor as ReaderOf takes, and never makes a
// caller wait for the reader: a Write writes what the descriptor takes at
// once (WriteNow) and leaves the rest, and every Write after it until the
// backlog is written, to a goroutine that writes them as the reader makes
// room. Writes reach the reader whole and in the order they were made, so
// lines never interleave. The backlog is bounded: a Write that would take
// it past limit bytes is refused with ErrBacklog and writes nothing (the
// rest of the Write that starts a backlog is always taken, so no Write is
// cut short). A failed write fails the Write that meets it, or the next
// one when the goroutine met it, and every Write after. Any other w is
// returned as it is: a blocking descriptor's Write waits in the kernel.
func QueueOf(w io.Writer, limit int) io.Writer {
	if rc, ok := nonblocking(w); ok {
		return &queue{rc: rc, w: w, limit: limit}
	}
	return w
}

// queue is the writer QueueOf returns.
type queue struct {
	rc    syscall.RawConn
	w     io.Writer // the descriptor's own Write, which waits on the poller
	limit int

	mu       sync.Mutex
	backlog  []byte
	writing  int   // bytes taken from the backlog, being written
	draining bool  // a goroutine writes the backlog
	err      error // the write that failed; every Write after fails so
}

func (q *queue) Write(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		return 0, q.err
	}
	if q.draining {
		if len(q.backlog)+len(b) > q.limit {
			return 0, ErrBacklog
		}
		q.backlog = append(q.backlog, b...)
		return len(b), nil
	}
	rest, err := WriteNow(q.rc, b)
	if err != nil {
		q.err = err
		return len(b) - len(rest), err
	}
	if len(rest) > 0 {
		q.backlog = append(q.backlog, rest...)
		q.draining = true
		go q.drain()
	}
	return len(b), nil
}

// waiting is how many bytes wait to be written: none once all that was
// written is, or a write failed.
func (q *queue) waiting() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.backlog) + q.writing
}

// drain writes the backlog as the reader takes it, waiting on the poller,
// until it is empty or a write fails.
func (q *queue) drain() {
	for {
		q.mu.Lock()
		b := q.backlog
		q.backlog, q.writing = nil, len(b)
		if len(b) == 0 {
			q.draining = false
			q.mu.Unlock()
			return
		}
		q.mu.Unlock()
		// Writes that come meanwhile join the backlog, behind b.
		_, err := q.w.Write(b)
		q.mu.Lock()
		q.writing = 0
		if err != nil {
			q.err, q.backlog, q.draining = err, nil, false
			q.mu.Unlock()
			return
		}
		q.mu.Unlock()
	}
}

// nonblocking is v's raw connection when v has one and its descriptor is
// non-blocking.
func nonblocking(v any) (syscall.RawConn, bool) {
	sc, ok := v.(syscall.Conn)
	if !ok {
		return nil, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, false
	}
	flags := 0
	var ferr error
	if err := rc.Control(func(fd uintptr) { flags, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil || ferr != nil {
		return nil, false
	}
	return rc, flags&unix.O_NONBLOCK != 0
}

// WriteNow writes what the descriptor behind raw takes of b at once and
// returns the rest (all of b when it takes nothing). err is the write's
// error, a syscall.Errno, or raw's own when the descriptor is closed.
func WriteNow(raw syscall.RawConn, b []byte) (rest []byte, err error) {
	ioRelease()
	op := writeOps.Get().(*writeOp)
	op.b = b
	err = raw.Write(op.fn)
	rest, werr := op.b, op.err
	*op = writeOp{fn: op.fn}
	writeOps.Put(op)
	if werr != nil {
		return rest, werr
	}
	return rest, err
}

// writeOp is one WriteNow's state and its function, as readOp is Read's.
type writeOp struct {
	b   []byte
	err error
	fn  func(fd uintptr) bool
}

var writeOps = sync.Pool{New: func() any {
	op := &writeOp{}
	op.fn = op.write
	return op
}}

func (op *writeOp) write(fd uintptr) bool {
	for len(op.b) > 0 {
		r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&op.b[0])), uintptr(len(op.b)))
		if e == syscall.EINTR {
			continue
		}
		if e != 0 && e != syscall.EAGAIN {
			op.err = e
		}
		if e != 0 || r == 0 {
			break
		}
		op.b = op.b[r:]
	}
	return true // done: never wait for the descriptor here
}
