package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/sshd"
)

// TestHostsAnsweringAndRefusing: one host answers (its server started by
// proxy), one refuses (a port nobody listens on) with ssh's reason.
func TestHostsAnsweringAndRefusing(t *testing.T) {
	r := newHostRig(t)
	r.writeConfig(fmt.Sprintf("\n[host.down]\nssh = %q\nssh_options = [\"-F\", %q, \"-o\", \"Port=1\"]\ncommand = %q\n",
		sshd.Alias, r.sshd.Config, r.command))
	var rows []hostJSON
	out := r.ok("hosts", "--json")
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("hosts --json: %v\n%s", err, out)
	}
	if len(rows) != 2 || rows[0].Name != "down" || rows[1].Name != "test" {
		t.Fatalf("hosts --json = %s", out)
	}
	if down := rows[0]; down.Answers || !strings.Contains(down.Error, "ssh to host down (test) failed:") || !strings.Contains(down.Error, "Connection refused") {
		t.Fatalf("down = %+v", down)
	}
	if up := rows[1]; !up.Answers || up.Version != version || up.Error != "" {
		t.Fatalf("test = %+v", up)
	}
	text := r.ok("hosts")
	for _, want := range []string{"down  test  does not answer: ssh to host down", "test  test  answers: acpmux-tui " + version + ", 0 chats"} {
		if !strings.Contains(text, want) {
			t.Fatalf("hosts printed:\n%s\nwant a line with %q", text, want)
		}
	}
}

// TestHostsInstall copies this binary to the host's command over ssh, and
// the host then answers with it.
func TestHostsInstall(t *testing.T) {
	r := newHostRig(t)
	dest := filepath.Join(r.root, "installed", "bin", "acpmux-tui")
	r.command = dest
	r.writeConfig("")
	var before []hostJSON
	json.Unmarshal([]byte(r.ok("hosts", "--json")), &before)
	if len(before) != 1 || before[0].Answers || !strings.Contains(before[0].Error, "host test has no acpmux-tui") || !strings.Contains(before[0].Error, "acpmux-tui hosts install test") {
		t.Fatalf("hosts --json before install = %+v", before)
	}
	out := r.ok("hosts", "install", "test")
	if want := "installed acpmux-tui " + version + " on host test at " + dest; !strings.Contains(out, want) {
		t.Fatalf("hosts install printed %q, want %q", out, want)
	}
	got, err := os.ReadFile(dest)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("installed %d bytes, not the %d of the binary", len(got), len(want))
	}
	if st, _ := os.Stat(dest); st.Mode().Perm()&0o100 == 0 {
		t.Fatalf("installed with mode %v", st.Mode())
	}
	if _, err := os.Stat(dest + ".tmp"); err == nil {
		t.Fatal("the temporary copy was left")
	}
	var rows []hostJSON
	json.Unmarshal([]byte(r.ok("hosts", "--json")), &rows)
	if len(rows) != 1 || !rows[0].Answers {
		t.Fatalf("after install, hosts --json = %+v", rows)
	}
}
