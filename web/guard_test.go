package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/wsclient"
)

// hostile is one request of the guard's table. In host, path, the header
// values and body, PORT is the bound port, TOKEN the token, COOKIE a good
// session value, FORGED a session value of the right shape with a wrong
// MAC and OWN the page's own origin. An empty method is a WebSocket
// upgrade of path; host "" is 127.0.0.1:PORT and "-" an empty Host.
type hostile struct {
	name   string
	method string
	path   string
	host   string
	h      http.Header
	body   string
	want   int
}

// hostileRequests try each guard: the Host allowlist, the token in a URL,
// the Origin, the method, the token and the cookie.
var hostileRequests = []hostile{
	// The page and the Host allowlist.
	{name: "the page", method: "GET", path: "/", want: 200},
	{name: "the page's HEAD", method: "HEAD", path: "/", want: 200},
	{name: "the page via localhost", method: "GET", path: "/", host: "localhost:PORT", want: 200},
	{name: "the page via [::1]", method: "GET", path: "/", host: "[::1]:PORT", want: 200},
	{name: "a Host in capitals", method: "GET", path: "/", host: "LOCALHOST:PORT", want: 200},
	{name: "the page's script", method: "GET", path: "/app.js", want: 200},
	{name: "an unknown path", method: "GET", path: "/nope", want: 404},
	{name: "a path out of the assets", method: "GET", path: "/../listener.go", want: 404},
	{name: "a folder", method: "GET", path: "/assets/", want: 404},
	{name: "DNS rebinding", method: "GET", path: "/", host: "attacker.test:PORT", want: 421},
	{name: "a Host without its port", method: "GET", path: "/", host: "127.0.0.1", want: 421},
	{name: "a Host at another port", method: "GET", path: "/", host: "127.0.0.1:1", want: 421},
	{name: "a Host with a suffix", method: "GET", path: "/", host: "127.0.0.1:PORT.evil.example", want: 421},
	{name: "an empty Host", method: "GET", path: "/", host: "-", want: 421},
	{name: "another host in an absolute URL", method: "GET", path: "http://attacker.test:PORT/", want: 421},
	{name: "the page from another site's script", method: "GET", path: "/", h: http.Header{"Origin": {"http://evil.example"}}, want: 403},
	{name: "a POST with no Origin", method: "POST", path: "/", want: 403},
	{name: "a POST from the page", method: "POST", path: "/", h: http.Header{"Origin": {"OWN"}}, want: 405},
	{name: "a preflight from another site", method: "OPTIONS", path: "/acp", h: http.Header{"Origin": {"http://evil.example"}}, want: 403},

	// A token in a URL, on any route, in any spelling.
	{name: "the token in the page's query", method: "GET", path: "/?token=TOKEN", want: 400},
	{name: "token in capitals", method: "GET", path: "/?a=1&ToKeN=x", want: 400},
	{name: "token escaped", method: "GET", path: "/?%74oken=x", want: 400},
	{name: "token after a semicolon", method: "GET", path: "/?a=1;token=x", want: 400},
	{name: "the token in /acp's query, nothing else", path: "/acp?token=TOKEN", want: 400},
	{name: "the token in /acp's query and the header", path: "/acp?token=TOKEN", h: http.Header{"Authorization": {"Bearer TOKEN"}}, want: 400},

	// /acp: the token and the Origin.
	{name: "the bearer token, no Origin", path: "/acp", h: http.Header{"Authorization": {"Bearer TOKEN"}}, want: 101},
	{name: "the bearer token from the page", path: "/acp", h: http.Header{"Authorization": {"Bearer TOKEN"}, "Origin": {"OWN"}}, want: 101},
	{name: "bearer in lower case", path: "/acp", h: http.Header{"Authorization": {"bearer TOKEN"}}, want: 101},
	{name: "the page's Origin in capitals", path: "/acp", h: http.Header{"Authorization": {"Bearer TOKEN"}, "Origin": {"HTTP://127.0.0.1:PORT"}}, want: 101},
	{name: "no token", path: "/acp", want: 401},
	{name: "a wrong token", path: "/acp", h: http.Header{"Authorization": {"Bearer " + strings.Repeat("0", 64)}}, want: 401},
	{name: "the token as Basic", path: "/acp", h: http.Header{"Authorization": {"Basic TOKEN"}}, want: 401},
	{name: "the token as a cookie", path: "/acp", h: http.Header{"Cookie": {"acpmux_session_PORT=TOKEN"}, "Origin": {"OWN"}}, want: 401},
	{name: "another site with the token", path: "/acp", h: http.Header{"Authorization": {"Bearer TOKEN"}, "Origin": {"http://evil.example"}}, want: 403},
	{name: "an Origin with our host as prefix", path: "/acp", h: http.Header{"Authorization": {"Bearer TOKEN"}, "Origin": {"http://127.0.0.1:PORT.evil.example"}}, want: 403},
	{name: "an Origin with our host as suffix", path: "/acp", h: http.Header{"Authorization": {"Bearer TOKEN"}, "Origin": {"http://evil.127.0.0.1:PORT"}}, want: 403},
	{name: "Origin null", path: "/acp", h: http.Header{"Authorization": {"Bearer TOKEN"}, "Origin": {"null"}}, want: 403},
	{name: "an empty Origin", path: "/acp", h: http.Header{"Authorization": {"Bearer TOKEN"}, "Origin": {""}}, want: 403},
	{name: "an Origin with a path", path: "/acp", h: http.Header{"Authorization": {"Bearer TOKEN"}, "Origin": {"OWN/"}}, want: 403},
	{name: "an https Origin on http", path: "/acp", h: http.Header{"Authorization": {"Bearer TOKEN"}, "Origin": {"https://127.0.0.1:PORT"}}, want: 403},
	{name: "localhost's Origin on 127.0.0.1", path: "/acp", h: http.Header{"Authorization": {"Bearer TOKEN"}, "Origin": {"http://localhost:PORT"}}, want: 403},
	{name: "two Origins", path: "/acp", h: http.Header{"Authorization": {"Bearer TOKEN"}, "Origin": {"OWN", "OWN"}}, want: 403},
	{name: "rebinding with the token and its own Origin", path: "/acp", host: "attacker.test:PORT", h: http.Header{"Authorization": {"Bearer TOKEN"}, "Origin": {"http://attacker.test:PORT"}}, want: 421},
	{name: "the cookie from the page", path: "/acp", h: http.Header{"Cookie": {"acpmux_session_PORT=COOKIE"}, "Origin": {"OWN"}}, want: 101},
	{name: "the cookie with no Origin", path: "/acp", h: http.Header{"Cookie": {"acpmux_session_PORT=COOKIE"}}, want: 403},
	{name: "the cookie from another site", path: "/acp", h: http.Header{"Cookie": {"acpmux_session_PORT=COOKIE"}, "Origin": {"http://evil.example"}}, want: 403},
	{name: "a forged cookie", path: "/acp", h: http.Header{"Cookie": {"acpmux_session_PORT=FORGED"}, "Origin": {"OWN"}}, want: 401},
	{name: "/acp without the upgrade", method: "GET", path: "/acp", h: http.Header{"Authorization": {"Bearer TOKEN"}}, want: 426},
	{name: "/acp without the upgrade or a token", method: "GET", path: "/acp", want: 401},
	{name: "a POST to /acp", method: "POST", path: "/acp", h: http.Header{"Authorization": {"Bearer TOKEN"}, "Origin": {"OWN"}}, want: 405},

	// /session.
	{name: "sign-in with no Origin", method: "POST", path: "/session", body: `{"token":"TOKEN"}`, want: 403},
	{name: "sign-in with the bearer token and no Origin", method: "POST", path: "/session", h: http.Header{"Authorization": {"Bearer TOKEN"}}, body: `{"token":"TOKEN"}`, want: 403},
	{name: "sign-in from another site", method: "POST", path: "/session", h: http.Header{"Origin": {"http://evil.example"}}, body: `{"token":"TOKEN"}`, want: 403},
	{name: "sign-in with a wrong token", method: "POST", path: "/session", h: http.Header{"Origin": {"OWN"}}, body: `{"token":"nope"}`, want: 401},
	{name: "sign-in with a body that is not JSON", method: "POST", path: "/session", h: http.Header{"Origin": {"OWN"}}, body: `token=TOKEN`, want: 400},
	{name: "sign-in with a body over 4 KiB", method: "POST", path: "/session", h: http.Header{"Origin": {"OWN"}}, body: `{"token":"TOKEN","pad":"` + strings.Repeat("x", 5000) + `"}`, want: 413},
	{name: "sign-in", method: "POST", path: "/session", h: http.Header{"Origin": {"OWN"}}, body: `{"token":"TOKEN"}`, want: 204},
	{name: "GET /session", method: "GET", path: "/session", h: http.Header{"Origin": {"OWN"}}, want: 405},
	{name: "sign-out with no Origin", method: "DELETE", path: "/session", want: 403},
	{name: "sign-out from another site", method: "DELETE", path: "/session", h: http.Header{"Origin": {"http://evil.example"}}, want: 403},
	{name: "sign-out", method: "DELETE", path: "/session", h: http.Header{"Origin": {"OWN"}}, want: 204},
}

