package web

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/wsclient"
)

// expectLine fails the test unless Serve read want next.
func (r *rig) expectLine(want string) {
	r.t.Helper()
	select {
	case got := <-r.lines:
		if string(got) != want {
			r.t.Fatalf("Serve read %q, want %q", got, want)
		}
	case <-time.After(hang):
		r.t.Fatalf("waited %v for Serve to read %q", hang, want)
	}
}

func expectMessage(t *testing.T, c *wsclient.Conn, want string) {
	t.Helper()
	got, err := c.Recv(soon())
	if err != nil || string(got) != want {
		t.Fatalf("waiting for the message %q: got %q, %v", want, got, err)
	}
}

func TestLinesAndFrames(t *testing.T) {
	r := newRig(t, nil)
	c := r.mustDial(r.bearer())
	conn := r.expectServed()
	if conn.RemoteAddr().String() != c.LocalAddr().String() {
		t.Fatalf("RemoteAddr %v, want the client's TCP address %v", conn.RemoteAddr(), c.LocalAddr())
	}
	if conn.LocalAddr().String() != r.ln.Addr() {
		t.Fatalf("LocalAddr %v, want the listener's address %v", conn.LocalAddr(), r.ln.Addr())
	}

	roundTrip(t, c, `{"jsonrpc":"2.0","id":1,"method":"echo"}`)
	r.expectLine(`{"jsonrpc":"2.0","id":1,"method":"echo"}` + "\n")

	// A pretty-printed object arrives as one compact line.
	c.SendText("{\n  \"jsonrpc\": \"2.0\",\r\n  \"id\": 2,\n  \"params\": {\"text\": \"a b\\nc\"}\n}\n")
	r.expectLine(`{"jsonrpc":"2.0","id":2,"params":{"text":"a b\nc"}}` + "\n")
	expectMessage(t, c, `{"jsonrpc":"2.0","id":2,"params":{"text":"a b\nc"}}`)

	// What is not JSON stays one line, for the server to answer -32700.
	c.SendText("not json\r\n{\"id\":3}")
	r.expectLine("not json  {\"id\":3}\n")
	expectMessage(t, c, "not json  {\"id\":3}")

	// Two lines in one Write go out as two frames.
	c.SendText(`{"double":true}`)
	r.expectLine(`{"double":true}` + "\n")
	expectMessage(t, c, `{"double":true}`)
	expectMessage(t, c, `{"double":true}`)

	// A message in fragments is one line.
	c.SendFrame(wsclient.OpText, []byte(`{"id":`), false)
	c.SendFrame(wsclient.OpContinuation, []byte(`4}`), true)
	r.expectLine(`{"id":4}` + "\n")
	expectMessage(t, c, `{"id":4}`)

	// Lines written in pieces go out whole; invalid UTF-8 is mended.
	if _, err := conn.Write([]byte(`{"id":`)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte("5,\"x\":\"\xff\"}\n")); err != nil {
		t.Fatal(err)
	}
	expectMessage(t, c, "{\"id\":5,\"x\":\"\uFFFD\"}")

	// A client that closes is io.EOF to Serve.
	c.Close()
	if err := r.expectEnded("the client closed"); !errors.Is(err, io.EOF) {
		t.Fatalf("Serve's Read ended with %v, want io.EOF", err)
	}
}

func TestBinaryFrameCloses(t *testing.T) {
	r := newRig(t, nil)
	c := r.mustDial(r.bearer())
	c.SendFrame(wsclient.OpBinary, []byte(`{"id":1}`), true)
	_, err := c.Recv(soon())
	var ce *wsclient.CloseError
	if !errors.As(err, &ce) || ce.Code != 1003 {
		t.Fatalf("waiting for a close with 1003 (unsupported data) after a binary frame: got %v", err)
	}
	if err := r.expectEnded("a binary frame"); err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("Serve's Read ended with %v, want an error", err)
	}
}

func TestMessageOverTheLimit(t *testing.T) {
	r := newRig(t, func(o *Options) { o.MaxMessage = 1024 })
	big := r.mustDial(r.bearer())
	other := r.mustDial(r.bearer())
	roundTrip(t, big, `"`+strings.Repeat("x", 1022)+`"`) // exactly the limit
	big.SendText(`"` + strings.Repeat("x", 1023) + `"`)
	_, err := big.Recv(soon())
	var ce *wsclient.CloseError
	if !errors.As(err, &ce) || ce.Code != 1009 {
		t.Fatalf("waiting for a close with 1009 (message too big): got %v", err)
	}
	if err := r.expectEnded("a message over the limit"); err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("Serve's Read ended with %v, want an error", err)
	}
	roundTrip(t, other, `{"still":"here"}`)
	late := r.mustDial(r.bearer())
	roundTrip(t, late, `{"new":"one"}`)
}

