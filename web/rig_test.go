package web

import (
	"bufio"
	"bytes"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/lockedbuf"
	"github.com/acpmux/acpmux-tui/internal/testharness/wsclient"
)

// hang is how long a test waits for something that should happen at once
// (an answer on loopback, a close) before it calls it a hang.
const hang = 10 * time.Second

func soon() time.Time { return time.Now().Add(hang) }

// rig is a real listener on 127.0.0.1:0 whose Serve echoes every line it
// reads (a line holding "double" comes back twice, in one Write), and
// the log it writes. At cleanup it closes what it opened and fails the
// test if any token it ever used shows in the log.
type rig struct {
	t         *testing.T
	tmo       timeouts
	ln        *Listener
	opened    []*Listener
	tokenFile string
	logs      *lockedbuf.Buffer
	tokens    map[string]bool

	served chan net.Conn // each conn Serve was given
	lines  chan []byte   // each line Serve read
	ended  chan error    // the error that ended each Serve
}

func newRig(t *testing.T, tweak func(*Options)) *rig {
	t.Helper()
	return newRigTimeouts(t, defaultTimeouts(), tweak)
}

// newRigTimeouts is newRig with the listener's waits set to tmo.
func newRigTimeouts(t *testing.T, tmo timeouts, tweak func(*Options)) *rig {
	t.Helper()
	r := &rig{
		t: t, tmo: tmo, tokenFile: filepath.Join(t.TempDir(), "web.token"), logs: &lockedbuf.Buffer{}, tokens: map[string]bool{},
		served: make(chan net.Conn, 1024), lines: make(chan []byte, 1024), ended: make(chan error, 1024),
	}
	t.Cleanup(r.cleanup)
	r.reopen(tweak)
	return r
}

// options are the rig's Options, before tweak.
func (r *rig) options() Options {
	return Options{
		TokenFile: r.tokenFile,
		Logger:    slog.New(slog.NewTextHandler(r.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Serve:     r.echo,
	}
}

// reopen opens a listener (another, when one is open) on the rig's token
// file and makes it the rig's.
func (r *rig) reopen(tweak func(*Options)) *Listener {
	r.t.Helper()
	o := r.options()
	if tweak != nil {
		tweak(&o)
	}
	ln, err := open(o, r.tmo)
	if err != nil {
		r.t.Fatalf("open the listener: %v", err)
	}
	r.ln = ln
	r.opened = append(r.opened, ln)
	r.tokens[r.token()] = true
	return ln
}

func (r *rig) cleanup() {
	for _, ln := range r.opened {
		ln.Close()
	}
	logs := r.logs.String()
	if !strings.Contains(logs, "web: listening") {
		r.t.Errorf("the logger got nothing from the listener; log:\n%s", logs)
	}
	for tok := range r.tokens {
		if strings.Contains(logs, tok) {
			r.t.Errorf("a token shows in the log:\n%s", logs)
		}
	}
}

// echo is the rig's Serve.
func (r *rig) echo(c net.Conn) {
	r.served <- c
	br := bufio.NewReader(c)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			r.ended <- err
			return
		}
		r.lines <- bytes.Clone(line)
		if bytes.Contains(line, []byte(`"double"`)) {
			line = append(line, line...)
		}
		if _, err := c.Write(line); err != nil {
			r.ended <- err
			return
		}
	}
}

// token is what the token file holds now.
func (r *rig) token() string {
	r.t.Helper()
	b, err := os.ReadFile(r.tokenFile)
	if err != nil {
		r.t.Fatalf("read the token file: %v", err)
	}
	return strings.TrimSpace(string(b))
}

func (r *rig) port() string {
	_, port, _ := net.SplitHostPort(r.ln.Addr())
	return port
}

// host is the Host a browser sends for the rig's URL.
func (r *rig) host() string { return "127.0.0.1:" + r.port() }

// origin is the page's own origin.
func (r *rig) origin() string { return "http://" + r.host() }

func (r *rig) bearer() http.Header {
	return http.Header{"Authorization": {"Bearer " + r.token()}}
}

// dial opens /acp with the headers h and the rig's host.
func (r *rig) dial(h http.Header) (*wsclient.Conn, *wsclient.Refused, error) {
	return wsclient.Dial(r.ln.Addr(), "/acp", h, r.host())
}

// mustDial opens /acp with h and fails the test unless it is upgraded.
func (r *rig) mustDial(h http.Header) *wsclient.Conn {
	r.t.Helper()
	c, ref, err := r.dial(h)
	if err != nil || ref != nil {
		r.t.Fatalf("open /acp: refused %v, err %v", ref, err)
	}
	r.t.Cleanup(func() { c.Close() })
	return c
}

// roundTrip sends msg and fails the test unless it comes back.
func roundTrip(t *testing.T, c *wsclient.Conn, msg string) {
	t.Helper()
	if err := c.SendText(msg); err != nil {
		t.Fatalf("send %s: %v", msg, err)
	}
	got, err := c.Recv(soon())
	if err != nil || string(got) != msg {
		t.Fatalf("waiting for the echo of %s: got %q, %v", msg, got, err)
	}
}

// expectServed returns the next conn Serve was given.
func (r *rig) expectServed() net.Conn {
	r.t.Helper()
	select {
	case c := <-r.served:
		return c
	case <-time.After(hang):
		r.t.Fatalf("waited %v for Serve to be given a connection", hang)
		return nil
	}
}

// expectEnded returns the error the next Serve to end met.
func (r *rig) expectEnded(what string) error {
	r.t.Helper()
	select {
	case err := <-r.ended:
		return err
	case <-time.After(hang):
		r.t.Fatalf("waited %v for a Serve to end (%s)", hang, what)
		return nil
	}
}

// wantCSP is the policy as the design states it, spelled out here so that
// a change to the constant shows in a test.
const wantCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// checkPageHeaders fails the test unless h has the headers every response
// carries, and Cache-Control: no-store when noStore.
func checkPageHeaders(t *testing.T, what string, h http.Header, noStore bool) {
	t.Helper()
	want := map[string]string{
		"Content-Security-Policy": wantCSP,
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "no-referrer",
		"X-Frame-Options":         "DENY",
	}
	if noStore {
		want["Cache-Control"] = "no-store"
	}
	for k, v := range want {
		if got := h.Values(k); len(got) != 1 || got[0] != v {
			t.Errorf("%s: %s is %q, want %q", what, k, got, v)
		}
	}
}
