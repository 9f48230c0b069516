package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// files makes n real files and returns their canonical paths.
func (r *rig) files(n int) []string {
	r.t.Helper()
	dir := r.folders(1)[0]
	out := make([]string, n)
	for i := range out {
		out[i] = filepath.Join(dir, "spec "+string(rune('a'+i))+".md")
		if err := os.WriteFile(out[i], []byte("spec\n"), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	return out
}

// TestNewAndSetFilesOverTheSocket: _acpmux/new takes additionalFiles
// (canonical, listed once) and _acpmux/setFiles replaces them, [] clearing
// them; what is answered is what is stored.
func TestNewAndSetFilesOverTheSocket(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()
	files := r.files(3)
	link := filepath.Join(filepath.Dir(files[0]), "link to a")
	if err := os.Symlink(files[0], link); err != nil {
		t.Fatal(err)
	}
	var c proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Name: "files chat", AdditionalFiles: []string{files[0], link, files[1]}}, &c)
	if !slices.Equal(c.AdditionalFiles, files[:2]) {
		t.Fatalf("new: files %q, want %q", c.AdditionalFiles, files[:2])
	}
	stored := func(want []string) {
		t.Helper()
		m, err := r.store.Load(c.ID)
		if err != nil || !slices.Equal(m.AdditionalFiles, want) {
			t.Fatalf("stored files: %v %v, want %q", m, err, want)
		}
	}
	stored(files[:2])

	w.ok(proto.MethodSetFiles, map[string]any{"id": c.ID, "additionalFiles": []string{files[2], files[0]}}, &c)
	if want := []string{files[2], files[0]}; !slices.Equal(c.AdditionalFiles, want) {
		t.Fatalf("setFiles: %q, want %q", c.AdditionalFiles, want)
	}
	stored([]string{files[2], files[0]})

	w.ok(proto.MethodSetFiles, map[string]any{"id": c.ID, "additionalFiles": []string{}}, &c)
	if len(c.AdditionalFiles) != 0 || c.FilesVia != "none" {
		t.Fatalf("setFiles []: %q via %q", c.AdditionalFiles, c.FilesVia)
	}
	stored(nil)
}

// TestFileRefusalsOverTheSocket: a folder given as a file, a FIFO, a
// relative and a missing entry are each named in one -32602, for new (with
// a bad folder in the same call, refused together) and for setFiles; no
// chat is made and the chat's file is left as it was.
func TestFileRefusalsOverTheSocket(t *testing.T) {
	r := newRig(t, rigOpt{})
	w := r.dial()
	good := r.files(1)[0]
	var c proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{AdditionalFiles: []string{good}}, &c)
	before := r.chatFile(c.ID)

	dir := filepath.Dir(good)
	fifo := filepath.Join(dir, "a fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	bad := []string{dir, fifo, "rel/spec.md", filepath.Join(dir, "gone.md"), good}
	reasons := []string{"is a folder, not a file", "is a FIFO", "not an absolute path", "does not exist"}
	entries := func(e *wireError) []proto.FolderProblem {
		t.Helper()
		var d folderData
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatalf("data %s: %v", e.Data, err)
		}
		return d.Entries
	}
	checkFiles := func(method string, got []proto.FolderProblem) {
		t.Helper()
		if len(got) != len(reasons) {
			t.Fatalf("%s: entries %+v", method, got)
		}
		for i, p := range got {
			if p.Index != i || p.Path != bad[i] || p.Field != proto.FieldFiles || !strings.Contains(p.Reason, reasons[i]) {
				t.Errorf("%s: entry %d = %+v, want %q: %q", method, i, p, bad[i], reasons[i])
			}
		}
	}

	chats := r.chatFiles()
	e := w.fails(proto.CodeInvalidParams, proto.MethodSetFiles, map[string]any{"id": c.ID, "additionalFiles": bad})
	if !strings.Contains(e.Message, proto.FieldFiles) {
		t.Errorf("setFiles refusal says %q, not which list", e.Message)
	}
	checkFiles("setFiles", entries(e))

	// A bad folder and the bad files in one new: one refusal names all.
	e = w.fails(proto.CodeInvalidParams, proto.MethodNew, map[string]any{"additionalDirectories": []string{"rel/dir"}, "additionalFiles": bad})
	got := entries(e)
	if len(got) != 1+len(reasons) || got[0].Field != "" || got[0].Path != "rel/dir" {
		t.Fatalf("new with a bad folder and bad files: %+v", got)
	}
	checkFiles("new", got[1:])
	if !strings.Contains(e.Message, "additionalDirectories") || !strings.Contains(e.Message, proto.FieldFiles) {
		t.Errorf("new refusal says %q, not both lists", e.Message)
	}
	if after := r.chatFiles(); !slices.Equal(after, chats) {
		t.Fatalf("chat files changed: %q → %q", chats, after)
	}
	if after := r.chatFile(c.ID); after != before {
		t.Fatalf("the chat's file changed:\n%s\n→\n%s", before, after)
	}

	for _, tc := range []struct {
		params any
		code   int
	}{
		{map[string]any{"id": c.ID}, proto.CodeInvalidParams},
		{map[string]any{"id": c.ID, "additionalFiles": good}, proto.CodeInvalidParams},
		{map[string]any{"additionalFiles": []string{}}, proto.CodeInvalidParams},
		{map[string]any{"id": "nosuchchat", "additionalFiles": []string{}}, proto.CodeChatNotFound},
	} {
		if rep := w.call(proto.MethodSetFiles, tc.params); rep.Error == nil || rep.Error.Code != tc.code {
			t.Errorf("setFiles %v: %+v %s, want code %d", tc.params, rep.Error, rep.Result, tc.code)
		}
	}
}
