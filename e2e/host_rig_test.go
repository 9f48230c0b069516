package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/internal/testharness/sshd"
)

// hostRig is a cli whose config names [host.test]: a real sshd on a
// loopback port, reached with a generated ssh config (host-key checking
// on), and behind it a second agent home served by the test-built binary.
type hostRig struct {
	*cli
	sshd *sshd.Server
	// remoteHome is the agent home of the far side.
	remoteHome string
	// remoteConfig is the far side's config file (ACPMUX_CONFIG there).
	remoteConfig string
	// command is the host's `command`: a script that runs the test-built
	// acpmux-tui with the far side's config.
	command string
}

func newHostRig(t testing.TB) *hostRig {
	t.Helper()
	s := sshd.Require(t)
	c := newCLI(t)
	// The commands find ssh on their PATH, and nothing else.
	ssh, err := exec.LookPath("ssh")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(ssh, filepath.Join(c.root, "bin", "ssh")); err != nil {
		t.Fatal(err)
	}
	r := &hostRig{cli: c, sshd: s, remoteHome: filepath.Join(c.root, "remote-agent"),
		remoteConfig: filepath.Join(c.root, "remote-config.toml"), command: filepath.Join(c.root, "remote-bin", "acpmux-tui")}
	if err := os.MkdirAll(filepath.Dir(r.command), 0o755); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\nACPMUX_CONFIG=%s SHELL=/bin/sh exec %s \"$@\"\n", client.ShellWord(r.remoteConfig), client.ShellWord(binary))
	if err := os.WriteFile(r.command, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.remoteConfig, []byte("default_harness = \"shell\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.writeConfig("")
	// The far side's server outlives ssh: stop it at the end.
	t.Cleanup(func() {
		cmd := exec.Command(binary, "kill-server")
		cmd.Env = []string{"ACPMUX_HOME=" + r.remoteHome, "ACPMUX_CONFIG=" + r.remoteConfig, "PATH=/usr/bin:/bin"}
		cmd.Run()
	})
	return r
}

// writeConfig writes the local config: [host.test] and what more says.
func (r *hostRig) writeConfig(more string) {
	r.t.Helper()
	conf := fmt.Sprintf("[host.test]\nssh = %q\nssh_options = [\"-F\", %q]\nhome = %q\ncommand = %q\n%s",
		sshd.Alias, r.sshd.Config, r.remoteHome, r.command, more)
	if err := os.WriteFile(r.config, []byte(conf), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// host is [host.test] as the config has it.
func (r *hostRig) host() client.Host {
	r.t.Helper()
	cfg, err := config.Load(r.config)
	if err != nil {
		r.t.Fatal(err)
	}
	return client.Host{Name: "test", HostConfig: cfg.Host["test"]}
}

// TestHostLinkHello dials [host.test] over the real sshd: `proxy` over
// there starts the far side's server in its own agent home and the hello
// carries this build's protocol.
func TestHostLinkHello(t *testing.T) {
	r := newHostRig(t)
	c, err := client.DialHost(context.Background(), r.host())
	if err != nil {
		t.Fatalf("dial host test: %v\nsshd log:\n%s", err, r.sshd.Log())
	}
	defer c.Close()
	h, err := c.Hello(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h.Version != version || h.Pid <= 0 {
		t.Fatalf("hello = %+v", h)
	}
	if _, err := os.Stat(filepath.Join(r.remoteHome, "acpmux.sock")); err != nil {
		t.Fatalf("no server socket in the remote home: %v", err)
	}
	if _, err := os.Stat(filepath.Join(r.home, "acpmux.sock")); err == nil {
		t.Fatalf("a server started in the local home too")
	}
}

// TestHostLinkNoBinary: the host's command is not there; the error says
// so and how to install it.
func TestHostLinkNoBinary(t *testing.T) {
	r := newHostRig(t)
	h := r.host()
	h.Command = filepath.Join(r.root, "nowhere", "acpmux-tui")
	_, err := client.DialHost(context.Background(), h)
	if err == nil {
		t.Fatal("dial with no acpmux-tui over there succeeded")
	}
	for _, want := range []string{"host test has no acpmux-tui", "acpmux-tui hosts install test"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q lacks %q", err, want)
		}
	}
}

// TestHostLinkSSHRefused: ssh cannot log in (a port nobody listens on);
// ssh's own reason is given.
func TestHostLinkSSHRefused(t *testing.T) {
	r := newHostRig(t)
	h := r.host()
	_, err := client.DialHost(context.Background(), h, "-o", "Port=1")
	if err == nil {
		t.Fatal("dial to port 1 succeeded")
	}
	if !strings.Contains(err.Error(), "ssh to host test (test) failed:") || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("error %q does not give ssh's reason", err)
	}
}

// TestHostLinkOtherProtocol: what answers over there is an acpmux-tui
// that speaks another version of the protocol (its hello has none); the
// error says so and how to install this one.
func TestHostLinkOtherProtocol(t *testing.T) {
	r := newHostRig(t)
	old := filepath.Join(r.root, "old-bin", "acpmux-tui")
	if err := os.MkdirAll(filepath.Dir(old), 0o755); err != nil {
		t.Fatal(err)
	}
	// An older build's proxy: it answers hello without a protocol.
	script := "#!/bin/sh\nread line\nid=$(printf '%s' \"$line\" | sed 's/.*\"id\":\\([0-9]*\\).*/\\1/')\n" +
		"printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"version\":\"0.0.9\",\"pid\":1}}\\n' \"$id\"\nread line\n"
	if err := os.WriteFile(old, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	h := r.host()
	h.Command = old
	_, err := client.DialHost(context.Background(), h)
	if err == nil {
		t.Fatal("dial of a host speaking another protocol succeeded")
	}
	want := "host test runs acpmux-tui 0.0.9, which speaks protocol 0; this one speaks 1: install it with: acpmux-tui hosts install test"
	if err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
}

// BenchmarkHostLs is one `ls --host test` (ssh's login, the proxy, hello,
// list) against BenchmarkHostSSHTrue, ssh's login alone, on the same sshd.
func BenchmarkHostLs(b *testing.B) {
	r := newHostRig(b)
	r.ok("ls", "--host", "test") // the far server started once
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.ok("ls", "--host", "test")
	}
}

// BenchmarkHostSSHTrue is `ssh -F CONFIG test true`.
func BenchmarkHostSSHTrue(b *testing.B) {
	r := newHostRig(b)
	for i := 0; i < b.N; i++ {
		if out, err := exec.Command("ssh", "-F", r.sshd.Config, sshd.Alias, "true").CombinedOutput(); err != nil {
			b.Fatalf("ssh true: %v %s", err, out)
		}
	}
}
