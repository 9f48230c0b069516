package client

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// TestRemoteFiles: CreateAndStart carries the files to the server, SetFiles
// replaces them, and a refusal off the wire is a *sessions.FolderError that
// still says which list it was about.
func TestRemoteFiles(t *testing.T) {
	h, _ := remoteHome(t)
	r := openRemote(t, h)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	spec, notes := filepath.Join(dir, "spec.md"), filepath.Join(dir, "notes.md")
	for _, f := range []string{spec, notes} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// A bad folder and a bad file: one refusal of both lists.
	_, err = r.CreateAndStart(sessions.NewChat{Harness: "fake", AdditionalDirectories: []string{"rel"}, AdditionalFiles: []string{dir}}, 80, 24)
	fe, ok := sessions.AsFolderError(err)
	if !ok || len(fe.Problems) != 2 || fe.Problems[1].Field != proto.FieldFiles || !strings.Contains(err.Error(), "additionalDirectories and additionalFiles refused") {
		t.Fatalf("refusal of both lists: %#v", err)
	}

	meta, err := r.CreateAndStart(sessions.NewChat{Harness: "fake", AdditionalFiles: []string{spec}}, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(meta.AdditionalFiles, []string{spec}) {
		t.Fatalf("created with files %q", meta.AdditionalFiles)
	}
	got, err := r.SetFiles(meta.ID, []string{notes, spec})
	if err != nil || !slices.Equal(got.AdditionalFiles, []string{notes, spec}) {
		t.Fatalf("SetFiles: %v %v", got, err)
	}
	_, err = r.SetFiles(meta.ID, []string{filepath.Join(dir, "gone.md")})
	if fe, ok := sessions.AsFolderError(err); !ok || fe.Field != proto.FieldFiles || !strings.Contains(err.Error(), "additionalFiles refused") {
		t.Fatalf("a refused SetFiles: %#v", err)
	}
	if got, err := r.SetFiles(meta.ID, nil); err != nil || len(got.AdditionalFiles) != 0 {
		t.Fatalf("SetFiles(nil) clears: %v %v", got, err)
	}
	r.Forget(meta.ID)
}
