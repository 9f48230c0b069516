package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/wsclient"
)

// signIn posts token to /session from origin and returns the status and
// the Set-Cookie headers.
func (r *rig) signIn(token, origin string) (int, []string) {
	r.t.Helper()
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	status, header, _, err := wsclient.Do(r.ln.Addr(), "POST", "/session", h, r.host(), `{"token":"`+token+`"}`)
	if err != nil {
		r.t.Fatalf("POST /session: %v", err)
	}
	return status, header.Values("Set-Cookie")
}

// cookieDial opens /acp with the session cookie value and origin ("" for
// none), returning the status (101 when upgraded, then closed).
func (r *rig) cookieDial(value, origin string) int {
	r.t.Helper()
	h := http.Header{"Cookie": {r.ln.cookieName() + "=" + value}}
	if origin != "" {
		h.Set("Origin", origin)
	}
	c, ref, err := r.dial(h)
	if err != nil {
		r.t.Fatalf("open /acp with the cookie: %v", err)
	}
	if ref != nil {
		return ref.Status
	}
	roundTrip(r.t, c, `{"jsonrpc":"2.0","id":7,"method":"cookie"}`)
	c.Close()
	return http.StatusSwitchingProtocols
}

func TestCookieExchange(t *testing.T) {
	r := newRig(t, nil)
	wrong := []byte(r.token())
	wrong[0] ^= 1 // another character
	if status, cookies := r.signIn(string(wrong), r.origin()); status != http.StatusUnauthorized || len(cookies) != 0 {
		t.Fatalf("sign-in with a wrong token: %d %q, want 401 and no cookie", status, cookies)
	}
	if status, cookies := r.signIn(r.token(), ""); status != http.StatusForbidden || len(cookies) != 0 {
		t.Fatalf("sign-in with no Origin: %d %q, want 403 and no cookie", status, cookies)
	}
	status, cookies := r.signIn(r.token(), r.origin())
	if status != http.StatusNoContent || len(cookies) != 1 {
		t.Fatalf("sign-in: %d %q, want 204 and one cookie", status, cookies)
	}
	raw := cookies[0]
	attrs := map[string]bool{}
	for _, a := range strings.Split(raw, ";")[1:] {
		attrs[strings.ToLower(strings.TrimSpace(a))] = true
	}
	for _, want := range []string{"httponly", "samesite=strict", "path=/"} {
		if !attrs[want] {
			t.Errorf("Set-Cookie %q lacks %s", raw, want)
		}
	}
	for a := range attrs {
		if strings.HasPrefix(a, "max-age") || strings.HasPrefix(a, "expires") || a == "secure" || strings.HasPrefix(a, "domain") {
			t.Errorf("Set-Cookie %q has %s: want a browser-session cookie for this host, not Secure over plain HTTP", raw, a)
		}
	}
	c, err := http.ParseSetCookie(raw)
	if err != nil || c.Name != r.ln.cookieName() {
		t.Fatalf("Set-Cookie %q: %v", raw, err)
	}
	if strings.Contains(raw, r.token()) {
		t.Fatalf("the cookie holds the token")
	}

	if got := r.cookieDial(c.Value, r.origin()); got != 101 {
		t.Fatalf("the cookie from the page: %d, want 101", got)
	}
	if got := r.cookieDial(c.Value, "http://evil.example"); got != 403 {
		t.Fatalf("the cookie from another site: %d, want 403", got)
	}
	if got := r.cookieDial(c.Value, ""); got != 403 {
		t.Fatalf("the cookie with no Origin: %d, want 403", got)
	}
	nonce, _, _ := strings.Cut(c.Value, ".")
	forged := nonce + "." + b64.EncodeToString(make([]byte, 32))
	if got := r.cookieDial(forged, r.origin()); got != 401 {
		t.Fatalf("a forged cookie: %d, want 401", got)
	}

	// The cookie outlives the listener: a new one on the same token file
	// (at another port) takes it.
	r.ln.Close()
	r.reopen(nil)
	if got := r.cookieDial(c.Value, r.origin()); got != 101 {
		t.Fatalf("the cookie after a restart: %d, want 101", got)
	}
	// A new token ends it.
	r.ln.Close()
	r.reopen(func(o *Options) { o.NewToken = true })
	if got := r.cookieDial(c.Value, r.origin()); got != 401 {
		t.Fatalf("the cookie after a new token: %d, want 401", got)
	}
}

func TestSignOutClearsTheCookie(t *testing.T) {
	r := newRig(t, nil)
	status, h, _, err := wsclient.Do(r.ln.Addr(), "DELETE", "/session", http.Header{"Origin": {r.origin()}}, r.host(), "")
	if err != nil || status != http.StatusNoContent {
		t.Fatalf("DELETE /session: %d %v", status, err)
	}
	c, err := http.ParseSetCookie(h.Get("Set-Cookie"))
	if err != nil || c.Name != r.ln.cookieName() || c.Value != "" || c.MaxAge >= 0 {
		t.Fatalf("DELETE /session set %q (%+v, %v), want the cookie cleared with Max-Age=0", h.Get("Set-Cookie"), c, err)
	}
}
