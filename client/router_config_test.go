package client

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

// hostNames is the names of the hosts a Router heads, local first.
func hostNames(rt *Router) []string {
	var out []string
	for _, h := range rt.Hosts() {
		out = append(out, h.Name)
	}
	return out
}

// waitHosts waits, with a deadline, until the Router heads want.
func waitHosts(t *testing.T, rt *Router, what string, want ...string) {
	t.Helper()
	deadline := time.NewTimer(hangDeadline)
	defer deadline.Stop()
	for !slices.Equal(hostNames(rt), want) {
		select {
		case <-rt.HostsChanged():
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s: the Router heads %v, want %v", what, hostNames(rt), want)
		}
	}
}

// TestRouterFollowsTheConfig: a Router heads the hosts its local server's
// config names, as the server tells them: a host added to the file is
// headed (and dialled), one taken out dropped, with no call made; the
// harness table comes with it (Config, ConfigChanged). A new server (its
// generations counted from 1 again) is followed as well.
func TestRouterFollowsTheConfig(t *testing.T) {
	h := home(t)
	killAtEnd(t, h)
	path := os.Getenv("ACPMUX_CONFIG")
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// ssh fails at once for these hosts: they are headed, down.
	host := func(name string) string {
		return "[host." + name + "]\nssh = \"" + name + "\"\nssh_options = [\"-o\", \"ProxyCommand=false\"]\n"
	}
	write("default_harness = \"shell\"\n")
	r := openRemote(t, h)
	r.Follow(h, binary)
	rt := NewRouter(r, nil)
	t.Cleanup(rt.Close)
	rt.FollowConfig()
	waitConfig(t, rt, "the first config", func(cfg proto.ConfigResult) bool {
		_, ok := cfg.Harness("shell")
		return ok && len(cfg.Hosts) == 0
	})

	write("default_harness = \"shell\"\n" + host("far"))
	waitHosts(t, rt, "the host added", "local", "far")
	write("default_harness = \"shell\"\n" + host("far") + host("near"))
	waitHosts(t, rt, "the second host added", "local", "far", "near")
	write("default_harness = \"shell\"\n" + host("near"))
	waitHosts(t, rt, "the first host taken out", "local", "near")
	if rt.HostRemote("far") != nil {
		t.Fatal("the host taken out still has a Remote")
	}
	if _, err := rt.on("far"); err == nil {
		t.Fatal("a call to the host taken out is routed")
	}

	// A new server: the Router follows its config too.
	if _, err := KillServer(ctx(t), h); err != nil {
		t.Fatal(err)
	}
	write("default_harness = \"shell\"\n" + host("other"))
	c, err := EnsureServer(h, binary)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	waitHosts(t, rt, "the new server's host", "local", "other")
	if cfg, err := rt.ReadConfig(); err != nil || len(cfg.Hosts) != 1 || cfg.Hosts[0].Name != "other" {
		t.Fatalf("ReadConfig: %+v, %v", cfg, err)
	}
}

// waitConfig waits, with a deadline, until the config the Router heard
// satisfies ok.
func waitConfig(t *testing.T, rt *Router, what string, ok func(proto.ConfigResult) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
	defer cancel()
	for {
		if cfg, told := rt.Config(); told && ok(cfg) {
			return
		}
		select {
		case <-rt.ConfigChanged():
		case <-ctx.Done():
			cfg, _ := rt.Config()
			t.Fatalf("timed out waiting for %s: last config %+v", what, cfg)
		}
	}
}
