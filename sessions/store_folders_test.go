package sessions

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

func TestAddFolders(t *testing.T) {
	s := openStore(t)
	tr := newTree(t)
	m, err := s.Create(NewChat{Harness: "shell", Cwd: tr.p("own"), AdditionalDirectories: []string{tr.p("b")}})
	if err != nil {
		t.Fatal(err)
	}
	m, err = s.AddFolders(m.ID, []string{tr.p("link-a"), tr.p("b") + "/", tr.p("with space")})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{tr.p("b"), tr.p("a"), tr.p("with space")}
	if fmt.Sprint(m.AdditionalDirectories) != fmt.Sprint(want) {
		t.Fatalf("folders %q, want %q", m.AdditionalDirectories, want)
	}

	// A refusal changes nothing: the file's bytes are the same.
	before := readFile(t, s.ChatPath(m.ID))
	_, err = s.AddFolders(m.ID, []string{tr.p("deep"), "rel", tr.p("link-own")})
	fe, ok := AsFolderError(err)
	if !ok {
		t.Fatalf("refusal: %v", err)
	}
	wantProblems := []proto.FolderProblem{{Index: 1, Path: "rel", Reason: "not an absolute path"}, {Index: 2, Path: tr.p("link-own"), Reason: "is the chat's own folder"}}
	if fmt.Sprint(fe.Problems) != fmt.Sprint(wantProblems) {
		t.Errorf("problems %v, want %v (indexes in the list given)", fe.Problems, wantProblems)
	}
	if !bytes.Equal(readFile(t, s.ChatPath(m.ID)), before) {
		t.Error("refused AddFolders changed the file")
	}

	// More than 64 in all is refused, and changes nothing.
	_, err = s.AddFolders(m.ID, makeDirs(t, tr.p("many"), 62))
	if fe, ok := AsFolderError(err); !ok || !fe.TooMany {
		t.Errorf("65 in all: %v", err)
	}
	if !bytes.Equal(readFile(t, s.ChatPath(m.ID)), before) {
		t.Error("refused AddFolders changed the file")
	}
	if _, err := s.AddFolders("nochat", []string{tr.p("a")}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown chat: %v", err)
	}
}

// add-dir counts the folders the chat would keep: adding folders it has,
// spelt another way, does not count against the limit.
func TestAddFoldersCountsDistinct(t *testing.T) {
	s := openStore(t)
	tr := newTree(t)
	dirs := makeDirs(t, tr.p("many"), MaxFolders+1)
	m, err := s.Create(NewChat{Harness: "shell", AdditionalDirectories: dirs[:60]})
	if err != nil {
		t.Fatal(err)
	}
	// Ten entries: six folders it has (with a trailing slash), four new.
	add := append([]string(nil), dirs[60:64]...)
	for _, d := range dirs[:6] {
		add = append(add, d+"/")
	}
	m, err = s.AddFolders(m.ID, add)
	if err != nil {
		t.Fatalf("64 in all: %v", err)
	}
	if fmt.Sprint(m.AdditionalDirectories) != fmt.Sprint(dirs[:64]) {
		t.Errorf("folders %d, not the 64 in order", len(m.AdditionalDirectories))
	}
	before := readFile(t, s.ChatPath(m.ID))
	_, err = s.AddFolders(m.ID, []string{dirs[0], dirs[64]})
	if fe, ok := AsFolderError(err); !ok || !fe.TooMany || fe.Kept != 65 {
		t.Errorf("65 in all: %v", err)
	}
	if !bytes.Equal(readFile(t, s.ChatPath(m.ID)), before) {
		t.Error("refused AddFolders changed the file")
	}
}

func TestRemoveFolders(t *testing.T) {
	s := openStore(t)
	tr := newTree(t)
	gone := tr.p("gone")
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	m, err := s.Create(NewChat{Harness: "shell", AdditionalDirectories: []string{tr.p("a"), gone, tr.p("b"), tr.p("with space")}})
	if err != nil {
		t.Fatal(err)
	}
	// By a link to it.
	m, err = s.RemoveFolders(m.ID, []string{tr.p("link-a")})
	if err != nil {
		t.Fatal(err)
	}
	// A folder that has since vanished, named with a trailing slash.
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	m, err = s.RemoveFolders(m.ID, []string{gone + "/"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{tr.p("b"), tr.p("with space")}; fmt.Sprint(m.AdditionalDirectories) != fmt.Sprint(want) {
		t.Errorf("folders %q, want %q", m.AdditionalDirectories, want)
	}
	// A folder the chat does not have: an error naming it, nothing changed.
	before := readFile(t, s.ChatPath(m.ID))
	_, err = s.RemoveFolders(m.ID, []string{tr.p("b"), tr.p("deep")})
	if err == nil || !strings.Contains(err.Error(), tr.p("deep")) {
		t.Errorf("err = %v", err)
	}
	if !bytes.Equal(readFile(t, s.ChatPath(m.ID)), before) {
		t.Error("refused RemoveFolders changed the file")
	}
	loaded, err := s.Load(m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.AdditionalDirectories == nil {
		t.Error("nil folder list")
	}
}

func TestRemoveMissingFolders(t *testing.T) {
	s := openStore(t)
	tr := newTree(t)
	dirs := makeDirs(t, tr.p("f"), 4)
	m, err := s.Create(NewChat{Harness: "shell", AdditionalDirectories: dirs})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{1, 3} {
		if err := os.Remove(dirs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if bad := CheckStoredFolders(m.Cwd, m.AdditionalDirectories); len(bad) != 2 {
		t.Fatalf("CheckStoredFolders = %v", bad)
	}
	m, dropped, err := s.RemoveMissingFolders(m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := []proto.FolderProblem{{Index: 1, Path: dirs[1], Reason: "does not exist"}, {Index: 3, Path: dirs[3], Reason: "does not exist"}}; fmt.Sprint(dropped) != fmt.Sprint(want) {
		t.Errorf("dropped %v, want %v", dropped, want)
	}
	if want := []string{dirs[0], dirs[2]}; fmt.Sprint(m.AdditionalDirectories) != fmt.Sprint(want) {
		t.Errorf("kept %q", m.AdditionalDirectories)
	}
	loaded, err := s.Load(m.ID)
	if err != nil || fmt.Sprint(loaded.AdditionalDirectories) != fmt.Sprint(m.AdditionalDirectories) {
		t.Errorf("stored %v, %v", loaded, err)
	}
	// Nothing missing: nothing dropped.
	_, dropped, err = s.RemoveMissingFolders(m.ID)
	if err != nil || len(dropped) != 0 {
		t.Errorf("second run dropped %v, %v", dropped, err)
	}
}
