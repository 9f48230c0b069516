// Package wsclient is a small WebSocket and HTTP client for tests of the
// web door. It writes every request by hand over raw TCP (or TLS), with
// exactly the headers a test gives it and a Host it names: a library
// client would fix up Host, Origin or the upgrade headers, and a test of
// the guards needs to send what an attacker would.
package wsclient

import (
	"bufio"
	"crypto/rand"
	"crypto/sha1"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// The frame opcodes of RFC 6455.
const (
	OpContinuation byte = 0x0
	OpText         byte = 0x1
	OpBinary       byte = 0x2
	OpClose        byte = 0x8
	OpPing         byte = 0x9
	OpPong         byte = 0xA
)

// maxRecv bounds a message Recv reassembles: a broken server cannot make a
// test eat its memory.
const maxRecv = 64 << 20

// maxBody bounds a response body read.
const maxBody = 1 << 20

// Dialer is how a client connects: from which local address, over TLS or
// not, and how long the dial and the handshake may take.
type Dialer struct {
	// LocalIP binds the client's end, such as "127.0.0.2" (all of 127/8
	// is local on Linux), so a test can come from several addresses.
	LocalIP string
	// TLS, when set, speaks TLS with it (ServerName and RootCAs set by
	// the test).
	TLS *tls.Config
	// Timeout bounds the dial and the handshake or request; 0 means 10s.
	Timeout time.Duration
}

// Refused is an upgrade the server answered with a status other than 101.
type Refused struct {
	Status int
	Header http.Header
	Body   string
}

// String is the status and the body, for a test's failure message.
func (r *Refused) String() string { return fmt.Sprintf("%d %q", r.Status, r.Body) }

// CloseError is a close frame the server sent: its status code (1005 when
// it carried none) and reason.
type CloseError struct {
	Code   int
	Reason string
}

// Error says the code and the reason.
func (e *CloseError) Error() string {
	return fmt.Sprintf("websocket closed by the server: %d %q", e.Code, e.Reason)
}

// Dial is Dialer{}.Dial.
func Dial(addr, path string, h http.Header, host string) (*Conn, *Refused, error) {
	return Dialer{}.Dial(addr, path, h, host)
}

// DialFrom is Dial from the local address localIP.
func DialFrom(localIP, addr, path string, h http.Header, host string) (*Conn, *Refused, error) {
	return Dialer{LocalIP: localIP}.Dial(addr, path, h, host)
}

// Do is Dialer{}.Do.
func Do(addr, method, path string, h http.Header, host, body string) (int, http.Header, string, error) {
	return Dialer{}.Do(addr, method, path, h, host, body)
}

func (d Dialer) timeout() time.Duration {
	if d.Timeout > 0 {
		return d.Timeout
	}
	return 10 * time.Second
}

// dial connects to addr, with TLS when asked.
func (d Dialer) dial(addr string) (net.Conn, error) {
	nd := net.Dialer{Timeout: d.timeout()}
	if d.LocalIP != "" {
		nd.LocalAddr = &net.TCPAddr{IP: net.ParseIP(d.LocalIP)}
	}
	nc, err := nd.Dial("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	if d.TLS == nil {
		return nc, nil
	}
	tc := tls.Client(nc, d.TLS)
	tc.SetDeadline(time.Now().Add(d.timeout()))
	if err := tc.Handshake(); err != nil {
		nc.Close()
		return nil, fmt.Errorf("TLS handshake with %s: %w", addr, err)
	}
	tc.SetDeadline(time.Time{})
	return tc, nil
}

// writeHead writes a request line, Host, then h's headers in a stable
// order, each value as given, and the extra headers h does not name.
func writeHead(b *strings.Builder, method, path, host string, h http.Header, extra [][2]string) {
	fmt.Fprintf(b, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, path, host)
	for _, kv := range extra {
		if _, ok := h[http.CanonicalHeaderKey(kv[0])]; !ok {
			fmt.Fprintf(b, "%s: %s\r\n", kv[0], kv[1])
		}
	}
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			fmt.Fprintf(b, "%s: %s\r\n", k, v)
		}
	}
	b.WriteString("\r\n")
}