// TestReadDeadline checks that a read deadline already past interrupts a
// Read that waits, and that the connection still writes and reads after.
func TestReadDeadline(t *testing.T) {
	readErr := make(chan error, 1)
	served := make(chan net.Conn, 1)
	r := newRig(t, func(o *Options) {
		o.Serve = func(c net.Conn) {
			served <- c
			buf := make([]byte, 256)
			_, err := c.Read(buf)
			readErr <- err
			c.SetReadDeadline(time.Time{})
			c.Write([]byte("{\"after\":\"deadline\"}\n"))
			n, err := c.Read(buf)
			if err == nil {
				c.Write(buf[:n])
			}
		}
	})
	c := r.mustDial(r.bearer())
	var conn net.Conn
	select {
	case conn = <-served:
	case <-time.After(hang):
		t.Fatalf("waited %v for Serve to be given the connection", hang)
	}
	conn.SetReadDeadline(time.Now())
	select {
	case err := <-readErr:
		var ne net.Error
		if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("the Read ended with %v, want a timeout", err)
		}
	case <-time.After(hang):
		t.Fatalf("waited %v for a Read to end after its deadline was set to now", hang)
	}
	expectMessage(t, c, `{"after":"deadline"}`)
	roundTrip(t, c, `{"read":"again"}`)
}

// TestWriteDeadline checks a write deadline past fails the Write at once,
// and a write to a client that reads nothing fails by its deadline.
func TestWriteDeadline(t *testing.T) {
	wrote := make(chan error, 2)
	r := newRig(t, func(o *Options) {
		o.Serve = func(c net.Conn) {
			c.SetWriteDeadline(time.Now().Add(-time.Second))
			_, err := c.Write([]byte("{}\n"))
			wrote <- err
			line := append(bytes.Repeat([]byte("x"), 1<<20), '\n')
			c.SetWriteDeadline(time.Now().Add(200 * time.Millisecond))
			for range 1000 { // 1 GiB: far past what loopback buffers hold
				if _, err = c.Write(line); err != nil {
					break
				}
			}
			wrote <- err
		}
	})
	r.mustDial(r.bearer()) // and never read
	for _, what := range []string{"a write past its deadline", "a write to a client that reads nothing"} {
		select {
		case err := <-wrote:
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("%s: %v, want the deadline exceeded", what, err)
			}
		case <-time.After(hang):
			t.Fatalf("waited %v for %s to fail", hang, what)
		}
	}
}

// TestListenerCloseEndsConns checks that Close ends every connection the
// listener handed out: each Serve's Read fails, each client gets a
// normal close, and Close returns once the Serves have.
func TestListenerCloseEndsConns(t *testing.T) {
	r := newRig(t, nil)
	var clients []*wsclient.Conn
	for range 3 {
		c := r.mustDial(r.bearer())
		roundTrip(t, c, `{"hello":1}`)
		clients = append(clients, c)
	}
	closes := make(chan error, len(clients))
	for _, c := range clients {
		go func() {
			_, err := c.Recv(soon())
			closes <- err
		}()
	}
	closed := make(chan error, 1)
	go func() { closed <- r.ln.Close() }()
	for range clients {
		if err := r.expectEnded("the listener closed"); err == nil {
			t.Fatalf("a Serve's Read ended without an error")
		}
	}
	for range clients {
		select {
		case err := <-closes:
			var ce *wsclient.CloseError
			if !errors.As(err, &ce) || ce.Code != 1000 {
				t.Fatalf("a client got %v, want a normal close (1000)", err)
			}
		case <-time.After(hang):
			t.Fatalf("waited %v for the clients' close frames", hang)
		}
	}
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(hang):
		t.Fatalf("waited %v for Close to return", hang)
	}
	if _, _, err := r.dial(r.bearer()); err == nil {
		t.Fatalf("a dial after Close got through")
	}
	if err := r.ln.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
}

