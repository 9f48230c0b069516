package server

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// writeFiles makes each file (with its folders) under root.
func writeFiles(t *testing.T, root string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func fileNames(fs []proto.FileMatch) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

// TestFilesRanksTheChatsFiles: _acpmux/files offers the chat's own file
// first, then its folder's and its added folder's files, best match
// first (no hidden file, nothing under node_modules); the limit cuts the
// answer and says so; a bad call is -32602.
func TestFilesRanksTheChatsFiles(t *testing.T) {
	r := newRig(t, rigOpt{})
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj, lib := filepath.Join(base, "proj"), filepath.Join(base, "lib")
	writeFiles(t, base, "proj/src/parser.go", "proj/src/lexer.go", "proj/README.md", "proj/.git/HEAD",
		"proj/node_modules/pars/index.js", "lib/parse_util.go", "specs/api.md")
	own := filepath.Join(base, "specs/api.md")
	w := r.dial()
	var c proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Cwd: proj, AdditionalDirectories: []string{lib}, AdditionalFiles: []string{own}}, &c)

	var res proto.FilesResult
	w.ok(proto.MethodFiles, proto.FilesParams{ID: c.ID, Query: "pars"}, &res)
	if got := fileNames(res.Files); !slices.Equal(got, []string{"src/parser.go", "lib/parse_util.go"}) || res.Truncated {
		t.Fatalf("pars: %q (truncated %v)", got, res.Truncated)
	}
	if res.Files[0].Path != filepath.Join(proj, "src/parser.go") || res.Files[0].URI != "file://"+res.Files[0].Path || res.Files[0].Own {
		t.Fatalf("pars' first file: %+v", res.Files[0])
	}
	w.ok(proto.MethodFiles, proto.FilesParams{ID: c.ID, Query: "", Limit: 2}, &res)
	if got := fileNames(res.Files); !slices.Equal(got, []string{own, "README.md"}) || !res.Truncated || !res.Files[0].Own {
		t.Fatalf("the first two: %+v (truncated %v)", res.Files, res.Truncated)
	}
	w.ok(proto.MethodFiles, proto.FilesParams{ID: c.ID, Query: "zzz"}, &res)
	if res.Files == nil || len(res.Files) != 0 {
		t.Fatalf("zzz: %+v, want an empty array", res.Files)
	}

	// A chat in its own folder (inside the agent home) lists that folder.
	var home proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{}, &home)
	writeFiles(t, home.Cwd, "notes.txt")
	w.ok(proto.MethodFiles, proto.FilesParams{ID: home.ID, Query: "note"}, &res)
	if got := fileNames(res.Files); !slices.Equal(got, []string{"notes.txt"}) {
		t.Fatalf("the own folder's files: %q", got)
	}

	for what, p := range map[string]proto.FilesParams{
		"an unknown chat":  {ID: "nosuch", Query: "x"},
		"a hostile id":     {ID: "../../etc", Query: "x"},
		"no id":            {Query: "x"},
		"a huge query":     {ID: c.ID, Query: strings.Repeat("a", maxFilesQuery+1)},
		"a negative limit": {ID: c.ID, Limit: -1},
	} {
		if e := w.fails(proto.CodeInvalidParams, proto.MethodFiles, p); e.Message == "" {
			t.Errorf("%s: refused without a message", what)
		}
	}
}

