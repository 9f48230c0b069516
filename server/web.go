package server

import (
	"fmt"
	"net"
	"sync"
	"sync/atomic"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/web"
)

// This file is where the server meets the web door (package web): the
// loopback listener it opens (from [web] listen as it starts, or when a
// client calls MethodWeb), and the connections that come through it. A
// WebSocket that passed the web door's guards (the Host allowlist, the
// token, the exact Origin) becomes a connection like any other: the same
// line limit, bounded queue, admission and handlers, the ACP door when its
// first call is initialize. What a web caller may do is narrower than what
// a local one may (webpolicy.go).

// webPeer stands for the process of every web connection in the
// admission's count by process: a crowd of web connections is the first
// to give way to a local newcomer.
const webPeer = -1

// webDoor is the server's web listener, when one is open.
type webDoor struct {
	mu sync.Mutex
	ln *web.Listener
	// open mirrors ln != nil for the idle check, which holds the server's
	// mu and must not wait on this one (closing a listener waits for its
	// connections, whose ends take the server's mu).
	open atomic.Bool
}

// webOpen reports whether the web listener is open: the server stays up
// while it is, as a page may connect at any time.
func (s *Server) webOpen() bool { return s.web.open.Load() }

// openWeb answers MethodWeb: it opens the web listener on the address
// asked for (else [web] listen, else a free loopback port) or answers the
// one already open. NewToken closes it and opens it again on the same
// address with a fresh token, which ends every page signed in with the
// old one.
func (s *Server) openWeb(p proto.WebParams) (proto.WebResult, *Error) {
	cfg := s.config().Web
	s.web.mu.Lock()
	defer s.web.mu.Unlock()
	if ln := s.web.ln; ln != nil {
		if p.Listen != "" && p.Listen != ln.Addr() && !sameRequest(p.Listen, ln) {
			return proto.WebResult{}, refused(fmt.Sprintf("the web listener is open on %s; it listens there until the server stops (acpmux-tui kill-server)", ln.Addr()))
		}
		if !p.NewToken {
			return s.webResultLocked(), nil
		}
		p.Listen = ln.Addr()
		ln.Close()
		s.web.ln = nil
		s.web.open.Store(false)
	}
	listen := p.Listen
	if listen == "" {
		listen = cfg.Listen
	}
	if listen == "" {
		listen = "127.0.0.1:0"
	}
	if err := s.listenWebLocked(listen, p.NewToken); err != nil {
		return proto.WebResult{}, err
	}
	return s.webResultLocked(), nil
}

// sameRequest reports whether listen asks for the address ln was opened
// with (a port of 0 took whatever port ln has).
func sameRequest(listen string, ln *web.Listener) bool {
	host, port, err := net.SplitHostPort(listen)
	if err != nil || port != "0" {
		return false
	}
	lnHost, _, _ := net.SplitHostPort(ln.Addr())
	return host == lnHost
}

// listenWebLocked opens the web listener on listen.
func (s *Server) listenWebLocked(listen string, newToken bool) *Error {
	cfg := s.config().Web
	ln, err := web.Open(web.Options{
		Listen:     listen,
		TLSCert:    cfg.TLSCert,
		TLSKey:     cfg.TLSKey,
		Hosts:      cfg.Hosts,
		Origins:    cfg.Origins,
		TokenFile:  webTokenFile(s.home),
		NewToken:   newToken,
		Logger:     s.opt.Logger,
		Serve:      s.admitWeb,
		MaxMessage: proto.MaxLine,
	})
	if err != nil {
		return errorf(proto.CodeFailed, "open the web listener: %v", err)
	}
	s.web.ln = ln
	s.web.open.Store(true)
	live := s.live.Load()
	s.opt.Logger.Info("web listener open", "url", ln.URL(), "roots", live.webRoots)
	s.poke()
	return nil
}

func (s *Server) webResultLocked() proto.WebResult {
	live := s.live.Load()
	return proto.WebResult{
		URL: s.web.ln.URL(), Listen: s.web.ln.Addr(), TokenFile: s.web.ln.TokenFile(),
		Roots: append([]string{}, live.webRoots...), Warnings: live.webWarnings,
	}
}

// webTokenFile is the web listener's token in the agent home.
func webTokenFile(home string) string { return home + "/" + proto.WebTokenName }

// openConfiguredWeb opens the listener of [web] listen as the server
// starts; a listener that cannot open is logged and the server serves on
// without it.
func (s *Server) openConfiguredWeb() {
	listen := s.config().Web.Listen
	if listen == "" {
		return
	}
	s.web.mu.Lock()
	defer s.web.mu.Unlock()
	if err := s.listenWebLocked(listen, false); err != nil {
		s.opt.Logger.Warn("the web listener of [web] listen did not open", "listen", listen, "err", err.Message)
	}
}

// webConfigChanged gives the open listener the hosts and origins of a
// config just put in effect. A change of listen, tls_cert or tls_key takes
// the next server.
func (s *Server) webConfigChanged(cfg config.WebConfig) {
	s.web.mu.Lock()
	defer s.web.mu.Unlock()
	if s.web.ln != nil {
		s.web.ln.Allow(cfg.Hosts, cfg.Origins)
	}
}

// closeWeb closes the web listener and every connection it let in.
func (s *Server) closeWeb() {
	s.web.mu.Lock()
	defer s.web.mu.Unlock()
	if s.web.ln != nil {
		s.web.ln.Close()
		s.web.ln = nil
		s.web.open.Store(false)
	}
}

// admitWeb serves one WebSocket the web door let in, to its end. It is
// let in as a local connection is (admit.go), counted under webPeer, and
// held to the web's narrower rights (webpolicy.go).
func (s *Server) admitWeb(nc net.Conn) {
	c := newConn(s, nc)
	c.web.Store(true)
	if !s.enter(c, webPeer) {
		return
	}
	c.serve()
}
