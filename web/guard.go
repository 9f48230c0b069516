package web

import (
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// This file is the guard in front of every route, in the order it checks:
// the response headers, the Host allowlist, a token in the URL, the
// Origin, the method, the token or the cookie. A handler never checks any
// of them itself.

// contentSecurityPolicy lets the page run only its own files: no inline
// script or style, no frame around it, no connection but its own origin.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// queryTokenRefusal answers a URL with a token in its query: such a URL
// ends up in history, logs and Referer headers, so it is never accepted,
// not even beside a good header.
const queryTokenRefusal = "a token is never accepted in a URL; use the Authorization header or POST /session"

// route is what the guard needs to know of a path.
type route struct {
	name    string   // for log lines, which never carry the request's own path
	methods []string // the methods it answers; others get 405
	// needsOrigin: every request carries an allowed Origin (the routes a
	// cookie is made or used on). Elsewhere only a method that is not
	// GET or HEAD needs one.
	needsOrigin bool
	auth        bool // the token (Authorization: Bearer) or the session cookie
	noStore     bool
	serve       func(w http.ResponseWriter, r *http.Request)
}

// routes are the listener's three routes.
type routes struct {
	acp, session, page route
}

// routeFor finds the route of a path: /acp, /session, or the page's files.
func (l *Listener) routeFor(path string) *route {
	switch path {
	case "/acp":
		return &l.routes.acp
	case "/session":
		return &l.routes.session
	}
	return &l.routes.page
}

func (l *Listener) makeRoutes() routes {
	return routes{
		acp:     route{name: "/acp", methods: []string{http.MethodGet}, auth: true, noStore: true, serve: l.serveACP},
		session: route{name: "/session", methods: []string{http.MethodPost, http.MethodDelete}, needsOrigin: true, noStore: true, serve: l.serveSession},
		page:    route{name: "page", methods: []string{http.MethodGet, http.MethodHead}, serve: l.servePage},
	}
}

// authKind is how a request proved it holds the token.
type authKind int

const (
	authNone authKind = iota
	authBearer
	authCookie
)

// serveHTTP is the guard, then the route.
func (l *Listener) serveHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	// No Strict-Transport-Security even under TLS: browsers apply it to a
	// host name whatever its port, and on localhost it would force HTTPS on
	// every other local server the user runs.

	al := l.allow.Load()
	// Host first: a name that only resolved here by DNS rebinding gets
	// nothing else from this server.
	if !al.hosts[l.canonHost(r.Host)] {
		l.refuse(w, r, http.StatusMisdirectedRequest, "Host not allowed")
		return
	}
	if hasQueryToken(r.URL.RawQuery) {
		l.refuse(w, r, http.StatusBadRequest, queryTokenRefusal)
		return
	}
	rt := l.routeFor(r.URL.Path)
	if rt.noStore {
		h.Set("Cache-Control", "no-store")
	}
	origins, hasOrigin := r.Header["Origin"]
	switch {
	case hasOrigin && (len(origins) != 1 || !l.originAllowed(al, r.Host, origins[0])):
		l.refuse(w, r, http.StatusForbidden, "Origin not allowed")
		return
	case !hasOrigin && (rt.needsOrigin || r.Method != http.MethodGet && r.Method != http.MethodHead):
		l.refuse(w, r, http.StatusForbidden, "an Origin header is required")
		return
	}
	if !slices.Contains(rt.methods, r.Method) {
		h.Set("Allow", strings.Join(rt.methods, ", "))
		l.refuse(w, r, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	if rt.auth {
		switch l.authenticate(r) {
		case authNone:
			h.Set("WWW-Authenticate", "Bearer")
			l.refuse(w, r, http.StatusUnauthorized, "a token is required: the Authorization header, or the cookie of POST /session")
			return
		case authCookie:
			// A browser always sends Origin on a WebSocket; a cookie
			// without one comes from something that is not the page.
			if !hasOrigin {
				l.refuse(w, r, http.StatusForbidden, "the session cookie is accepted only with the page's Origin")
				return
			}
		}
	}
	rt.serve(w, r)
}

// refuse answers an error: plain text, never cached, logged without the
// request's path or query (where a token pasted by mistake would be).
func (l *Listener) refuse(w http.ResponseWriter, r *http.Request, status int, why string) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	w.Write([]byte(why + "\n"))
	l.log.Debug("web: refused a request", "status", status, "why", why,
		"route", l.routeFor(r.URL.Path).name, "method", knownMethod(r.Method), "remote", r.RemoteAddr)
}

// knownMethod is r.Method when it is a standard one, for a log line.
func knownMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}

