// Package web is the HTTP side of the web door: a listener (loopback
// unless it speaks TLS) that serves the page's files and turns each
// authenticated WebSocket on /acp into a net.Conn carrying JSON-RPC lines,
// for the server to run as it runs a unix-socket client.
//
// Every guard that localhost web servers have had advisories for lives
// here, in front of every route (guard.go): a Host allowlist against DNS
// rebinding, a token kept in a private file and never in a URL, an exact
// Origin against cross-site requests, strict response headers, and bounds
// on connections and message sizes.
package web

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Options configures a Listener.
type Options struct {
	// Listen is the host:port to bind; "" means "127.0.0.1:0".
	Listen string
	// TLSCert and TLSKey, both set, make the listener speak HTTPS and WSS.
	// A Listen off loopback without them is refused by Open.
	TLSCert, TLSKey string
	// Hosts are extra Host header values allowed: "name" (name at the
	// bound port) or "name:port".
	Hosts []string
	// Origins are extra exact origins allowed, such as
	// "https://box.example:8443".
	Origins []string
	// TokenFile is where the token lives, such as <agent home>/web.token.
	TokenFile string
	// NewToken makes a fresh token even when TokenFile holds a good one.
	NewToken bool
	// Logger gets the listener's log lines; nil discards them.
	Logger *slog.Logger
	// Serve runs one WebSocket connection to its end and returns when it
	// is done. Each Read yields whole JSON-RPC messages, each one compact
	// line ending in '\n' (a text frame that is not JSON comes with its
	// line breaks made spaces, for the server to answer -32700). Each
	// Write is one or more whole lines, each sent as one text frame
	// without its '\n'. A read deadline that passes interrupts a Read and
	// leaves the connection open; Close and the deadlines work from any
	// goroutine.
	Serve func(conn net.Conn)
	// MaxMessage is the largest message read (default 8 MiB); a larger
	// one closes its connection with status 1009.
	MaxMessage int
	// MaxPerAddr is how many TCP connections one remote IP may hold at
	// once (default 32); a newcomer past it is closed at accept.
	MaxPerAddr int
	// MaxConns is how many TCP connections may be held at once in all
	// (default 512).
	MaxConns int
	// Assets are the page's files, served at "/"; nil serves the page
	// this package embeds.
	Assets fs.FS
}

// The defaults of Options' bounds.
const (
	defaultMaxMessage = 8 << 20
	defaultMaxPerAddr = 32
	defaultMaxConns   = 512
)

// maxHeaderBytes bounds a request's header.
const maxHeaderBytes = 16 << 10

// timeouts are the listener's waits. Open uses defaultTimeouts; a test
// shortens them to see them act.
type timeouts struct {
	// readHeader, read and idle are the http.Server's bounds on plain
	// requests; a WebSocket is free of them once upgraded.
	readHeader, read, idle time.Duration
	// closeGrace is how long Close lets the WebSockets' close handshakes
	// take before it closes their TCP connections by force.
	closeGrace time.Duration
}

func defaultTimeouts() timeouts {
	return timeouts{readHeader: 10 * time.Second, read: 30 * time.Second, idle: 2 * time.Minute, closeGrace: 2 * time.Second}
}

// Listener is an open web door: an HTTP server on one address, and the
// WebSockets it handed to Options.Serve.
type Listener struct {
	opt        Options
	tmo        timeouts
	log        *slog.Logger
	token      string
	tls        bool
	addr       string // the bound address
	port       string // the bound port
	listenHost string // the host of Options.Listen, as a Host header may name it
	assets     fs.FS
	routes     routes
	allow      atomic.Pointer[allowlist]
	srv        *http.Server
	served     chan struct{} // closed when srv.Serve has returned

	mu      sync.Mutex
	closed  bool
	conns   map[*wsConn]struct{}
	serving sync.WaitGroup // the /acp handlers under way
}

