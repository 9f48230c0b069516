package agent

import (
	"os/exec"
	"strings"
	"testing"
)

// module is the import path every package of the repository starts with.
const module = "github.com/acpmux/acpmux-tui"

// TestHouseArrows: the server path is client → server → (mux | acp) →
// harness. ACP's two sides know nothing of who runs them: the agent side
// (this package) depends on no supervisor, harness table, server or
// client, and the door (package acp) on neither this package's user (mux)
// nor the server; mux depends on no server, client, TUI or door. Each
// package is checked as `go list -deps` lists it; "/..." is a package and
// every package below it.
func TestHouseArrows(t *testing.T) {
	rules := []struct {
		pkg    string
		forbid []string
	}{
		{"/acp/agent", []string{"/mux/...", "/harness/...", "/server/...", "/client/...", "/tui/...", "/acp"}},
		{"/acp", []string{"/mux/...", "/harness/...", "/server/...", "/client/...", "/tui/..."}},
		{"/mux", []string{"/server/...", "/client/...", "/tui/...", "/acp"}},
	}
	if !forbidden(module+"/tui/pane", module+"/tui/...") || forbidden(module+"/acp/agent", module+"/acp") {
		t.Fatal("the pattern match is wrong")
	}
	for _, r := range rules {
		out, err := exec.Command("go", "list", "-deps", module+r.pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", r.pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range r.forbid {
				if forbidden(dep, module+f) {
					t.Errorf("%s depends on %s", r.pkg, dep)
				}
			}
		}
	}
}

// forbidden reports whether dep matches pattern: a package path, or one
// ending in "/..." for it and every package below it.
func forbidden(dep, pattern string) bool {
	if root, ok := strings.CutSuffix(pattern, "/..."); ok {
		return dep == root || strings.HasPrefix(dep, root+"/")
	}
	return dep == pattern
}