// TestConnCloseTwice checks Close may be called twice, from Serve and from
// another goroutine, and that Read and Write fail after it.
func TestConnCloseTwice(t *testing.T) {
	r := newRig(t, nil)
	c := r.mustDial(r.bearer())
	conn := r.expectServed()
	conn.Close()
	conn.Close()
	if _, err := conn.Write([]byte("{}\n")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Write after Close: %v, want net.ErrClosed", err)
	}
	if err := r.expectEnded("the conn was closed"); err == nil {
		t.Fatalf("Serve's Read ended without an error")
	}
	_, err := c.Recv(soon())
	var ce *wsclient.CloseError
	if !errors.As(err, &ce) || ce.Code != 1000 {
		t.Fatalf("waiting for a normal close (1000): got %v", err)
	}
}

// shortTimeouts make the listener's waits short enough for a test to see
// them act.
func shortTimeouts() timeouts {
	return timeouts{readHeader: 100 * time.Millisecond, read: 100 * time.Millisecond, idle: 100 * time.Millisecond, closeGrace: 100 * time.Millisecond}
}

// TestWebSocketOutlivesReadTimeout checks the read deadline the HTTP
// server set for the upgrade request (ReadTimeout) does not stay on the
// WebSocket, while a connection that sends no request is still closed by
// ReadHeaderTimeout.
func TestWebSocketOutlivesReadTimeout(t *testing.T) {
	tmo := shortTimeouts()
	r := newRigTimeouts(t, tmo, nil)
	c := r.mustDial(r.bearer())
	silent, err := net.Dial("tcp", r.ln.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	expectClosedByServer(t, silent, soon(), "a connection that sent no request, after ReadHeaderTimeout")
	// Idle well past every timeout: Recv waits out its own deadline.
	if got, err := c.Recv(time.Now().Add(5 * tmo.read)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("an idle WebSocket got %q, %v; want nothing until the client's deadline", got, err)
	}
	roundTrip(t, c, `{"after":"idling"}`)
}

// TestListenerCloseForcesAHungHandshake checks Close does not wait on a
// client that never answers the close frame: past the grace its TCP
// connection is closed.
func TestListenerCloseForcesAHungHandshake(t *testing.T) {
	r := newRigTimeouts(t, shortTimeouts(), nil)
	c := r.mustDial(r.bearer()) // and never read again
	roundTrip(t, c, `{"then":"silence"}`)
	closed := make(chan error, 1)
	go func() { closed <- r.ln.Close() }()
	select {
	case <-closed:
	case <-time.After(hang):
		t.Fatalf("waited %v for Close to give up on a client that does not answer its close", hang)
	}
	if err := r.expectEnded("the listener closed"); err == nil {
		t.Fatalf("Serve's Read ended without an error")
	}
	if !strings.Contains(r.logs.String(), "did not end in time") {
		t.Fatalf("Close did not say it forced the connection; log:\n%s", r.logs.String())
	}
}

// TestCloseCutsAHungWrite checks Close ends a Write that waits on a client
// that stopped reading, with no write deadline set: the client reads the
// header of a 64 MiB message, far past what loopback buffers hold, and no
// more. The Write goes on for writeCloseGrace after Close, then is cut.
func TestCloseCutsAHungWrite(t *testing.T) {
	writing := make(chan net.Conn, 1)
	wrote := make(chan error, 1)
	r := newRig(t, func(o *Options) {
		o.Serve = func(c net.Conn) {
			line := append(bytes.Repeat([]byte("x"), 64<<20), '\n')
			writing <- c
			_, err := c.Write(line)
			wrote <- err
		}
	})
	client := r.mustDial(r.bearer())
	var c net.Conn
	select {
	case c = <-writing:
	case <-time.After(hang):
		t.Fatalf("waited %v for Serve to start writing", hang)
	}
	if op, n, err := client.RecvHeader(soon()); err != nil || op != wsclient.OpText || n != 64<<20 {
		t.Fatalf("waiting for the header of the 64 MiB message: op %d, length %d, %v", op, n, err)
	}
	closedAt := time.Now()
	c.Close()
	select {
	case err := <-wrote:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("the Write ended with %v, want net.ErrClosed", err)
		}
		if took := time.Since(closedAt); took < writeCloseGrace {
			t.Fatalf("the Write ended %v after Close, before the grace a write under way gets (%v)", took, writeCloseGrace)
		}
	case <-time.After(hang):
		t.Fatalf("waited %v for Close to end a Write to a client that reads nothing", hang)
	}
}