// Dial asks addr for a WebSocket on path with the Host host and the
// headers h (Origin, Authorization, Cookie, as given; the upgrade headers
// unless h names them). A status other than 101 comes back as a Refused.
func (d Dialer) Dial(addr, path string, h http.Header, host string) (*Conn, *Refused, error) {
	nc, err := d.dial(addr)
	if err != nil {
		return nil, nil, err
	}
	keyBytes := make([]byte, 16)
	rand.Read(keyBytes)
	key := base64.StdEncoding.EncodeToString(keyBytes)
	var b strings.Builder
	writeHead(&b, http.MethodGet, path, host, h, [][2]string{
		{"Upgrade", "websocket"}, {"Connection", "Upgrade"},
		{"Sec-WebSocket-Key", key}, {"Sec-WebSocket-Version", "13"},
	})
	nc.SetDeadline(time.Now().Add(d.timeout()))
	if _, err := io.WriteString(nc, b.String()); err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("write the upgrade request: %w", err)
	}
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodGet})
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("read the upgrade response: %w", err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
		nc.Close()
		return nil, &Refused{Status: resp.StatusCode, Header: resp.Header, Body: string(body)}, nil
	}
	if got, want := resp.Header.Get("Sec-WebSocket-Accept"), acceptKey(key); got != want {
		nc.Close()
		return nil, nil, fmt.Errorf("101 with Sec-WebSocket-Accept %q, want %q", got, want)
	}
	nc.SetDeadline(time.Time{})
	return &Conn{nc: nc, br: br, Header: resp.Header}, nil, nil
}

func acceptKey(key string) string {
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// Do sends one plain HTTP request with the Host host and the headers h,
// and reads the answer (the body up to 1 MiB).
func (d Dialer) Do(addr, method, path string, h http.Header, host, body string) (status int, header http.Header, respBody string, err error) {
	nc, err := d.dial(addr)
	if err != nil {
		return 0, nil, "", err
	}
	defer nc.Close()
	extra := [][2]string{{"Connection", "close"}}
	if body != "" || method == http.MethodPost || method == http.MethodPut || method == http.MethodDelete {
		extra = append(extra, [2]string{"Content-Length", fmt.Sprint(len(body))})
	}
	var b strings.Builder
	writeHead(&b, method, path, host, h, extra)
	b.WriteString(body)
	nc.SetDeadline(time.Now().Add(d.timeout()))
	if _, err := io.WriteString(nc, b.String()); err != nil {
		return 0, nil, "", fmt.Errorf("write the request: %w", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(nc), &http.Request{Method: method})
	if err != nil {
		return 0, nil, "", fmt.Errorf("read the response: %w", err)
	}
	rb, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return resp.StatusCode, resp.Header, string(rb), fmt.Errorf("read the response body: %w", err)
	}
	return resp.StatusCode, resp.Header, string(rb), nil
}

// Conn is a client's WebSocket. Send and Recv may be used from two
// goroutines at once; Recv from one at a time.
type Conn struct {
	nc net.Conn
	br *bufio.Reader
	// Header is the 101 response's header.
	Header http.Header

	wmu sync.Mutex
}

// Send sends v as JSON in one text frame.
func (c *Conn) Send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("marshal a message to send: %w", err)
	}
	return c.SendFrame(OpText, b, true)
}

// SendText sends s in one text frame.
func (c *Conn) SendText(s string) error { return c.SendFrame(OpText, []byte(s), true) }

