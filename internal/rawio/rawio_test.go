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
	if w := WriterOf(a); w != io.Writer(a) {
		t.Error("WriterOf a blocking socket writes it with bare write(2)s")
	}
	var buf bytes.Buffer
	if r := ReaderOf(&buf); r != io.Reader(&buf) {
		t.Error("ReaderOf a buffer is not the buffer")
	}
}

// WriteNow writes what the socket takes and hands back the rest; WriterOf
// writes every Write whole, the rest once the reader makes room.
func TestWritesNowAndWhole(t *testing.T) {
	a, b := socketPair(t, false)
	if err := syscall.SetsockoptInt(int(fdOf(t, a)), syscall.SOL_SOCKET, syscall.SO_SNDBUF, 4096); err != nil {
		t.Fatal(err)
	}
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

	// A Write larger than the socket takes: the rest is written once the
	// reader makes room, and Write returns with all of it written.
	w := WriterOf(a)
	if w == io.Writer(a) {
		t.Fatal("WriterOf a polled socket is the file's own Write")
	}
	got := make(chan []byte, 1)
	go func() {
		all, _ := io.ReadAll(io.LimitReader(b, int64(len(big))))
		got <- all
	}()
	big[len(big)-1] = 'y'
	if n, err := w.Write(big); err != nil || n != len(big) {
		t.Fatalf("Write of 1 MiB: %d, %v", n, err)
	}
	select {
	case all := <-got:
		if !bytes.Equal(all, big) {
			t.Fatalf("the reader got %d bytes, not the 1 MiB written", len(all))
		}
	case <-time.After(time.Minute):
		t.Fatal("the reader did not get the 1 MiB within a minute")
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
