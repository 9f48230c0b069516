package mux

import (
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"

	"github.com/acpmux/acpmux-tui/internal/rawio"
)

// rawPty opens a pty whose harness side is raw (no echo, no line editing)
// and whose master is pollable, as a chat's; both close when the test ends.
func rawPty(t *testing.T) (master, tty *os.File) {
	t.Helper()
	blocking, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	if _, err := term.MakeRaw(int(tty.Fd())); err != nil {
		t.Fatal(err)
	}
	if master, err = pollable(blocking); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { master.Close() })
	return master, tty
}

// rawio.Read reads what the harness side wrote, waits on the poller for more
// (a write that comes while it waits is read), honours the read deadline,
// and ends with the error the end of a pty gives (EIO) once the harness
// side closes, as os.File's Read does.
func TestRawReadReadsWaitsAndEnds(t *testing.T) {
	master, tty := rawPty(t)
	rc, err := master.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if n, err := rawio.Read(rc, buf[:0]); n != 0 || err != nil {
		t.Fatalf("an empty read: %d, %v", n, err)
	}

	if _, err := tty.Write([]byte("first")); err != nil {
		t.Fatal(err)
	}
	if n, err := rawio.Read(rc, buf); err != nil || string(buf[:n]) != "first" {
		t.Fatalf("read %q, %v; want \"first\"", buf[:n], err)
	}

	// Nothing to read: it waits on the poller, and a write wakes it.
	got := make(chan string, 1)
	go func() {
		n, err := rawio.Read(rc, buf)
		if err != nil {
			got <- err.Error()
			return
		}
		got <- string(buf[:n])
	}()
	if _, err := tty.Write([]byte("second")); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "second" {
			t.Fatalf("the waiting read got %q, want \"second\"", s)
		}
	case <-time.After(time.Minute):
		t.Fatal("the waiting read did not return within a minute of the write")
	}

	// The deadline ends a wait with nothing to read.
	if err := master.SetReadDeadline(time.Now().Add(10 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if _, err := rawio.Read(rc, buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("past the deadline: %v, want os.ErrDeadlineExceeded", err)
	}
	if err := master.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}

	// The harness side gone: the read ends with EIO.
	tty.Close()
	if _, err := rawio.Read(rc, buf); !errors.Is(err, syscall.EIO) {
		t.Fatalf("after the tty closed: %v, want EIO", err)
	}
}
