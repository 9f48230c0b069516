package e2e

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestLsSaysWhenTheServerCannotBeAsked: a server that holds the agent home
// but cannot be asked is never reported as "stopped" chats: `ls` and
// `show` print "server busy" or "not reachable" as each chat's status, and
// say why on stderr.
func TestLsSaysWhenTheServerCannotBeAsked(t *testing.T) {
	for _, tt := range []struct {
		name   string
		setup  func(t *testing.T, c *cli)
		status string
	}{
		{"a server that hangs up on every call", func(t *testing.T, c *cli) {
			ln, err := net.Listen("unix", filepath.Join(c.home, proto.SocketName))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			go func() {
				for {
					nc, err := ln.Accept()
					if err != nil {
						return
					}
					nc.Close()
				}
			}()
		}, "server busy"},
		{"a live server's lock, no socket", func(t *testing.T, c *cli) {
			f, err := os.OpenFile(filepath.Join(c.home, proto.LockName), os.O_CREATE|os.O_RDWR, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(f, "%d\n", os.Getpid())
		}, "not reachable"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t)
			chat := c.chat("new", "--name", "listed", "--json")
			tt.setup(t, c)
			r := c.run("ls")
			if r.code != 0 || !strings.Contains(r.stdout, tt.status) || strings.Contains(r.stdout, "stopped") {
				t.Fatalf("ls exited %d:\n%s\nwant the chat's status %q, never stopped", r.code, r.stdout, tt.status)
			}
			if !strings.Contains(r.stderr, "the server did not answer ("+tt.status+")") {
				t.Fatalf("ls did not say why on stderr: %q", r.stderr)
			}
			if j := c.chat("show", chat.ID, "--json"); j.Status != tt.status {
				t.Fatalf("show --json status %q, want %q", j.Status, tt.status)
			}
		})
	}
}
