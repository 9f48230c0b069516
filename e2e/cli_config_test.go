package e2e

import (
	"os"
	"strings"
	"testing"
)

// TestCLIConfigRefusalsNameFileLineAndKey: a config the harness table
// refuses (a default_harness that names no harness, a new harness with no
// command) stops `harnesses` and `new` alike with status 1, naming the
// file, the line and the key, and writes nothing; fixed, both see the
// harness the file adds.
func TestCLIConfigRefusalsNameFileLineAndKey(t *testing.T) {
	c := newCLI(t)
	for _, tt := range []struct{ text, line, key string }{
		{"scrollback = 100\ndefault_harness = \"aider\"\n", "line 2", "default_harness"},
		{"[harness.aider]\nargs = [\"--yes\"]\n", "line 1", "harness.aider.command"},
	} {
		if err := os.WriteFile(c.config, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{"harnesses", "new"} {
			r := c.run(cmd)
			if r.code != 1 || !strings.Contains(r.stderr, "config "+c.config+": "+tt.line+": "+tt.key) {
				t.Errorf("%s with %q: status %d, stderr %q; want 1 and the file, %s and %s", cmd, tt.text, r.code, r.stderr, tt.line, tt.key)
			}
		}
		if f := c.chatFiles(); len(f) != 0 {
			t.Fatalf("a refused config wrote %v", f)
		}
	}
	if err := os.WriteFile(c.config, []byte("default_harness = \"aider\"\n[harness.aider]\ncommand = \"aider\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := c.ok("harnesses"); !strings.Contains(out, "\naider ") {
		t.Errorf("harnesses lacks the added harness:\n%s", out)
	}
	if j := c.chat("new", "--json"); j.Harness != "aider" {
		t.Errorf("new did not take the default the file names: %+v", j)
	}
}
