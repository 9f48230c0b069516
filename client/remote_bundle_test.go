package client

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// The Remote's export and import against a real server: the bundle is
// written where asked, a dry run reports the guard's verdict and writes no
// chat, the import makes one, and a refusal is the server's -32602.
func TestRemoteExportAndImport(t *testing.T) {
	h, _ := remoteHome(t)
	root := filepath.Dir(h)
	mk := func(rel string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	app, lib, other := mk("src/app"), mk("src/lib"), mk("other")
	store, err := sessions.OpenStore(h)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := store.Create(sessions.NewChat{Name: "fix the parser", Harness: "fake", Cwd: app, AdditionalDirectories: []string{lib, other}})
	if err != nil {
		t.Fatal(err)
	}
	r := openRemote(t, h)

	path := filepath.Join(root, "out.acpmux.tgz")
	exp, err := r.Export(meta.ID, path)
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("export reported %+v but wrote no bundle: %v", exp, err)
	}
	if exp.ID != meta.ID || exp.Path != path || exp.Bytes != fi.Size() || exp.Name != meta.Name {
		t.Fatalf("export report %+v; the file has %d bytes", exp, fi.Size())
	}

	count := func() int {
		list, err := store.List()
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}
	before := count()
	dry, err := r.Import(path, []string{filepath.Join(root, "src")}, true)
	if err != nil {
		t.Fatalf("dry run: %v", err)
	}
	if !dry.DryRun || dry.ID != "" || dry.Cwd != app || !slices.Equal(dry.Kept, []string{lib}) ||
		len(dry.Dropped) != 1 || dry.Dropped[0].Path != other || dry.Parent != meta.ID {
		t.Fatalf("dry run report %+v", dry)
	}
	if n := count(); n != before {
		t.Fatalf("a dry run stored chats: %d before, %d after", before, n)
	}

	done, err := r.Import(path, []string{filepath.Join(root, "src")}, false)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	made, err := store.Load(done.ID)
	if err != nil {
		t.Fatalf("import reported %+v; load the chat: %v", done, err)
	}
	if made.Origin != sessions.OriginImport || made.Parent != meta.ID || made.Cwd != app || !slices.Equal(made.AdditionalDirectories, []string{lib}) {
		t.Fatalf("imported chat %+v", made)
	}

	_, err = r.Import(path, []string{other}, true)
	var rpc *RPCError
	if !errors.As(err, &rpc) || rpc.Code != proto.CodeInvalidParams || !strings.Contains(err.Error(), app) {
		t.Fatalf("a cwd outside the roots: %v, want -32602 naming %s", err, app)
	}
	if n := count(); n != before+1 {
		t.Fatalf("chats: %d, want %d (one import)", n, before+1)
	}
}
