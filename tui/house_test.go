package tui

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// storeType is the chat store's type, which the TUI must not hold: the
// server is its one source of chats (issue 24, "the house").
const storeType = "github.com/acpmux/acpmux-tui/sessions.Store"

// TestTUIHoldsNoStore type-checks the tui packages as they build (its
// non-test files, against the compiler's export data of what it imports)
// and fails at every place that has a *sessions.Store or a
// sessions.Store in its type: a field, a parameter, a variable, a result,
// a call that returns one. Names are not enough: a store made by
// sessions.OpenStore is a store without the word in sight.
func TestTUIHoldsNoStore(t *testing.T) {
	for _, dir := range []string{".", "./frame"} {
		if found := storeUses(t, dir); len(found) > 0 {
			t.Errorf("the TUI (%s) holds the chat store (%s) at:\n%s", dir, storeType, strings.Join(found, "\n"))
		}
	}
}

// TestStoreUsesFindsAStore: the check above is not blind. A package that
// keeps a store in a field, and one that only opens one, are both caught.
func TestStoreUsesFindsAStore(t *testing.T) {
	for name, src := range map[string]string{
		"field":  "package probe\nimport \"github.com/acpmux/acpmux-tui/sessions\"\ntype M struct{ s *sessions.Store }\nvar _ = M{}.s\n",
		"opened": "package probe\nimport \"github.com/acpmux/acpmux-tui/sessions\"\nfunc f(home string) { _, _ = sessions.OpenStore(home) }\nvar _ = f\n",
	} {
		// Inside the module (it imports sessions), where the build never
		// looks (testdata), gone at the end.
		dir, err := os.MkdirTemp("testdata", "probe-"+name+"-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		if err := os.WriteFile(filepath.Join(dir, "probe.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if found := storeUses(t, "./"+dir); len(found) == 0 {
			t.Errorf("%s: a store in the probe package was not found", name)
		}
	}
}

// storeUses type-checks the package in dir and returns where a type that
// mentions storeType is defined or used.
func storeUses(t *testing.T, dir string) []string {
	t.Helper()
	exports, pkgDir, files := exportData(t, dir)
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, f := range files {
		af, err := parser.ParseFile(fset, filepath.Join(pkgDir, f), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, af)
	}
	lookup := func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, errors.New("no export data for " + path)
		}
		return os.Open(file)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	if _, err := conf.Check("probe", fset, parsed, info); err != nil {
		t.Fatalf("type-check %s: %v", dir, err)
	}
	seen := map[string]bool{}
	add := func(pos token.Pos, typ types.Type) {
		if typ != nil && strings.Contains(types.TypeString(typ, nil), storeType) {
			seen[fset.Position(pos).String()+": "+types.TypeString(typ, nil)] = true
		}
	}
	for e, tv := range info.Types {
		add(e.Pos(), tv.Type)
	}
	for id, obj := range info.Defs {
		if obj != nil {
			add(id.Pos(), obj.Type())
		}
	}
	found := make([]string, 0, len(seen))
	for s := range seen {
		found = append(found, s)
	}
	sort.Strings(found)
	return found
}

// exportData lists the package in dir with the go command: the export
// data of every package it depends on, by import path, its folder and its
// non-test Go files (as the build takes them).
func exportData(t *testing.T, dir string) (map[string]string, string, []string) {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Export,Dir,GoFiles,DepOnly", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", dir, err, stderr.Bytes())
	}
	exports := map[string]string{}
	var pkgDir string
	var files []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			ImportPath, Export, Dir string
			GoFiles                 []string
			DepOnly                 bool
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if !p.DepOnly {
			pkgDir, files = p.Dir, p.GoFiles
		}
	}
	if len(files) == 0 {
		t.Fatalf("go list %s: no Go files", dir)
	}
	return exports, pkgDir, files
}
