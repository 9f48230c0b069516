package client

import (
	"bufio"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestGoHearsEachAnswerThenTheEnd: a call made with Go returns once its
// line is written; its done hears the server's answer (nil, or the error
// it sent) on the reader, and a call still unanswered when the
// connection ends hears why it ended.
func TestGoHearsEachAnswerThenTheEnd(t *testing.T) {
	ours, theirs := net.Pipe()
	c := newConn(ours)
	defer c.Close()
	lines := bufio.NewReader(theirs)
	results := make(chan error, 3)
	done := func(err error) { results <- err }

	// net.Pipe has no buffer: the server's side reads each line as Go
	// writes it.
	read := func() string {
		t.Helper()
		theirs.SetReadDeadline(time.Now().Add(10 * time.Second))
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("read the call's line: %v", err)
		}
		return line
	}
	sent := make(chan error, 1)
	go func() { sent <- c.Go(proto.MethodWrite, proto.WriteParams{ID: "c1", Data: []byte("a")}, done) }()
	first := read()
	if err := <-sent; err != nil {
		t.Fatalf("Go: %v", err)
	}
	if !strings.Contains(first, `"id":1`) || !strings.Contains(first, proto.MethodWrite) {
		t.Fatalf("first line %q: want call 1 of %s", first, proto.MethodWrite)
	}
	go func() { sent <- c.Go(proto.MethodWrite, proto.WriteParams{ID: "c1", Data: []byte("b")}, done) }()
	second := read()
	if err := <-sent; err != nil {
		t.Fatalf("Go: %v", err)
	}
	if !strings.Contains(second, `"id":2`) {
		t.Fatalf("second line %q: want call 2", second)
	}
	go func() { sent <- c.Go(proto.MethodWrite, proto.WriteParams{ID: "c1", Data: []byte("c")}, done) }()
	read()
	if err := <-sent; err != nil {
		t.Fatalf("Go: %v", err)
	}

	answer := func(s string) {
		theirs.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if _, err := theirs.Write([]byte(s + "\n")); err != nil {
			t.Fatalf("answer: %v", err)
		}
	}
	hear := func(what string) error {
		t.Helper()
		select {
		case err := <-results:
			return err
		case <-time.After(10 * time.Second):
			t.Fatalf("no done for %s within 10s", what)
			return nil
		}
	}
	answer(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	if err := hear("the answer to call 1"); err != nil {
		t.Fatalf("call 1 answered with success: done heard %v", err)
	}
	answer(`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"no such chat"}}`)
	var rpc *RPCError
	if err := hear("the error answer to call 2"); !errors.As(err, &rpc) || rpc.Message != "no such chat" {
		t.Fatalf("call 2 answered with an error: done heard %v, want the RPC error", err)
	}
	theirs.Close()
	if err := hear("call 3 at the connection's end"); err == nil || !strings.Contains(err.Error(), proto.MethodWrite) {
		t.Fatalf("call 3 unanswered at the end: done heard %v, want an error naming the method", err)
	}
	if err := c.Go(proto.MethodWrite, proto.WriteParams{ID: "c1"}, done); err == nil {
		t.Fatal("Go after the end: no error")
	}
}
