package rawio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
)

// socketPair is a connected pair of unix stream sockets as files, both
// non-blocking (so the runtime polls them) unless blocking is set.
func socketPair(t *testing.T, blocking bool) (a, b *os.File) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		if err := syscall.SetNonblock(fd, !blocking); err != nil {
			t.Fatal(err)
		}
	}
	a, b = os.NewFile(uintptr(fds[0]), "a"), os.NewFile(uintptr(fds[1]), "b")
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// A read through ReaderOf reads what is there, waits on the poller for
// more (a write while it waits wakes it), honours the read deadline, and
// ends with io.EOF once the other side closes.
func TestReaderReadsWaitsAndEnds(t *testing.T) {
	a, b := socketPair(t, false)
	r := ReaderOf(a)
	if r == io.Reader(a) {
		t.Fatal("ReaderOf a polled socket is the file's own Read")
	}
	buf := make([]byte, 64)
	if _, err := b.Write([]byte("first")); err != nil {
		t.Fatal(err)
	}
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "first" {
		t.Fatalf("read %q, %v; want \"first\"", buf[:n], err)
	}
	got := make(chan string, 1)
	go func() {
		n, err := r.Read(buf)
		got <- fmt.Sprintf("%s %v", buf[:n], err)
	}()
	if _, err := b.Write([]byte("second")); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "second <nil>" {
			t.Fatalf("the waiting read got %q, want \"second <nil>\"", s)
		}
	case <-time.After(time.Minute):
		t.Fatal("the waiting read did not return within a minute of the write")
	}
	if err := a.SetReadDeadline(time.Now().Add(10 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("past the deadline: %v, want os.ErrDeadlineExceeded", err)
	}
	if err := a.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if _, err := r.Read(buf); err != io.EOF {
		t.Fatalf("after the other side closed: %v, want io.EOF", err)
	}
}

// A blocking descriptor is read and written with the file's own calls: a
// bare read(2) of it would hold a processor while it waits.
func TestBlockingDescriptorsKeepTheirOwnCalls(t *testing.T) {
	a, _ := socketPair(t, true)
	if r := ReaderOf(a); r != io.Reader(a) {
		t.Error("ReaderOf a blocking socket reads it with bare read(2)s")
	}
	if w := QueueOf(a, 1<<20); w != io.Writer(a) {
		t.Error("QueueOf a blocking socket writes it with bare write(2)s")
	}
	var buf bytes.Buffer
	if r := ReaderOf(&buf); r != io.Reader(&buf) {
		t.Error("ReaderOf a buffer is not the buffer")
	}
}

// WriteNow writes what the socket takes and hands back the rest.
func TestWriteNowWritesWhatFits(t *testing.T) {
	a, b := smallSocketPair(t)
	rc, err := a.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("x"), 1<<20)
	rest, err := WriteNow(rc, big)
	if err != nil || len(rest) == 0 || len(rest) == len(big) {
		t.Fatalf("WriteNow of 1 MiB into a small socket: %d left, %v; want some written, some left", len(rest), err)
	}
	if _, err := io.ReadFull(b, make([]byte, len(big)-len(rest))); err != nil {
		t.Fatal(err)
	}
}

