package client

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// TestRemoteChatStore drives the chat store through a Remote against a
// real server, as the TUI does with no store of its own: create, list,
// read one, validate, add and take out folders, derive, rename, drop what
// has gone, and remove; each refusal off the wire keeps its kind.
func TestRemoteChatStore(t *testing.T) {
	h, _ := remoteHome(t)
	r := openRemote(t, h)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	spec := filepath.Join(a, "spec.md")
	if err := os.WriteFile(spec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}

	m, err := r.Create(sessions.NewChat{Harness: "fake", Name: "zap", AdditionalFiles: []string{spec}})
	if err != nil {
		t.Fatal(err)
	}
	list, err := r.List()
	if err != nil || len(list) != 1 || list[0].ID != m.ID || !list[0].NoProject || list[0].Meta.Name != "zap" {
		t.Fatalf("list: %+v %v", list, err)
	}
	e, err := r.Chat(m.ID)
	if err != nil || e.Meta.Cwd != m.Cwd || !e.NoProject || !slices.Equal(e.Meta.AdditionalFiles, []string{spec}) {
		t.Fatalf("chat: %+v %v", e, err)
	}
	if _, err := r.Chat("nosuch"); !errors.Is(err, sessions.ErrNotFound) {
		t.Fatalf("chat of no such id: %v", err)
	}

	dirs, files, err := r.Validate("", []string{a + "/", b, a}, []string{spec})
	if err != nil || !slices.Equal(dirs, []string{a, b}) || !slices.Equal(files, []string{spec}) {
		t.Fatalf("validate: %q %q %v", dirs, files, err)
	}
	_, _, err = r.Validate("", []string{"rel"}, []string{h})
	if fe, ok := sessions.AsFolderError(err); !ok || len(fe.Problems) != 2 || fe.Problems[1].Field != proto.FieldFiles {
		t.Fatalf("validate refusal: %#v", err)
	}

	if _, err := r.AddFolders(m.ID, []string{"rel"}); !isFolderError(err) {
		t.Fatalf("add a relative folder: %v", err)
	}
	got, err := r.AddFolders(m.ID, []string{a, b})
	if err != nil || !slices.Equal(got.AdditionalDirectories, []string{a, b}) {
		t.Fatalf("add folders: %+v %v", got, err)
	}
	if got, err = r.RemoveFolders(m.ID, []string{a}); err != nil || !slices.Equal(got.AdditionalDirectories, []string{b}) {
		t.Fatalf("remove folders: %+v %v", got, err)
	}

	fork, err := r.Derive(m.ID, sessions.Derivation{Origin: sessions.OriginFork, Capsule: "said so far"})
	if err != nil || fork.Parent != m.ID || fork.Name != "zap · fork" || !fork.Capsule || !slices.Equal(fork.AdditionalDirectories, []string{b}) {
		t.Fatalf("fork: %+v %v", fork, err)
	}
	if _, err := r.Derive(m.ID, sessions.Derivation{Origin: "import"}); err == nil {
		t.Fatal("a derivation of origin import was accepted")
	}
	if got, err = r.Rename(fork.ID, "zap two"); err != nil || got.Name != "zap two" {
		t.Fatalf("rename: %+v %v", got, err)
	}
	if _, err := r.Rename(fork.ID, "zap"); err == nil {
		t.Fatal("a rename to another chat's name was accepted")
	}

	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(spec); err != nil {
		t.Fatal(err)
	}
	res, err := r.RemoveMissing(m.ID)
	if err != nil || len(res.Folders) != 1 || res.Folders[0].Path != b || len(res.Files) != 1 || len(res.Chat.AdditionalDirectories) != 0 {
		t.Fatalf("remove missing: %+v %v", res, err)
	}

	if err := os.WriteFile(filepath.Join(m.Cwd, "notes"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := r.Remove(m.ID, false, true)
	if err != nil || rep.Home != m.Cwd || rep.Files != 1 || rep.Removed {
		t.Fatalf("dry run: %+v %v", rep, err)
	}
	if _, err := r.Remove(m.ID, false, false); err == nil {
		t.Fatal("a removal of a chat whose folder has files, without force, was accepted")
	}
	if rep, err = r.Remove(m.ID, true, false); err != nil || !rep.Removed {
		t.Fatalf("forced removal: %+v %v", rep, err)
	}
	list, err = r.List()
	if err != nil || len(list) != 1 || list[0].ID != fork.ID {
		t.Fatalf("list after removal: %+v %v", list, err)
	}
}

func isFolderError(err error) bool {
	_, ok := sessions.AsFolderError(err)
	return ok
}