// TestFilesHoldsAWebCallerToTheWebRoots: a web caller is offered the
// files of the chat's folder and of its folders and files inside the web
// roots, never those outside (the note says some were left out), though
// a local client is offered them; an unknown chat is -32602.
func TestFilesHoldsAWebCallerToTheWebRoots(t *testing.T) {
	r := newRig(t, rigOpt{})
	f := r.webFolders()
	writeFiles(t, f.in1, "src/parser.go")
	writeFiles(t, f.out, "parse_secret.go")
	r.setWebRoots(f.root)
	var c proto.ChatJSON
	r.dial().ok(proto.MethodNew, proto.NewParams{Cwd: f.in1, AdditionalDirectories: []string{f.out},
		AdditionalFiles: []string{f.inFile, f.outFile}}, &c)

	// The local client first: its listing must not serve the web caller.
	var local proto.FilesResult
	r.dial().ok(proto.MethodFiles, proto.FilesParams{ID: c.ID, Limit: 100}, &local)
	if got := fileNames(local.Files); !slices.Contains(got, "outside/parse_secret.go") || !slices.Contains(got, f.outFile) {
		t.Fatalf("the local client's files: %q", got)
	}

	w := r.webWire()
	var res proto.FilesResult
	w.ok(proto.MethodFiles, proto.FilesParams{ID: c.ID, Limit: 100}, &res)
	got := fileNames(res.Files)
	if !slices.Equal(got, []string{f.inFile, "src/parser.go"}) {
		t.Fatalf("the web caller's files: %q", got)
	}
	if !strings.Contains(res.Note, "2 of the chat's folders and files are outside the web roots") {
		t.Fatalf("the note: %q", res.Note)
	}
	for _, m := range res.Files {
		if strings.HasPrefix(m.Path, f.out) {
			t.Fatalf("the web caller was offered %s", m.Path)
		}
	}
	w.fails(proto.CodeInvalidParams, proto.MethodFiles, proto.FilesParams{ID: "nosuch"})

	// A chat whose folder is outside the roots: its folder is one a web
	// caller may name (an existing chat's), so its files are offered.
	var outChat proto.ChatJSON
	r.dial().ok(proto.MethodNew, proto.NewParams{Cwd: f.out}, &outChat)
	w.ok(proto.MethodFiles, proto.FilesParams{ID: outChat.ID, Query: "secret"}, &res)
	if got := fileNames(res.Files); !slices.Equal(got, []string{"secret.txt", "parse_secret.go"}) {
		t.Fatalf("the outside chat's files for the web: %q", got)
	}
}

// FuzzFilesParams feeds _acpmux/files whatever params a client could
// send, against a real store with a chat whose folder holds files: no
// handler panics, every answer is a result or -32602, it encodes as one
// line, and no file offered is outside the chat's folders.
func FuzzFilesParams(f *testing.F) {
	for _, seed := range []string{
		`{"id":"k3x9q2","query":"pars"}`, `{"id":"k3x9q2","query":"","limit":1}`, `{"id":"k3x9q2","limit":-5}`,
		`{"id":"k3x9q2","limit":100000}`, `{"id":"../k3x9q2","query":"x"}`, `{"id":"k3x9q2","query":"\u202e\u0000\u001b["}`,
		`{"query":"x"}`, `{"id":["k3x9q2"]}`, `[]`, `{"id":"k3x9q2","query":7}`,
	} {
		f.Add([]byte(seed))
	}
	root, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	store, err := sessions.OpenStore(filepath.Join(root, "agent"))
	if err != nil {
		f.Fatal(err)
	}
	proj := filepath.Join(root, "proj")
	for _, p := range []string{"src/parser.go", "README.md", ".git/HEAD"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(proj, p)), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proj, p), []byte("x"), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	chat, err := store.Create(sessions.NewChat{Harness: "shell", Cwd: proj})
	if err != nil {
		f.Fatal(err)
	}
	s := newServer(Options{Store: store, Config: config.Defaults()})
	f.Fuzz(func(t *testing.T, params []byte) {
		params = bytes.ReplaceAll(params, []byte("k3x9q2"), []byte(chat.ID))
		if !json.Valid(params) {
			return // the wire answers -32700 before any handler
		}
		res, rpcErr := methods[proto.MethodFiles](s, nil, params)
		if rpcErr != nil && (res != nil || rpcErr.Code != proto.CodeInvalidParams) {
			t.Fatalf("%s: result %v, error %d %s", params, res, rpcErr.Code, rpcErr.Message)
		}
		out, err := encodeResponse(json.RawMessage("1"), res, rpcErr)
		if err != nil || bytes.IndexByte(out, '\n') != len(out)-1 || !json.Valid(out[:len(out)-1]) {
			t.Fatalf("%s: answer %q: %v", params, out, err)
		}
		if r, ok := res.(proto.FilesResult); ok {
			if len(r.Files) > proto.FilesMost {
				t.Fatalf("%s: %d files, past the bound", params, len(r.Files))
			}
			for _, m := range r.Files {
				if !strings.HasPrefix(m.Path, proj+"/") || strings.Contains(m.Path, "/.git/") {
					t.Fatalf("%s: offered %s", params, m.Path)
				}
			}
		}
	})
}
