package house

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// module is the import path every package of the repository starts with.
const module = "github.com/acpmux/acpmux-tui"

// rule is one line of the house: a package (or, with "/...", a package and
// every package below it) that may not depend on forbid, but for what
// allow names. withTests checks what its tests bring in too.
type rule struct {
	pkg       string
	forbid    []string
	allow     []string
	withTests bool
	why       string
}

// rules are the arrows the repository holds (ARCHITECTURE.md, "The
// arrows"). A client speaks the protocol alone; the server path is client
// → socket → server → (mux | acp) → harness; the wire's types are a leaf.
var rules = []rule{
	{pkg: "/proto", forbid: []string{"/..."}, allow: []string{"/proto", "/internal/rpcline"},
		why: "the wire's types are a leaf: whatever names one brings in nothing else of ours"},
	{pkg: "/sessions", forbid: []string{"/mux/...", "/server/...", "/client/...", "/tui/...", "/acp/...", "/chatsvc/...", "/harness/..."},
		why: "the chat model and the store know nothing of who runs or shows a chat"},
	{pkg: "/chatsvc", forbid: []string{"/mux/...", "/server/...", "/client/...", "/tui/...", "/acp/..."},
		why: "the chat service is called by the CLI, the server, the door, import and the pool; it calls none of them"},
	{pkg: "/internal/transfer", forbid: []string{"/mux/...", "/server/..."},
		why: "export and import work on the store and the service, not the supervisor"},
	{pkg: "/acp/agent", forbid: []string{"/mux/...", "/harness/...", "/server/...", "/client/...", "/tui/...", "/acp"},
		why: "the agent side of ACP knows nothing of who runs it"},
	{pkg: "/acp", forbid: []string{"/mux/...", "/harness/...", "/server/...", "/client/...", "/tui/..."},
		why: "the door knows no supervisor: the server gives it a backend"},
	{pkg: "/mux", forbid: []string{"/server/...", "/client/...", "/tui/...", "/acp"},
		why: "the supervisor knows no socket, client or door"},
	{pkg: "/tui/...", forbid: []string{"/mux/...", "/server/...", "/acp/...", "/internal/transfer/..."}, withTests: true,
		why: "the TUI is a client of the server: it speaks proto through package client"},
	{pkg: "/client", forbid: []string{"/mux/...", "/server/...", "/acp/...", "/internal/transfer/..."}, withTests: true,
		why: "a client reaches the server through the socket alone"},
	{pkg: "/sandbox", forbid: []string{"/..."}, allow: []string{"/sandbox"},
		why: "the bound is computed by its callers; restricting a process knows nothing of chats"},
	{pkg: "/web", forbid: []string{"/..."}, allow: []string{"/web", "/web/...", "/internal/testharness/wsclient", "/internal/testharness/lockedbuf", "/internal/testharness/wait"}, withTests: true,
		why: "the web door's HTTP side is guards and a transport: what a web caller may do is the server's to decide"},
}

// TestHouseRules: every package of the table depends on nothing its rule
// forbids, as `go list -deps` lists it; each break is named with the chain
// of imports that brings it in.
func TestHouseRules(t *testing.T) {
	root := moduleRoot(t)
	for _, r := range rules {
		if found := breaks(t, root, r, module+r.pkg); len(found) > 0 {
			t.Errorf("%s may not depend on %s (%s), but:\n%s", r.pkg, strings.Join(r.forbid, ", "), r.why, strings.Join(found, "\n"))
		}
	}
}

