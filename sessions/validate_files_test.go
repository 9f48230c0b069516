package sessions

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// fileTree adds to newTree what only files need: a file in the chat's own
// folder, a FIFO, a unix socket and a symlink to a file.
func fileTree(t *testing.T) tree {
	t.Helper()
	tr := newTree(t)
	if err := os.WriteFile(tr.p("own/notes.md"), []byte("# notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(tr.p("fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", tr.p("sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return tr
}

func TestValidateFilesRules(t *testing.T) {
	tr := fileTree(t)
	own := tr.p("own")
	tests := []struct {
		name   string
		given  string
		want   string // canonical form when accepted
		reason string // the refusal otherwise
	}{
		{"a regular file", tr.p("file"), tr.p("file"), ""},
		{"a symlink to a file is resolved", tr.p("link-file"), tr.p("file"), ""},
		{"a file inside the chat's own folder is allowed", tr.p("own/notes.md"), tr.p("own/notes.md"), ""},
		{"unclean but absolute", tr.p("a/../file"), tr.p("file"), ""},
		{"a folder", tr.p("a"), "", "is a folder, not a file (give it as a folder: --dir, add-dir)"},
		{"a symlink to a folder", tr.p("link-a"), "", "is a folder, not a file (give it as a folder: --dir, add-dir)"},
		{"the chat's own folder", own, "", "is a folder, not a file (give it as a folder: --dir, add-dir)"},
		{"a FIFO", tr.p("fifo"), "", "is a FIFO, not a regular file"},
		{"a socket", tr.p("sock"), "", "is a socket, not a regular file"},
		{"a device", "/dev/null", "", "is a device, not a regular file"},
		{"missing", tr.p("nope.md"), "", "does not exist"},
		{"dangling symlink", tr.p("dangling"), "", "dangling symlink: its target does not exist"},
		{"relative", "file", "", "not an absolute path"},
		{"empty", "", "", "empty path"},
		{"NUL", tr.p("fi\x00le"), "", "contains a NUL byte"},
		{"a path through a file", tr.p("file/x"), "", "does not exist (a parent is not a directory)"},
		{"dot after a file", tr.root + "/file/.", "", "does not exist (a parent is not a directory)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ValidateFiles(own, []string{tt.given})
			if tt.reason == "" {
				if err != nil || len(got) != 1 || got[0] != tt.want {
					t.Fatalf("ValidateFiles(%q) = %v, %v; want [%s]", tt.given, got, err, tt.want)
				}
				return
			}
			fe, ok := AsFolderError(err)
			if !ok {
				t.Fatalf("ValidateFiles(%q) = %v, %v; want a refusal %q", tt.given, got, err, tt.reason)
			}
			want := proto.FolderProblem{Index: 0, Path: clip(tt.given), Reason: tt.reason, Field: proto.FieldFiles}
			if len(fe.Problems) != 1 || fe.Problems[0] != want {
				t.Fatalf("problems %+v, want %+v", fe.Problems, want)
			}
			if fe.Code() != proto.CodeInvalidParams || !strings.HasPrefix(fe.Error(), "invalid params (-32602): additionalFiles refused") {
				t.Errorf("error %q (code %d)", fe.Error(), fe.Code())
			}
		})
	}
}

func TestValidateFilesListedOnce(t *testing.T) {
	tr := fileTree(t)
	got, err := ValidateFiles(tr.p("own"), []string{tr.p("link-file"), tr.p("own/notes.md"), tr.p("file"), tr.p("a/../file")})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{tr.p("file"), tr.p("own/notes.md")}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v (a path and a symlink to it are one file, first place kept)", got, want)
	}
}