// hasQueryToken reports whether a raw query has a parameter named token,
// in any case and any escaping, split on '&' or ';'.
func hasQueryToken(raw string) bool {
	for raw != "" {
		var part string
		if i := strings.IndexAny(raw, "&;"); i >= 0 {
			part, raw = raw[:i], raw[i+1:]
		} else {
			part, raw = raw, ""
		}
		name, _, _ := strings.Cut(part, "=")
		if un, err := url.QueryUnescape(name); err == nil {
			name = un
		}
		if strings.EqualFold(strings.TrimSpace(name), "token") {
			return true
		}
	}
	return false
}

// authenticate finds the token in the Authorization header (for a client
// that is not a browser) or the session cookie (for the page).
func (l *Listener) authenticate(r *http.Request) authKind {
	if scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") && sameToken(l.token, strings.TrimSpace(tok)) {
		return authBearer
	}
	for _, c := range r.CookiesNamed(l.cookieName()) {
		if validSession(l.token, c.Value) {
			return authCookie
		}
	}
	return authNone
}

// allowlist is the Host header values and the extra origins allowed, in
// canonical form (canonHost, canonOrigin). Allow replaces it whole.
type allowlist struct {
	hosts   map[string]bool
	origins map[string]bool
}

// makeAllowlist is the loopback names and the listen address at the
// bound port, and the extra hosts and origins.
func (l *Listener) makeAllowlist(hosts, origins []string) *allowlist {
	al := &allowlist{hosts: map[string]bool{}, origins: map[string]bool{}}
	for _, h := range []string{"127.0.0.1", "localhost", "[::1]", l.listenHost} {
		if h != "" {
			al.hosts[l.canonHost(hostWithPort(h, l.port))] = true
		}
	}
	for _, h := range hosts {
		if h = strings.TrimSpace(h); h != "" {
			al.hosts[l.canonHost(hostWithPort(h, l.port))] = true
		}
	}
	for _, o := range origins {
		if o = strings.TrimSuffix(strings.TrimSpace(o), "/"); o != "" {
			al.origins[canonOrigin(o)] = true
		}
	}
	return al
}

// hostWithPort is a host entry as a Host header spells it: "name" means
// name:port, "name:p" stays, and a bare IPv6 address gets its brackets.
func hostWithPort(h, port string) string {
	if strings.HasPrefix(h, "[") {
		if strings.Contains(h, "]:") {
			return h
		}
		return h + ":" + port
	}
	if ip := net.ParseIP(h); ip != nil && strings.Contains(h, ":") {
		return "[" + h + "]:" + port
	}
	if _, _, err := net.SplitHostPort(h); err == nil {
		return h
	}
	return h + ":" + port
}

// defaultPort is the port a browser leaves out of Host and Origin.
func (l *Listener) defaultPort() string {
	if l.tls {
		return "443"
	}
	return "80"
}

// canonHost is a Host value lowercased, without the scheme's default port
// (which a browser leaves out).
func (l *Listener) canonHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(h), ":"+l.defaultPort())
}

// canonOrigin is an origin lowercased (scheme and host are not case
// sensitive), without its scheme's default port.
func canonOrigin(o string) string {
	o = strings.ToLower(o)
	switch {
	case strings.HasPrefix(o, "http://"):
		return strings.TrimSuffix(o, ":80")
	case strings.HasPrefix(o, "https://"):
		return strings.TrimSuffix(o, ":443")
	}
	return o
}

// originAllowed reports whether origin is exactly the page's own (the
// scheme and the Host the guard already allowed) or an extra one. Exact:
// no prefix or suffix matches, and "null" is never one.
func (l *Listener) originAllowed(al *allowlist, host, origin string) bool {
	o := canonOrigin(origin)
	scheme := "http://"
	if l.tls {
		scheme = "https://"
	}
	return o == scheme+l.canonHost(host) || al.origins[o]
}
