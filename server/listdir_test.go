package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

func TestListDirectory(t *testing.T) {
	r := newRig(t, rigOpt{})
	root := filepath.Dir(r.home) // holds the agent home, among others
	tree := filepath.Join(root, "tree")
	for _, d := range []string{"b-dir", "a-dir", ".hidden"} {
		if err := os.MkdirAll(filepath.Join(tree, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tree, "c-file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(tree, "a-dir"), filepath.Join(tree, "to-dir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(tree, "nowhere"), filepath.Join(tree, "dangling")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(tree, filepath.Join(root, "tree-link")); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(root, "big")
	if err := os.MkdirAll(big, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < proto.MaxListEntries+5; i++ {
		if err := os.WriteFile(filepath.Join(big, fmt.Sprintf("f%05d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Dialed once the tree is made: a connection that makes no call within
	// the server's first-call wait is dropped, and 2,000 files take a
	// while on a loaded machine.
	w := r.dial()
	names := func(es []proto.DirEntry) string {
		var b []string
		for _, e := range es {
			if e.Dir {
				b = append(b, e.Name+"/")
			} else {
				b = append(b, e.Name)
			}
		}
		return strings.Join(b, " ")
	}
	for _, tc := range []struct {
		name, path, want, wantPath string
		truncated                  bool
	}{
		{"entries sorted, links followed", tree, ".hidden/ a-dir/ b-dir/ c-file dangling to-dir/", tree, false},
		{"through a symlink, answered canonical", filepath.Join(root, "tree-link"), ".hidden/ a-dir/ b-dir/ c-file dangling to-dir/", tree, false},
		{"the agent home left out", root, "big/ tree/ tree-link/", root, false},
		{"an empty folder", filepath.Join(tree, "a-dir"), "", filepath.Join(tree, "a-dir"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var res proto.ListDirectoryResult
			w.ok(proto.MethodListDirectory, proto.ListDirectoryParams{Path: tc.path}, &res)
			if got := names(res.Entries); got != tc.want || res.Path != tc.wantPath || res.Truncated != tc.truncated {
				t.Fatalf("listDirectory %s = %q %q truncated=%v, want %q %q", tc.path, res.Path, got, res.Truncated, tc.wantPath, tc.want)
			}
			if res.Entries == nil {
				t.Fatal("entries is null, want an array")
			}
		})
	}
	var res proto.ListDirectoryResult
	w.ok(proto.MethodListDirectory, proto.ListDirectoryParams{Path: big}, &res)
	if len(res.Entries) != proto.MaxListEntries || !res.Truncated {
		t.Fatalf("a folder of %d files: %d entries, truncated=%v", proto.MaxListEntries+5, len(res.Entries), res.Truncated)
	}

	// The root's listing leaves out what no chat may be given.
	w.ok(proto.MethodListDirectory, proto.ListDirectoryParams{Path: "/"}, &res)
	for _, e := range res.Entries {
		if e.Name == "proc" || e.Name == "sys" {
			t.Errorf("listing / offers %s/, which no chat may be given", e.Name)
		}
	}

	for _, tc := range []struct{ name, path, want string }{
		{"relative", "tree", "absolute"},
		{"empty", "", "path"},
		{"missing", filepath.Join(root, "missing"), "does not exist"},
		{"a file", filepath.Join(tree, "c-file"), "is not a folder"},
		{"the agent home", r.home, "is the agent home"},
		{"inside the agent home", filepath.Join(r.home, "chats"), "inside the agent home"},
		{"/proc", "/proc/self", "is under /proc"},
		{"/sys", "/sys/kernel", "is under /sys"},
		{"NUL", "/tmp\x00x", "NUL"},
	} {
		t.Run("refused "+tc.name, func(t *testing.T) {
			e := w.fails(proto.CodeInvalidParams, proto.MethodListDirectory, proto.ListDirectoryParams{Path: tc.path})
			if !strings.Contains(e.Message, tc.want) {
				t.Fatalf("message %q lacks %q", e.Message, tc.want)
			}
		})
	}
}
