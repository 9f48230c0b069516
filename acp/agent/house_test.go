package agent

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is the import path every package of the repository starts with.
const module = "github.com/acpmux/acpmux-tui"

// TestHouseArrows: the server path is client → server → (mux | acp) →
// harness. ACP's two sides know nothing of who runs them: the agent side
// (this package) depends on no supervisor, harness table, server or
// client, and the door (package acp) on neither this package's user (mux)
// nor the server; mux depends on no server, client, TUI or door. The
// protocol (proto) is a leaf: of this repository it depends on the line
// codec (internal/rpcline) alone, so whatever imports it to name a wire
// type brings in nothing else; and the transfer machinery depends on no
// supervisor nor server, whose types it used to borrow; nor does the chat
// service, which the mux, the server and the command line call. Each package is
// checked as `go list -deps` lists it; "/..." is a package and every
// package below it, and a package a rule allows is exempt from its forbid.
func TestHouseArrows(t *testing.T) {
	rules := []struct {
		pkg    string
		forbid []string
		allow  []string
	}{
		{"/acp/agent", []string{"/mux/...", "/harness/...", "/server/...", "/client/...", "/tui/...", "/acp"}, nil},
		{"/acp", []string{"/mux/...", "/harness/...", "/server/...", "/client/...", "/tui/..."}, nil},
		{"/mux", []string{"/server/...", "/client/...", "/tui/...", "/acp"}, nil},
		{"/proto", []string{"/..."}, []string{"/proto", "/internal/rpcline"}},
		{"/internal/transfer", []string{"/mux/...", "/server/..."}, nil},
		{"/chatsvc", []string{"/mux/...", "/server/...", "/client/...", "/tui/...", "/acp/..."}, nil},
	}
	if !forbidden(module+"/tui/pane", module+"/tui/...") || forbidden(module+"/acp/agent", module+"/acp") ||
		!forbidden(module+"/sessions", module+"/...") || forbidden("github.com/coder/acp-go-sdk", module+"/...") {
		t.Fatal("the pattern match is wrong")
	}
	for _, r := range rules {
		out, err := exec.Command("go", "list", "-deps", module+r.pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", r.pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range r.forbid {
				if forbidden(dep, module+f) && !slices.ContainsFunc(r.allow, func(a string) bool { return dep == module+a }) {
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