// TestHostileRequests sends each hostile request and checks its status,
// the headers every response carries, and that no answer holds the token.
func TestHostileRequests(t *testing.T) {
	r := newRig(t, nil)
	token := r.token()
	forged := newSession(strings.Repeat("f", 64))
	fill := strings.NewReplacer("PORT", r.port(), "TOKEN", token, "COOKIE", newSession(token), "FORGED", forged, "OWN", r.origin()).Replace
	for _, tc := range hostileRequests {
		t.Run(tc.name, func(t *testing.T) {
			host := fill(tc.host)
			switch tc.host {
			case "":
				host = r.host()
			case "-":
				host = ""
			}
			h := http.Header{}
			for k, vs := range tc.h {
				for _, v := range vs {
					h.Add(k, fill(v))
				}
			}
			path := fill(tc.path)
			var (
				status int
				header http.Header
				body   string
			)
			if tc.method == "" {
				c, ref, err := wsclient.Dial(r.ln.Addr(), path, h, host)
				switch {
				case err != nil:
					t.Fatalf("upgrade: %v", err)
				case ref != nil:
					status, header, body = ref.Status, ref.Header, ref.Body
				default:
					status, header = http.StatusSwitchingProtocols, c.Header
					roundTrip(t, c, `{"jsonrpc":"2.0","id":1,"method":"x"}`)
					c.Close()
				}
			} else {
				var err error
				status, header, body, err = wsclient.Do(r.ln.Addr(), tc.method, path, h, host, fill(tc.body))
				if err != nil {
					t.Fatalf("%s %s: %v", tc.method, path, err)
				}
			}
			if status != tc.want {
				t.Fatalf("got %d %q, want %d", status, body, tc.want)
			}
			noStore := status >= 400 || strings.HasPrefix(path, "/acp") || strings.HasPrefix(path, "/session")
			checkPageHeaders(t, tc.name, header, noStore)
			if strings.Contains(body, token) {
				t.Errorf("the answer holds the token: %q", body)
			}
			switch status {
			case http.StatusMisdirectedRequest:
				if body != "Host not allowed\n" {
					t.Errorf("the 421's body is %q", body)
				}
			case http.StatusBadRequest:
				if tc.path != "/session" && body != queryTokenRefusal+"\n" {
					t.Errorf("the 400's body is %q", body)
				}
			}
		})
	}
}

