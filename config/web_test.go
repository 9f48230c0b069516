package config

import (
	"strings"
	"testing"
)

// TestWebTableRefusesWhatCannotWork: each bad [web] value is refused with
// its key and line, never left for the listener to stumble on.
func TestWebTableRefusesWhatCannotWork(t *testing.T) {
	for _, tc := range []struct{ toml, want string }{
		{"[web]\nlisten = \"7433\"\n", "line 2: web.listen: want host:port"},
		{"[web]\ntls_cert = \"/etc/c.pem\"\n", "web.tls_cert: tls_cert and tls_key go together"},
		{"[web]\ntls_cert = \"c.pem\"\ntls_key = \"/k.pem\"\n", "web.tls_cert: want an absolute path"},
		{"[web]\nroots = [\"src\"]\n", "line 2: web.roots: want absolute paths"},
		{"[web]\nhosts = [\"evil.example/x\"]\n", "web.hosts"},
		{"[web]\norigins = [\"http://box.local/\"]\n", "web.origins"},
		{"[web]\norigins = [\"box.local\"]\n", "web.origins"},
		{"[web]\nport = 1\n", "unknown key \"web.port\""},
	} {
		_, err := Parse([]byte(tc.toml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error with %q", tc.toml, err, tc.want)
		}
	}
	c, err := Parse([]byte("[web]\nlisten = \"127.0.0.1:7433\"\nroots = [\"/srv/src\"]\nhosts = [\"box.local\", \"box.local:8443\"]\norigins = [\"https://box.local:8443\"]\ntls_cert = \"/c.pem\"\ntls_key = \"/k.pem\"\n"))
	if err != nil || c.Web.Listen != "127.0.0.1:7433" || !c.Web.TLS() || len(c.Web.Hosts) != 2 {
		t.Fatalf("a good [web]: %+v %v", c.Web, err)
	}
}