// A queue never makes its caller wait for a reader that does not read:
// what does not fit waits, in order, with every Write after it, up to the
// limit; the reader then gets every byte in the order written, and once
// nothing waits a Write goes straight to the socket again.
func TestQueueNeverWaitsForTheReader(t *testing.T) {
	a, b := smallSocketPair(t)
	const limit = 1 << 20
	q := queueOf(t, a, limit)
	big := bytes.Repeat([]byte("x"), 1<<20)
	big[len(big)-1] = 'y'
	var want []byte
	for _, w := range [][]byte{big, []byte("a\n"), []byte("b\n")} {
		mustWriteAtOnce(t, q, w)
		want = append(want, w...)
	}
	if n, err := q.Write(make([]byte, limit)); !errors.Is(err, ErrBacklog) || n != 0 {
		t.Fatalf("a Write past the limit: %d, %v; want 0, ErrBacklog", n, err)
	}
	got := make([]byte, len(want))
	if _, err := io.ReadFull(b, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the reader got %d bytes that are not the %d written, in order", len(got), len(want))
	}
	wait.Until(t, "the queue to have written all that waited", func() bool { return q.waiting() == 0 })
	mustWriteAtOnce(t, q, []byte("c\n"))
	line := make([]byte, 2)
	if _, err := io.ReadFull(b, line); err != nil || string(line) != "c\n" {
		t.Fatalf("after the queue emptied: read %q, %v", line, err)
	}
}

// A reader that goes away fails the Write that meets it, or, when the
// queue's goroutine met it, the next Write; and every Write after.
func TestQueueFailsOnceTheReaderIsGone(t *testing.T) {
	a, b := smallSocketPair(t)
	q := queueOf(t, a, 1<<20)
	mustWriteAtOnce(t, q, bytes.Repeat([]byte("x"), 1<<20))
	b.Close()
	wait.Until(t, "the queue's goroutine to meet the closed reader", func() bool { return q.waiting() == 0 })
	for i := range 2 {
		if _, err := q.Write([]byte("late\n")); !errors.Is(err, syscall.EPIPE) {
			t.Fatalf("Write %d after the reader closed: %v, want EPIPE", i+1, err)
		}
	}

	a, b = smallSocketPair(t)
	q = queueOf(t, a, 1<<20)
	b.Close()
	if _, err := q.Write([]byte("first\n")); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("a Write to a closed reader: %v, want EPIPE", err)
	}
}

// smallSocketPair is socketPair, polled, with a's send buffer as small as
// the kernel allows, so a large Write does not fit.
func smallSocketPair(t *testing.T) (a, b *os.File) {
	a, b = socketPair(t, false)
	if err := syscall.SetsockoptInt(int(fdOf(t, a)), syscall.SOL_SOCKET, syscall.SO_SNDBUF, 4096); err != nil {
		t.Fatal(err)
	}
	return a, b
}

func queueOf(t *testing.T, f *os.File, limit int) *queue {
	q, ok := QueueOf(f, limit).(*queue)
	if !ok {
		t.Fatal("QueueOf a polled socket is the file's own Write")
	}
	return q
}

// mustWriteAtOnce writes b, failing when the Write fails or waits (for a
// reader that is not reading, a wait would never end).
func mustWriteAtOnce(t *testing.T, q *queue, b []byte) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		n, err := q.Write(b)
		if err == nil && n != len(b) {
			err = fmt.Errorf("wrote %d of %d bytes", n, len(b))
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Write of %d bytes: %v", len(b), err)
		}
	case <-time.After(time.Minute):
		t.Fatalf("a Write of %d bytes waited a minute for a reader that does not read", len(b))
	}
}

func fdOf(t *testing.T, f *os.File) uintptr {
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var fd uintptr
	rc.Control(func(d uintptr) { fd = d })
	return fd
}

// TestReadsAndWritesAllocateNothing: a key's read and its echo's write
// leave nothing for the garbage collector.
func TestReadsAndWritesAllocateNothing(t *testing.T) {
	a, b := socketPair(t, false)
	ra, err := a.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	rb, err := b.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	key := []byte("k")
	allocs := testing.AllocsPerRun(200, func() {
		if rest, err := WriteNow(ra, key); err != nil || len(rest) != 0 {
			t.Fatalf("write: %q left, %v", rest, err)
		}
		if n, err := Read(rb, buf); err != nil || n != 1 {
			t.Fatalf("read: %d, %v", n, err)
		}
	})
	if allocs != 0 && !raceEnabled {
		t.Fatalf("a write and a read allocate %.1f times", allocs)
	}
}