// TestPageFiles checks the page's files go out with their types, and
// that the page has no inline script or style for the CSP to refuse.
func TestPageFiles(t *testing.T) {
	r := newRig(t, nil)
	for path, want := range map[string]string{"/": "text/html; charset=utf-8", "/app.js": "text/javascript; charset=utf-8", "/app.css": "text/css; charset=utf-8"} {
		status, h, body, err := wsclient.Do(r.ln.Addr(), "GET", path, nil, r.host(), "")
		if err != nil || status != 200 {
			t.Fatalf("GET %s: %d %v", path, status, err)
		}
		if got := h.Get("Content-Type"); got != want {
			t.Errorf("GET %s: Content-Type %q, want %q", path, got, want)
		}
		if path == "/" {
			for _, inline := range []string{"<script>", "<style", "style=", "onload="} {
				if strings.Contains(body, inline) {
					t.Errorf("the page has inline %q, which the CSP refuses", inline)
				}
			}
		}
		if path == "/app.js" && strings.Contains(body, "innerHTML") {
			t.Errorf("app.js uses innerHTML")
		}
	}
}

// TestAllowReplacesExtras checks that Allow lets in a host and an origin
// it names, and shuts out the ones it no longer names.
func TestAllowReplacesExtras(t *testing.T) {
	r := newRig(t, nil)
	boxHost := "box.example:" + r.port()
	page := func(host string) int {
		t.Helper()
		status, _, _, err := wsclient.Do(r.ln.Addr(), "GET", "/", nil, host, "")
		if err != nil {
			t.Fatalf("GET / with Host %s: %v", host, err)
		}
		return status
	}
	upgrade := func(host, origin string) int {
		t.Helper()
		h := r.bearer()
		h.Set("Origin", origin)
		c, ref, err := wsclient.Dial(r.ln.Addr(), "/acp", h, host)
		if err != nil {
			t.Fatalf("upgrade with Host %s and Origin %s: %v", host, origin, err)
		}
		if ref != nil {
			return ref.Status
		}
		c.Close()
		return 101
	}
	if got := page(boxHost); got != 421 {
		t.Fatalf("Host %s before Allow: %d, want 421", boxHost, got)
	}
	if got := upgrade(r.host(), "https://other.example"); got != 403 {
		t.Fatalf("Origin https://other.example before Allow: %d, want 403", got)
	}
	r.ln.Allow([]string{"box.example", "box2.example:9"}, []string{"https://other.example/"})
	if got := page(boxHost); got != 200 {
		t.Fatalf("Host %s after Allow: %d, want 200", boxHost, got)
	}
	if got := page("box2.example:9"); got != 200 {
		t.Fatalf("Host box2.example:9 after Allow: %d, want 200", got)
	}
	if got := upgrade(boxHost, "http://"+boxHost); got != 101 {
		t.Fatalf("upgrade from the page at %s: %d, want 101", boxHost, got)
	}
	if got := upgrade(r.host(), "https://other.example"); got != 101 {
		t.Fatalf("Origin https://other.example after Allow: %d, want 101", got)
	}
	r.ln.Allow(nil, nil)
	if got := page(boxHost); got != 421 {
		t.Fatalf("Host %s after Allow(nil, nil): %d, want 421", boxHost, got)
	}
	if got := upgrade(r.host(), "https://other.example"); got != 403 {
		t.Fatalf("Origin https://other.example after Allow(nil, nil): %d, want 403", got)
	}
}

