package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/acp"
	"github.com/acpmux/acpmux-tui/proto"
)

// notifications are the Method* constants of proto that name a
// notification the server sends, not a method a client calls.
var notifications = []string{proto.MethodEntries}

// protoMethods reads proto's source (every non-test file of the package)
// for its Method* constants, and returns each one's value by name.
func protoMethods(t *testing.T) map[string]string {
	t.Helper()
	dir := filepath.Join("..", "proto")
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	found := map[string]string{}
	for _, de := range des {
		name := de.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if !strings.HasPrefix(id.Name, "Method") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						t.Fatalf("proto.%s is not a string literal", id.Name)
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					found[id.Name] = v
				}
			}
		}
	}
	return found
}

// TestEveryMethodHasOneHandler: every method of the _acpmux/* protocol,
// as proto's source names them (its Method* constants, read from the
// source, so a method added there and forgotten here fails), has exactly
// one entry in the table of typed handlers, and the table has no entry
// proto does not name; a notification has none.
func TestEveryMethodHasOneHandler(t *testing.T) {
	consts := protoMethods(t)
	if len(consts) < 40 {
		t.Fatalf("read %d Method constants from proto's source: the reading is wrong", len(consts))
	}
	byValue := map[string][]string{}
	for name, v := range consts {
		byValue[v] = append(byValue[v], name)
	}
	for v, names := range byValue {
		if !strings.HasPrefix(v, "_acpmux/") {
			t.Errorf("proto.%s = %q is no _acpmux/* method", names[0], v)
		}
		if len(names) > 1 {
			slices.Sort(names)
			t.Errorf("%q is named by %s: one method, one constant", v, strings.Join(names, " and "))
		}
		_, has := methods[v]
		switch notification := slices.Contains(notifications, v); {
		case notification && has:
			t.Errorf("%s (proto.%s) is a notification the server sends, yet has a handler", v, names[0])
		case !notification && !has:
			t.Errorf("%s (proto.%s) has no handler in the table (methods.go)", v, names[0])
		}
	}
	for v := range methods {
		if _, ok := byValue[v]; !ok {
			t.Errorf("the table answers %q, which proto does not name", v)
		}
	}
}

// TestEveryMethodIsDecidedForTheWeb holds the web's table (webpolicy.go)
// to the server's and the door's: a method added later is served to web
// callers, with its paths checked, or refused with a reason, never let
// through by being forgotten.
func TestEveryMethodIsDecidedForTheWeb(t *testing.T) {
	for m := range methods {
		_, served := webRules[m]
		why, refused := webRefused[m]
		switch {
		case served && refused:
			t.Errorf("%s is both served to the web and refused to it", m)
		case !served && !refused:
			t.Errorf("%s is neither served to web callers (webRules) nor refused to them with a reason (webRefused)", m)
		case refused && why == "":
			t.Errorf("%s is refused to web callers without a reason", m)
		}
	}
	for _, m := range acp.Methods() {
		_, served := webRules[m]
		why, refused := webRefused[m]
		switch {
		case served && refused:
			t.Errorf("the door's %s is both served to the web and refused to it", m)
		case !served && !refused:
			t.Errorf("the door's %s is not decided for web callers (webRules or webRefused)", m)
		case refused && why == "":
			t.Errorf("the door's %s is refused to web callers without a reason", m)
		}
	}
	for m := range webRules {
		if _, ok := methods[m]; !ok && !slices.Contains(acp.Methods(), m) {
			t.Errorf("webRules names %q, which neither the server nor the door answers", m)
		}
	}
}
