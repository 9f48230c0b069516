package server

import (
	"bufio"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/unixpair"
)

// TestLinesGoOutAtOnceAndInOrder: a line sent while nothing waits goes out
// before send returns; one sent while another is being written waits its
// turn in the queue, and so does every line after it until the queue is
// empty; and lines keep going out at once long after a queued write's
// deadline has passed.
func TestLinesGoOutAtOnceAndInOrder(t *testing.T) {
	ours, theirs := unixpair.New(t)
	s := &Server{opt: Options{WriteTimeout: 20 * time.Millisecond, QueueLen: 8, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	c := newConn(s, ours)
	wrote := make(chan struct{})
	go func() { defer close(wrote); c.writeLoop() }()
	defer func() { close(c.out); <-wrote }()
	peer := bufio.NewReader(theirs)
	read := func(want string) {
		t.Helper()
		theirs.SetReadDeadline(time.Now().Add(time.Minute))
		line, err := peer.ReadString('\n')
		if err != nil || line != want {
			t.Fatalf("read %q, %v; want %q", line, err, want)
		}
	}

	if n := c.send([]byte("first\n")); n == 0 || !c.sent(n) {
		t.Fatalf("a line with nothing before it was not written at once (line %d)", n)
	}
	read("first\n")

	c.wmu.Lock() // as the writer does while it writes
	one := c.send([]byte("one\n"))
	c.wmu.Unlock()
	two := c.send([]byte("two\n"))
	if one == 0 || two == 0 {
		t.Fatal("lines were not sent")
	}
	read("one\n")
	read("two\n")

	// Past the queued write's deadline, a line still goes out at once.
	for begin := time.Now(); time.Since(begin) < 3*s.opt.WriteTimeout; {
		n := c.send([]byte("tick\n"))
		if n == 0 {
			t.Fatal("the client was dropped")
		}
		read("tick\n")
	}
	if c.dropped.Load() {
		t.Fatal("the client was dropped")
	}
}