// IsLoopback reports whether listen's host is a loopback address
// (127.0.0.0/8, ::1) or "localhost".
func IsLoopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		host = strings.Trim(listen, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Open binds the address, reads or makes the token, and starts serving in
// goroutines of its own.
func Open(o Options) (*Listener, error) {
	return open(o, defaultTimeouts())
}

func open(o Options, tmo timeouts) (*Listener, error) {
	if o.Serve == nil {
		return nil, errors.New("web: no Serve func")
	}
	if o.TokenFile == "" {
		return nil, errors.New("web: no token file")
	}
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	useTLS := o.TLSCert != "" && o.TLSKey != ""
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return nil, errors.New("web: set both [web] tls_cert and tls_key, or neither")
	}
	if !useTLS && !IsLoopback(o.Listen) {
		return nil, fmt.Errorf("web: %s is not a loopback address: to listen there, set [web] tls_cert and tls_key so the page is served over HTTPS", o.Listen)
	}
	if o.MaxMessage <= 0 {
		o.MaxMessage = defaultMaxMessage
	}
	if o.MaxPerAddr <= 0 {
		o.MaxPerAddr = defaultMaxPerAddr
	}
	if o.MaxConns <= 0 {
		o.MaxConns = defaultMaxConns
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	l := &Listener{opt: o, tmo: tmo, log: log, tls: useTLS, assets: o.Assets, conns: map[*wsConn]struct{}{}, served: make(chan struct{})}
	if l.assets == nil {
		l.assets = ownAssets()
	}
	var tlsConfig *tls.Config
	if useTLS {
		cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("web: load [web] tls_cert %s and tls_key %s: %w", o.TLSCert, o.TLSKey, err)
		}
		// HTTP/1.1 only: the WebSocket upgrade is an HTTP/1.1 request.
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}
	}
	token, state, err := loadToken(o.TokenFile, o.NewToken)
	if err != nil {
		return nil, err
	}
	l.token = token
	if state != tokenReused {
		log.Info("web: made a new token", "file", o.TokenFile, "why", string(state))
	}

	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return nil, fmt.Errorf("web: listen on %s: %w", o.Listen, err)
	}
	bound := ln.Addr().(*net.TCPAddr)
	if !useTLS && !bound.IP.IsLoopback() {
		ln.Close()
		return nil, fmt.Errorf("web: %s bound %s, which is not loopback: set [web] tls_cert and tls_key to listen off loopback", o.Listen, bound)
	}
	l.addr = bound.String()
	_, l.port, _ = net.SplitHostPort(l.addr)
	if host, _, err := net.SplitHostPort(o.Listen); err == nil {
		l.listenHost = host
	}
	l.routes = l.makeRoutes()
	l.allow.Store(l.makeAllowlist(o.Hosts, o.Origins))

	var served net.Listener = newBoundedListener(ln, o.MaxPerAddr, o.MaxConns, log)
	if useTLS {
		served = tls.NewListener(served, tlsConfig)
	}
	l.srv = &http.Server{
		Handler:           http.HandlerFunc(l.serveHTTP),
		ReadHeaderTimeout: tmo.readHeader,
		ReadTimeout:       tmo.read,
		IdleTimeout:       tmo.idle,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){}, // no HTTP/2
	}
	go func() {
		defer close(l.served)
		l.srv.Serve(served)
	}()
	log.Info("web: listening", "url", l.URL())
	return l, nil
}

// Addr is the bound address, such as "127.0.0.1:40123".
func (l *Listener) Addr() string { return l.addr }

// URL is the page's address, such as "http://127.0.0.1:40123/"
// ("https://" under TLS). It carries no token.
func (l *Listener) URL() string {
	if l.tls {
		return "https://" + l.addr + "/"
	}
	return "http://" + l.addr + "/"
}

// TokenFile is the file that holds the token.
func (l *Listener) TokenFile() string { return l.opt.TokenFile }

// Allow replaces the extra hosts and origins allowed (Options.Hosts and
// Options.Origins), for a config edit; requests from then on see the new
// ones.
func (l *Listener) Allow(hosts, origins []string) {
	l.allow.Store(l.makeAllowlist(hosts, origins))
}

// enter counts an /acp handler about to hand a connection out, unless the
// listener is closing.
func (l *Listener) enter() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.serving.Add(1)
	return true
}

// add records a connection handed out, for Close to close; it reports
// false when the listener closed meanwhile.
func (l *Listener) add(c *wsConn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.conns[c] = struct{}{}
	return true
}

func (l *Listener) remove(c *wsConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.conns, c)
}

// Close stops listening and closes every connection the listener handed
// out: each gets a normal close, and its TCP connection is closed by force
// if the close handshake has not ended within 2s. It returns once every
// Serve func has returned, so nothing the listener started runs on; a
// Serve func must therefore not wait on what the caller of Close holds.
func (l *Listener) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	conns := make([]*wsConn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()

	err := l.srv.Close() // the listener and the plain requests; the WebSockets are ours
	for _, c := range conns {
		c.Close()
	}
	grace := time.NewTimer(l.tmo.closeGrace)
	defer grace.Stop()
	forced := false
	for _, c := range conns {
		if forced {
			<-c.done
			continue
		}
		select {
		case <-c.done:
		case <-grace.C:
			l.log.Warn("web: WebSocket close handshakes did not end in time: closing their connections", "grace", l.tmo.closeGrace)
			for _, c := range conns {
				c.forceClose()
			}
			forced = true
			<-c.done
		}
	}
	l.serving.Wait()
	<-l.served
	if err != nil {
		return fmt.Errorf("web: close the listener on %s: %w", l.addr, err)
	}
	return nil
}