func TestValidateFilesAtMost64(t *testing.T) {
	tr := fileTree(t)
	var files []string
	for i := range MaxFiles + 1 {
		p := tr.p(fmt.Sprintf("f%02d", i))
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	if _, err := ValidateFiles(tr.p("own"), files[:MaxFiles]); err != nil {
		t.Fatalf("%d files refused: %v", MaxFiles, err)
	}
	_, err := ValidateFiles(tr.p("own"), files)
	fe, ok := AsFolderError(err)
	if !ok || !fe.TooMany || !strings.Contains(fe.Error(), "65 files given, at most 64 allowed") {
		t.Fatalf("65 files: %v", err)
	}
}

func TestStoreFilesRefuseTheAgentHomeAndJoinRefusals(t *testing.T) {
	tr := fileTree(t)
	s, err := OpenStore(tr.p("home"))
	if err != nil {
		t.Fatal(err)
	}
	inside := tr.p("home/chats/.lock")
	if err := os.WriteFile(inside, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = s.Create(NewChat{Harness: "shell", Cwd: tr.p("own"), AdditionalDirectories: []string{"rel"}, AdditionalFiles: []string{inside, tr.p("a")}})
	fe, ok := AsFolderError(err)
	if !ok {
		t.Fatalf("Create = %v, want a refusal", err)
	}
	msg := fe.Error()
	for _, want := range []string{
		"additionalDirectories and additionalFiles refused",
		`additionalDirectories[0] "rel": not an absolute path`,
		`additionalFiles[0] "` + inside + `": is inside the agent home`,
		`additionalFiles[1] "` + tr.p("a") + `": is a folder, not a file`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("refusal lacks %q:\n%s", want, msg)
		}
	}
	if !bytes.Contains(fe.RPCError(), []byte(`"field":"additionalFiles"`)) {
		t.Errorf("RPC error does not mark the file entries: %s", fe.RPCError())
	}
	if entries, _ := os.ReadDir(tr.p("home/chats")); len(entries) != 1 {
		t.Errorf("a refused create wrote %d entries in chats/", len(entries)-1)
	}
}

func TestStoreFilesAddRemoveAndCarry(t *testing.T) {
	tr := fileTree(t)
	s, err := OpenStore(tr.p("home"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Create(NewChat{Harness: "shell", Cwd: tr.p("own"), AdditionalFiles: []string{tr.p("link-file")}})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(m.AdditionalFiles) != fmt.Sprint([]string{tr.p("file")}) {
		t.Fatalf("stored %v", m.AdditionalFiles)
	}
	gone := tr.p("gone.md")
	if err := os.WriteFile(gone, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err = s.AddFiles(m.ID, []string{tr.p("own/notes.md"), gone}); err != nil {
		t.Fatal(err)
	}
	loaded, err := s.Load(m.ID)
	if err != nil || len(loaded.AdditionalFiles) != 3 {
		t.Fatalf("reloaded %v, %v", loaded, err)
	}
	fork, err := s.Derive(m.ID, Derivation{Origin: OriginFork})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(fork.AdditionalFiles) != fmt.Sprint(loaded.AdditionalFiles) {
		t.Errorf("fork carried %v, want %v", fork.AdditionalFiles, loaded.AdditionalFiles)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	if bad := CheckStoredFiles(loaded.AdditionalFiles); len(bad) != 1 || bad[0].Path != gone || bad[0].Reason != "does not exist" {
		t.Fatalf("CheckStoredFiles = %+v", bad)
	}
	m, dropped, err := s.RemoveMissingFiles(m.ID)
	if err != nil || len(dropped) != 1 || len(m.AdditionalFiles) != 2 {
		t.Fatalf("RemoveMissingFiles = %v, %+v, %v", m.AdditionalFiles, dropped, err)
	}
	if m, err = s.RemoveFiles(m.ID, []string{tr.p("link-file")}); err != nil || fmt.Sprint(m.AdditionalFiles) != fmt.Sprint([]string{tr.p("own/notes.md")}) {
		t.Fatalf("RemoveFiles by a symlink = %v, %v", m.AdditionalFiles, err)
	}
	if _, err := s.RemoveFiles(m.ID, []string{tr.p("file")}); err == nil || !strings.Contains(err.Error(), "has no file") {
		t.Errorf("removing a file the chat lacks: %v", err)
	}
}
