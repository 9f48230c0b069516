package tui

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// module is the import path every package of the repository starts with.
const module = "github.com/acpmux/acpmux-tui"

// forbiddenForClients says whether a client (the TUI, package client) may
// not depend on the package at path: the supervisor (mux and below it), the
// server, the ACP code the server runs, and the transfer machinery (its
// reports cross the socket, so they live in proto). A client speaks the
// protocol package (proto); the server path alone is server → (mux | acp)
// → harness (issue 24, "the house").
func forbiddenForClients(path string) bool {
	// A test's variant of a package is listed as "path [pkg.test]".
	path, _, _ = strings.Cut(path, " ")
	for _, p := range []string{"/mux", "/server", "/acp", "/internal/transfer"} {
		root := module + p
		if path == root || strings.HasPrefix(path, root+"/") {
			return true
		}
	}
	return false
}

// TestClientsImportNoSupervisor: the TUI (with its subpackages) and the
// client package, their tests included, depend on no package of mux, the
// server, acp nor internal/transfer, as `go list -deps -test` lists them.
// Each one found is named with the chain of imports that brings it in.
func TestClientsImportNoSupervisor(t *testing.T) {
	found := clientDeps(t, module+"/tui/...", module+"/client")
	if len(found) > 0 {
		t.Errorf("a client depends on the supervisor or the server:\n%s", strings.Join(found, "\n"))
	}
}

// TestClientDepsFindsTheSupervisor: the check above is not blind. A package
// that imports mux itself, and one that imports it through a package of
// its own, are both caught, each with its chain.
func TestClientDepsFindsTheSupervisor(t *testing.T) {
	probes := map[string]map[string]string{
		"direct": {"probe.go": "package probe\nimport _ \"" + module + "/mux\"\n"},
		"through": {
			"probe.go":     "package probe\nimport _ \"" + module + "/tui/testdata/PROBE/inner\"\n",
			"inner/in.go":  "package inner\nimport _ \"" + module + "/server\"\n",
			"inner/doc.go": "// Package inner brings the server in.\npackage inner\n",
		},
	}
	for name, files := range probes {
		// Inside the module (it imports the module's packages), where the
		// build never looks (testdata), gone at the end.
		dir, err := os.MkdirTemp("testdata", "probe-"+name+"-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		for file, src := range files {
			src = strings.ReplaceAll(src, "PROBE", filepath.Base(dir))
			path := filepath.Join(dir, file)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		found := clientDeps(t, "./"+dir)
		want := module + "/mux"
		if name == "through" {
			want = "inner → " + module + "/server"
		}
		if !strings.Contains(strings.Join(found, "\n"), want) {
			t.Errorf("%s: the probe's %s was not found; found:\n%s", name, want, strings.Join(found, "\n"))
		}
	}
}

// clientDeps lists the packages the patterns match, and everything they and
// their tests depend on, and returns each forbidden one with the chain of
// imports from a package of the patterns to it.
func clientDeps(t *testing.T, patterns ...string) []string {
	t.Helper()
	args := append([]string{"list", "-deps", "-test", "-json=ImportPath,Imports,DepOnly,ForTest"}, patterns...)
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
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
		t.Fatalf("go %s: no package matched", strings.Join(args, " "))
	}
	// A breadth-first walk from the roots: the first way to reach each
	// package is the shortest chain to it.
	from := map[string]string{}
	queue := append([]string(nil), roots...)
	for _, r := range roots {
		from[r] = ""
	}
	var found []string
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if forbiddenForClients(p) {
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

// chain is the import chain that reached p, from its root, the module's
// prefix left out of all but the last link.
func chain(from map[string]string, p string) string {
	links := []string{p}
	for q := from[p]; q != ""; q = from[q] {
		links = append([]string{strings.TrimPrefix(q, module+"/")}, links...)
	}
	return strings.Join(links, " → ")
}
