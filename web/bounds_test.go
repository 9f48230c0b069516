package web

import (
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/internal/testharness/wsclient"
)

// waitFor waits for cond (see wait.Until).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	wait.Until(t, what, cond)
}

// expectClosedByServer fails the test unless the server closes nc before
// deadline (a read ends with EOF or a reset, not the deadline).
func expectClosedByServer(t *testing.T, nc net.Conn, deadline time.Time, what string) {
	t.Helper()
	nc.SetReadDeadline(deadline)
	_, err := nc.Read(make([]byte, 1))
	if err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("waited for the server to close %s: read gave %v", what, err)
	}
}

// TestFloodFromOneAddress opens 300 connections from 127.0.0.2: the first
// MaxPerAddr are WebSockets that keep working, the rest are closed at
// accept, and a client from 127.0.0.1 still gets its upgrade and echo.
func TestFloodFromOneAddress(t *testing.T) {
	r := newRig(t, nil)
	started := time.Now()
	var held []*wsclient.Conn
	for i := range defaultMaxPerAddr {
		c, ref, err := wsclient.DialFrom("127.0.0.2", r.ln.Addr(), "/acp", r.bearer(), r.host())
		if err != nil || ref != nil {
			t.Fatalf("WebSocket %d from 127.0.0.2: refused %v, err %v", i, ref, err)
		}
		defer c.Close()
		held = append(held, c)
	}
	from2 := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}, Timeout: hang}
	var extra []net.Conn
	for i := range 300 - defaultMaxPerAddr {
		nc, err := from2.Dial("tcp", r.ln.Addr())
		if err != nil {
			t.Fatalf("connection %d from 127.0.0.2: %v", defaultMaxPerAddr+i, err)
		}
		defer nc.Close()
		extra = append(extra, nc)
	}

	c := r.mustDial(r.bearer())
	roundTrip(t, c, `{"from":"127.0.0.1"}`)

	// Closed at accept, not by the header timeout an idle connection
	// would meet: all of them well within it.
	before := time.Now().Add(defaultTimeouts().readHeader / 2)
	for i, nc := range extra {
		expectClosedByServer(t, nc, before, "a connection from 127.0.0.2 past MaxPerAddr (number "+strconv.Itoa(defaultMaxPerAddr+i)+")")
	}
	for _, c := range held {
		roundTrip(t, c, `{"still":"held"}`)
	}
	// One warning a second for the address, not one a connection.
	elapsed := time.Since(started)
	if n := strings.Count(r.logs.String(), "too many open"); n < 1 || n > int(elapsed/time.Second)+1 {
		t.Fatalf("%d warnings about refused connections in %v, want 1 a second; log:\n%s", n, elapsed, r.logs.String())
	}
}

// TestMaxConnsInAll fills MaxConns from several addresses: a newcomer from
// yet another is closed at accept, and gets in once one has left.
func TestMaxConnsInAll(t *testing.T) {
	r := newRig(t, func(o *Options) { o.MaxConns = 4 })
	var held []*wsclient.Conn
	for _, ip := range []string{"127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6"} {
		c, ref, err := wsclient.DialFrom(ip, r.ln.Addr(), "/acp", r.bearer(), r.host())
		if err != nil || ref != nil {
			t.Fatalf("WebSocket from %s: refused %v, err %v", ip, ref, err)
		}
		defer c.Close()
		roundTrip(t, c, `{"from":"`+ip+`"}`)
		held = append(held, c)
	}
	if _, _, err := r.dial(r.bearer()); err == nil {
		t.Fatalf("a fifth connection got through with MaxConns 4")
	}
	held[0].Close()
	waitFor(t, "a connection from 127.0.0.1 to get in once one of the four left", func() bool {
		c, ref, err := r.dial(r.bearer())
		if err != nil || ref != nil {
			return false
		}
		roundTrip(t, c, `{"in":"at last"}`)
		c.Close()
		return true
	})
}
