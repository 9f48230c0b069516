package chatsvc

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the import path every package of the repository starts with.
const module = "github.com/acpmux/acpmux-tui"

// makers are the store's methods that make a chat: only the chat service
// calls them.
var makers = []string{
	"(*" + module + "/sessions.Store).Create",
	"(*" + module + "/sessions.Store).Derive",
}

// mayMake are the packages that may call makers: the store itself (its
// Derive makes the chat with its Create), the chat service, and the
// benchmarks' tools, which fill an agent home with a thousand chats to
// measure.
var mayMake = []string{module + "/sessions", module + "/chatsvc", module + "/internal/benchtool"}

// pkgSource is one package's non-test source files.
type pkgSource struct {
	path, dir string
	files     []string
}

// TestOnlyTheServiceMakesChats: no package of the module but the chat
// service (and the store itself, and the benchmarks' tools) calls the
// store's Create or Derive, as `go list` lists the packages and go/types
// resolves every selector of their non-test files: a client's own Create
// (client.Remote's) is not the store's, and a method value or expression
// of the store's is caught as a call is.
func TestOnlyTheServiceMakesChats(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{.Dir}}|{{join .GoFiles \",\"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkgSource
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 3 {
			t.Fatalf("go list printed %q", line)
		}
		if slices.Contains(mayMake, f[0]) {
			continue
		}
		pkgs = append(pkgs, pkgSource{path: f[0], dir: f[1], files: strings.Split(f[2], ",")})
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages to check: the listing is wrong", len(pkgs))
	}
	if found := storeMakers(t, pkgs); len(found) > 0 {
		t.Errorf("only the chat service (package chatsvc) makes chats; these call the store's Create or Derive:\n%s", strings.Join(found, "\n"))
	}
}

// TestStoreMakersFindsTheCalls: the check above is not blind. A probe
// package that calls the store's Create, takes its Derive as a method
// value and as a method expression, is caught at each, and its call of a
// client's Create (client.Remote) is not.
func TestStoreMakersFindsTheCalls(t *testing.T) {
	// Inside the module (it imports the module's packages), where the
	// build never looks (testdata), gone at the end.
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("testdata", "probe-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.RemoveAll(dir)
		os.Remove("testdata") // when the probe was all it held
	})
	src := `package probe

import (
	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/sessions"
)

func made(store *sessions.Store, r *client.Remote) {
	store.Create(sessions.NewChat{Harness: "shell"}) // CALL
	derive := store.Derive                          // VALUE
	derive("p", sessions.Derivation{})
	_ = (*sessions.Store).Derive                    // EXPRESSION
	r.Create(sessions.NewChat{})                    // a client's: not the store's
}
`
	if err := os.WriteFile(filepath.Join(dir, "probe.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	found := storeMakers(t, []pkgSource{{path: module + "/chatsvc/" + filepath.ToSlash(dir), dir: abs, files: []string{"probe.go"}}})
	lines := strings.Split(src, "\n")
	var want []int
	for i, l := range lines {
		if strings.Contains(l, "// CALL") || strings.Contains(l, "// VALUE") || strings.Contains(l, "// EXPRESSION") {
			want = append(want, i+1)
		}
	}
	if len(found) != len(want) {
		t.Fatalf("found %d uses, want %d (lines %v):\n%s", len(found), len(want), want, strings.Join(found, "\n"))
	}
	for i, line := range want {
		if !strings.Contains(found[i], "probe.go:"+strconv.Itoa(line)+":") {
			t.Errorf("use %d: %s, want line %d", i, found[i], line)
		}
	}
}

// storeMakers type-checks each package from source (go/types, with the
// source importer: no compiled export data is needed) and returns each
// use of a maker in it, "file:line:col: package uses method", in order.
// Only packages with a selector named like a maker are checked.
func storeMakers(t *testing.T, pkgs []pkgSource) []string {
	t.Helper()
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	var found []string
	for _, p := range pkgs {
		var files []*ast.File
		named := false
		for _, name := range p.files {
			if name == "" {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(p.dir, name), nil, 0)
			if err != nil {
				t.Fatalf("%s: %v", p.path, err)
			}
			files = append(files, f)
			ast.Inspect(f, func(n ast.Node) bool {
				if s, ok := n.(*ast.SelectorExpr); ok && (s.Sel.Name == "Create" || s.Sel.Name == "Derive") {
					named = true
				}
				return !named
			})
		}
		if !named {
			continue
		}
		info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
		var typeErr error
		conf := types.Config{Importer: imp, Error: func(err error) {
			if typeErr == nil {
				typeErr = err
			}
		}}
		conf.Check(p.path, fset, files, info)
		if typeErr != nil {
			t.Fatalf("type-check %s: %v", p.path, typeErr)
		}
		var uses []token.Pos
		for sel, s := range info.Selections {
			if fn, ok := s.Obj().(*types.Func); ok && slices.Contains(makers, fn.FullName()) {
				uses = append(uses, sel.Sel.Pos())
			}
		}
		slices.Sort(uses)
		for _, pos := range uses {
			found = append(found, fset.Position(pos).String()+": "+p.path+" uses the store's "+nameAt(fset, files, pos))
		}
	}
	return found
}

// nameAt is the method named at pos.
func nameAt(fset *token.FileSet, files []*ast.File, pos token.Pos) string {
	for _, f := range files {
		var name string
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Pos() == pos {
				name = id.Name
			}
			return name == ""
		})
		if name != "" {
			return name
		}
	}
	return "?"
}
