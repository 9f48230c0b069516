package config

import (
	"net"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// WebConfig is the `[web]` table: the web door, ACP over a WebSocket for a
// browser or any network client.
//
//	[web]
//	listen = "127.0.0.1:7433"          # opened whenever the server starts
//	roots = ["/home/me/src"]           # the folders a web caller may name
//	hosts = ["box.local"]              # extra Host names (with or without :port)
//	origins = ["https://box.local:7433"] # extra exact origins
//	tls_cert = "/etc/acpmux/cert.pem"  # with tls_key: HTTPS, and a listen
//	tls_key = "/etc/acpmux/key.pem"    # address off loopback is allowed
type WebConfig struct {
	Listen  string   `toml:"listen"`
	Roots   []string `toml:"roots"`
	Hosts   []string `toml:"hosts"`
	Origins []string `toml:"origins"`
	TLSCert string   `toml:"tls_cert"`
	TLSKey  string   `toml:"tls_key"`
	// Sandbox is whether chats made over the web door are sandboxed
	// (default true): a page cannot turn it off, only this can.
	Sandbox *bool `toml:"sandbox"`
}

// Sandboxed reports whether chats made over the web door are sandboxed.
func (w WebConfig) Sandboxed() bool { return w.Sandbox == nil || *w.Sandbox }

// TLS reports whether the web door serves HTTPS.
func (w WebConfig) TLS() bool { return w.TLSCert != "" && w.TLSKey != "" }

// checkWeb refuses a [web] table whose values cannot work: an address that
// is not host:port, a relative root or key file, a host or an origin with
// characters no Host header or origin has, one of tls_cert and tls_key
// without the other.
func (c *Config) checkWeb(bad func(toml.Key, string, ...any) error) error {
	w := c.Web
	if w.Listen != "" {
		if _, _, err := net.SplitHostPort(w.Listen); err != nil {
			return bad(toml.Key{"web", "listen"}, "want host:port, such as 127.0.0.1:7433 (%v)", err)
		}
	}
	if (w.TLSCert == "") != (w.TLSKey == "") {
		return bad(toml.Key{"web", "tls_cert"}, "tls_cert and tls_key go together")
	}
	for _, k := range []struct{ name, path string }{{"tls_cert", w.TLSCert}, {"tls_key", w.TLSKey}} {
		if k.path != "" && !filepath.IsAbs(k.path) {
			return bad(toml.Key{"web", k.name}, "want an absolute path, got %q", k.path)
		}
	}
	for _, r := range w.Roots {
		if !filepath.IsAbs(r) || strings.ContainsRune(r, 0) {
			return bad(toml.Key{"web", "roots"}, "want absolute paths, got %q", r)
		}
	}
	for _, h := range w.Hosts {
		if h == "" || strings.ContainsAny(h, "/ \t\r\n\x00@?#") {
			return bad(toml.Key{"web", "hosts"}, "%q is not a host name (name or name:port)", h)
		}
	}
	for _, o := range w.Origins {
		if !validOrigin(o) {
			return bad(toml.Key{"web", "origins"}, "%q is not an origin (scheme://host[:port], nothing after)", o)
		}
	}
	return nil
}

// validOrigin reports whether o is an origin as browsers send it:
// http(s)://host[:port] and no path, query or user.
func validOrigin(o string) bool {
	rest, ok := strings.CutPrefix(o, "https://")
	if !ok {
		rest, ok = strings.CutPrefix(o, "http://")
	}
	return ok && rest != "" && !strings.ContainsAny(rest, "/ \t\r\n\x00@?#")
}