// TestHouseRulesSeeAProbe: the check is not blind. A probe package, put
// where each rule looks (below a package of the table, in its testdata,
// which the build never takes), that imports what the rule forbids,
// directly or through a package of its own, is caught with its chain.
func TestHouseRulesSeeAProbe(t *testing.T) {
	if !matches(module+"/tui/pane", module+"/tui/...") || matches(module+"/acp/agent", module+"/acp") ||
		!matches(module+"/sessions", module+"/...") || matches("github.com/coder/acp-go-sdk", module+"/...") {
		t.Fatal("the pattern match is wrong")
	}
	root := moduleRoot(t)
	for _, tc := range []struct {
		name, imports string
		rule          rule
		want          string
	}{
		{"proto imports the store", module + "/sessions", rules[0], "/sessions"},
		{"the door imports the mux", module + "/mux", rules[5], "/mux"},
		{"the TUI imports the server, through a package of its own", "PROBE/inner", rules[7], "inner → " + module + "/server"},
		{"transfer imports the mux", module + "/mux", rules[3], "/mux"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testdata := filepath.Join(root, "internal", "house", "testdata")
			if err := os.MkdirAll(testdata, 0o755); err != nil {
				t.Fatal(err)
			}
			dir, err := os.MkdirTemp(testdata, "probe-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			probe := module + "/internal/house/testdata/" + filepath.Base(dir)
			files := map[string]string{"probe.go": "package probe\nimport _ \"" + strings.ReplaceAll(tc.imports, "PROBE", probe) + "\"\n"}
			if strings.HasPrefix(tc.imports, "PROBE/") {
				files["inner/inner.go"] = "package inner\nimport _ \"" + module + "/server\"\n"
			}
			for name, src := range files {
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			found := strings.Join(breaks(t, root, tc.rule, probe), "\n")
			if !strings.Contains(found, tc.want) {
				t.Errorf("the probe breaking %q was not caught; found:\n%s", tc.rule.pkg, found)
			}
		})
	}
}

// breaks lists what pattern depends on that the rule forbids, each as the
// chain of imports from a package of the pattern to it.
func breaks(t *testing.T, root string, r rule, pattern string) []string {
	t.Helper()
	args := []string{"list", "-deps", "-json=ImportPath,Imports,DepOnly"}
	if r.withTests {
		args = append(args, "-test")
	}
	cmd := exec.Command("go", append(args, pattern)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s %s: %v\n%s", strings.Join(args, " "), pattern, err, stderr.Bytes())
	}
	imports := map[string][]string{}
	var roots []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
			DepOnly    bool
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("go list: %v", err)
		}
		imports[p.ImportPath] = p.Imports
		if !p.DepOnly {
			roots = append(roots, p.ImportPath)
		}
	}
	if len(roots) == 0 {
		t.Fatalf("go list: no package matched %s", pattern)
	}
	// A breadth-first walk from the roots (the packages checked, never
	// deps of their own): the first way to reach a package is the
	// shortest chain to it.
	from := map[string]string{}
	for _, p := range roots {
		from[p] = ""
	}
	queue := slices.Clone(roots)
	var found []string
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if from[p] != "" && r.forbids(p) {
			found = append(found, chain(from, p))
			continue
		}
		for _, dep := range imports[p] {
			if _, seen := from[dep]; !seen {
				from[dep] = p
				queue = append(queue, dep)
			}
		}
	}
	sort.Strings(found)
	return found
}

// forbids reports whether the rule forbids depending on dep; the rule's
// own packages never are.
func (r rule) forbids(dep string) bool {
	// A test's variant of a package is listed as "path [pkg.test]".
	dep, _, _ = strings.Cut(dep, " ")
	if matches(dep, module+r.pkg) {
		return false
	}
	if slices.ContainsFunc(r.allow, func(a string) bool { return matches(dep, module+a) }) {
		return false
	}
	return slices.ContainsFunc(r.forbid, func(f string) bool { return matches(dep, module+f) })
}

// matches reports whether dep is pattern: a package path, or one ending in
// "/..." for it and every package below it.
func matches(dep, pattern string) bool {
	if root, ok := strings.CutSuffix(pattern, "/..."); ok {
		return dep == root || strings.HasPrefix(dep, root+"/")
	}
	return dep == pattern
}

// chain is the import chain that reached p, from its root, the module's
// prefix left out of all but the last link.
func chain(from map[string]string, p string) string {
	links := []string{p}
	for q := from[p]; q != ""; q = from[q] {
		links = append([]string{strings.TrimPrefix(q, module+"/")}, links...)
	}
	return strings.Join(links, " → ")
}

// moduleRoot is the folder of the module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}
