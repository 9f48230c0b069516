package server

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	"golang.org/x/sys/unix"
)

// TestExportAndImportOverTheSocket: _acpmux/export writes a running pty
// chat's bundle (its scrollback as it stands, as a capsule), atomically
// at the path given; _acpmux/import with dryRun writes nothing, and
// without it makes the chat, which a watching client hears of at once
// (chatsChanged) with no call of its own.
func TestExportAndImportOverTheSocket(t *testing.T) {
	r := newRig(t, rigOpt{})
	root := filepath.Dir(r.home)
	proj, lib, away := filepath.Join(root, "src", "app"), filepath.Join(root, "src", "lib"), filepath.Join(root, "away")
	for _, d := range []string{proj, lib, away} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	m, err := r.store.Create(sessions.NewChat{Name: "alpha", Harness: "shell", Cwd: proj, AdditionalDirectories: []string{lib, away}})
	if err != nil {
		t.Fatal(err)
	}
	w := r.dial()
	w.ok(proto.MethodStart, proto.ChatParams{ID: m.ID}, nil)
	wait.Until(t, "the shell fake's prompt in the chat's history", func() bool {
		return slices.ContainsFunc(r.srv.opt.Mux.History(m.ID, 0), func(l string) bool { return strings.Contains(l, "ready>") })
	})

	path := filepath.Join(root, "out", "alpha.acpmux.tgz")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var exp proto.ExportReport
	w.ok(proto.MethodExport, proto.ExportParams{ID: m.ID, Path: path}, &exp)
	if exp.ID != m.ID || exp.Path != path || exp.Conversation != "capsule" || exp.Source != "scrollback" {
		t.Errorf("export report %+v", exp)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != exp.Bytes {
		t.Errorf("bundle at %s: %v (report says %d bytes)", path, err, exp.Bytes)
	}
	if des, _ := os.ReadDir(filepath.Dir(path)); len(des) != 1 {
		t.Errorf("%d entries beside the bundle, want none", len(des)-1)
	}

	watcher := r.dial()
	// The running chat's views may come before the watch's answer.
	if rep, _ := watcher.callNoting(proto.MethodWatch, proto.SizeParams{}); rep.Error != nil {
		t.Fatalf("watch: %+v", rep.Error)
	}
	before := r.chatFiles()
	var dry proto.ImportReport
	w.ok(proto.MethodImport, proto.ImportParams{Path: path, Roots: []string{filepath.Join(root, "src")}, DryRun: true}, &dry)
	if !dry.DryRun || dry.ID != "" || !slices.Equal(dry.Kept, []string{lib}) || len(dry.Dropped) != 1 || dry.Dropped[0].Path != away {
		t.Errorf("dry run report %+v", dry)
	}
	if after := r.chatFiles(); !slices.Equal(before, after) {
		t.Fatalf("a dry run wrote chat files: %q", after)
	}
	var rep proto.ImportReport
	w.ok(proto.MethodImport, proto.ImportParams{Path: path, Roots: []string{filepath.Join(root, "src")}}, &rep)
	if rep.ID == "" || rep.Parent != m.ID || rep.Name != "alpha · import" || rep.Conversation != "capsule" || rep.Host == "" {
		t.Errorf("import report %+v", rep)
	}
	for !slices.Contains(watcher.nextChatsChanged("an import over the socket"), rep.ID) {
	}
	var list proto.ListResult
	w.ok(proto.MethodList, nil, &list)
	if !slices.ContainsFunc(list.Chats, func(c proto.ChatJSON) bool { return c.ID == rep.ID && c.Origin == "import" }) {
		t.Errorf("list does not hold the imported chat: %+v", list.Chats)
	}
}

// TestTransferParamsRefused: what the socket's export and import refuse,
// each with -32602 naming it, and nothing written.
func TestTransferParamsRefused(t *testing.T) {
	r := newRig(t, rigOpt{})
	root := filepath.Dir(r.home)
	m, err := r.store.Create(sessions.NewChat{Name: "alpha", Harness: "shell"})
	if err != nil {
		t.Fatal(err)
	}
	w := r.dial()
	fifo := filepath.Join(root, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		method string
		params any
		want   string
	}{
		{proto.MethodExport, proto.ExportParams{ID: m.ID, Path: "rel.tgz"}, "not an absolute path"},
		{proto.MethodExport, proto.ExportParams{Path: filepath.Join(root, "x.tgz")}, "id is required"},
		{proto.MethodImport, proto.ImportParams{Path: "rel.tgz", Roots: []string{root}}, "not an absolute path"},
		{proto.MethodImport, proto.ImportParams{Path: filepath.Join(root, "x.tgz")}, "roots is required"},
		{proto.MethodImport, proto.ImportParams{Path: filepath.Join(root, "x.tgz"), Roots: []string{"src"}}, `roots[0] "src"`},
		{proto.MethodImport, proto.ImportParams{Path: filepath.Join(root, "none.tgz"), Roots: []string{root}}, "does not exist"},
		{proto.MethodImport, proto.ImportParams{Path: fifo, Roots: []string{root}}, "not a regular file"},
	} {
		e := w.fails(proto.CodeInvalidParams, tc.method, tc.params)
		if !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s %+v: %q, want it to say %q", tc.method, tc.params, e.Message, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "x.tgz")); !os.IsNotExist(err) {
		t.Errorf("a refused export wrote its file: %v", err)
	}
	if files := r.chatFiles(); len(files) != 1 {
		t.Errorf("chat files %q after refusals", files)
	}
}