func TestHostWithPort(t *testing.T) {
	for in, want := range map[string]string{
		"box":         "box:7433",
		"box:9":       "box:9",
		"::1":         "[::1]:7433",
		"[fe80::1]":   "[fe80::1]:7433",
		"[fe80::1]:9": "[fe80::1]:9",
		"10.0.0.1":    "10.0.0.1:7433",
	} {
		if got := hostWithPort(in, "7433"); got != want {
			t.Errorf("hostWithPort(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHasQueryToken(t *testing.T) {
	for raw, want := range map[string]bool{
		"":                false,
		"token=x":         true,
		"TOKEN":           true,
		"a=1&Token=":      true,
		"%74oken=x":       true,
		"a=1;token=x":     true,
		"tokens=x":        false,
		"x=token":         false,
		"mytoken=x":       false,
		"%zz&token=x":     true,
		"a=%zz;b=2":       false,
		"access_token=x":  false,
		"+token+=x":       true,
		"a&&&token&&&b=c": true,
	} {
		if got := hasQueryToken(raw); got != want {
			t.Errorf("hasQueryToken(%q) = %v, want %v", raw, got, want)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for in, want := range map[string]bool{
		"127.0.0.1:0":    true,
		"127.9.8.7:80":   true,
		"[::1]:7433":     true,
		"localhost:7433": true,
		"LocalHost:1":    true,
		"0.0.0.0:0":      false,
		"[::]:0":         false,
		":7433":          false,
		"10.0.0.1:80":    false,
		"box.local:80":   false,
		"127.0.0.1":      true,
	} {
		if got := IsLoopback(in); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", in, got, want)
		}
	}
}