// SendFrame sends one masked frame, as a client must: op is one of the
// Op constants, fin false leaves the message open for a continuation.
func (c *Conn) SendFrame(op byte, payload []byte, fin bool) error {
	var hdr [14]byte
	hdr[0] = op
	if fin {
		hdr[0] |= 0x80
	}
	n := len(payload)
	i := 2
	switch {
	case n < 126:
		hdr[1] = 0x80 | byte(n)
	case n <= 0xFFFF:
		hdr[1] = 0x80 | 126
		binary.BigEndian.PutUint16(hdr[2:], uint16(n))
		i = 4
	default:
		hdr[1] = 0x80 | 127
		binary.BigEndian.PutUint64(hdr[2:], uint64(n))
		i = 10
	}
	var mask [4]byte
	rand.Read(mask[:])
	copy(hdr[i:], mask[:])
	i += 4
	frame := make([]byte, i+n)
	copy(frame, hdr[:i])
	for j, b := range payload {
		frame[i+j] = b ^ mask[j%4]
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.nc.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.nc.Write(frame); err != nil {
		return fmt.Errorf("send a frame: %w", err)
	}
	return nil
}

// Recv returns the next text message, whole (fragments joined), waiting
// until deadline. It answers pings with pongs on the way; a close frame
// comes back as a *CloseError (and is answered), a binary message as an
// error.
func (c *Conn) Recv(deadline time.Time) ([]byte, error) {
	c.nc.SetReadDeadline(deadline)
	var msg []byte
	inMessage := false
	for {
		fin, op, payload, err := c.readFrame()
		if err != nil {
			return nil, err
		}
		switch op {
		case OpPing:
			if err := c.SendFrame(OpPong, payload, true); err != nil {
				return nil, err
			}
			continue
		case OpPong:
			continue
		case OpClose:
			ce := &CloseError{Code: 1005}
			if len(payload) >= 2 {
				ce.Code = int(binary.BigEndian.Uint16(payload))
				ce.Reason = string(payload[2:])
			}
			// Answer it, as RFC 6455 asks, so the server's close
			// handshake ends at once.
			c.SendFrame(OpClose, payload[:min(len(payload), 2)], true)
			return nil, ce
		case OpBinary:
			return nil, errors.New("the server sent a binary message")
		case OpText:
			if inMessage {
				return nil, errors.New("a text frame inside an unfinished message")
			}
			inMessage = true
		case OpContinuation:
			if !inMessage {
				return nil, errors.New("a continuation frame outside a message")
			}
		default:
			return nil, fmt.Errorf("unknown opcode %#x", op)
		}
		if len(msg)+len(payload) > maxRecv {
			return nil, fmt.Errorf("a message over %d bytes", maxRecv)
		}
		msg = append(msg, payload...)
		if fin {
			return msg, nil
		}
	}
}

// RecvHeader reads the next frame's header only, waiting until deadline,
// and leaves its payload unread: a test sees that the server has begun
// to send a frame while the client reads no more of it. The Conn is then
// fit only for Close.
func (c *Conn) RecvHeader(deadline time.Time) (op byte, length uint64, err error) {
	c.nc.SetReadDeadline(deadline)
	_, op, length, err = c.readHeader()
	return op, length, err
}

func (c *Conn) readHeader() (fin bool, op byte, n uint64, err error) {
	var h [2]byte
	if _, err := io.ReadFull(c.br, h[:]); err != nil {
		return false, 0, 0, err
	}
	fin, op = h[0]&0x80 != 0, h[0]&0x0F
	if h[1]&0x80 != 0 {
		return false, 0, 0, errors.New("the server masked a frame")
	}
	n = uint64(h[1] & 0x7F)
	switch n {
	case 126:
		var b [2]byte
		if _, err := io.ReadFull(c.br, b[:]); err != nil {
			return false, 0, 0, err
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err := io.ReadFull(c.br, b[:]); err != nil {
			return false, 0, 0, err
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	return fin, op, n, nil
}

func (c *Conn) readFrame() (fin bool, op byte, payload []byte, err error) {
	fin, op, n, err := c.readHeader()
	if err != nil {
		return false, 0, nil, err
	}
	if n > maxRecv {
		return false, 0, nil, fmt.Errorf("a frame of %d bytes", n)
	}
	payload = make([]byte, n)
	if _, err := io.ReadFull(c.br, payload); err != nil {
		return false, 0, nil, err
	}
	return fin, op, payload, nil
}

// Close sends a normal close (1000) and closes the connection without
// waiting for the server's answer.
func (c *Conn) Close() error {
	c.SendFrame(OpClose, []byte{0x03, 0xE8}, true)
	return c.nc.Close()
}

// LocalAddr is the client's end of the connection.
func (c *Conn) LocalAddr() net.Addr { return c.nc.LocalAddr() }
