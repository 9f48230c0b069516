package sessions

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDeriveCarriesFolders(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	s, err := OpenStore(filepath.Join(root, "agent"))
	if err != nil {
		t.Fatal(err)
	}
	mk := func(name string) string {
		p := filepath.Join(root, name)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	proj, lib, notes := mk("proj"), mk("lib"), mk("notes")
	parent, err := s.Create(NewChat{Harness: "claude", Cwd: proj, AdditionalDirectories: []string{lib, notes}, Name: "parser"})
	if err != nil {
		t.Fatal(err)
	}

	fork, err := s.Derive(parent.ID, Derivation{Origin: OriginFork})
	if err != nil {
		t.Fatal(err)
	}
	if fork.Parent != parent.ID || fork.Origin != OriginFork || fork.Cwd != proj || fork.Harness != "claude" ||
		!slices.Equal(fork.AdditionalDirectories, []string{lib, notes}) || fork.Name != "parser · fork" {
		t.Fatalf("fork %+v", fork)
	}

	// A fork into one of the parent's folders drops it from its own list.
	moved, err := s.Derive(parent.ID, Derivation{Origin: OriginFork, Cwd: lib})
	if err != nil {
		t.Fatal(err)
	}
	if moved.Cwd != lib || !slices.Equal(moved.AdditionalDirectories, []string{notes}) {
		t.Fatalf("fork into lib: cwd %q folders %q", moved.Cwd, moved.AdditionalDirectories)
	}

	handoff, err := s.Derive(parent.ID, Derivation{Origin: OriginHandoff, Harness: "gemini"})
	if err != nil {
		t.Fatal(err)
	}
	if handoff.Harness != "gemini" || !slices.Equal(handoff.AdditionalDirectories, []string{lib, notes}) {
		t.Fatalf("handoff %+v", handoff)
	}

	// A chat with no project gives its side chat a fresh home, not its own.
	bare, err := s.Create(NewChat{Harness: "shell", AdditionalDirectories: []string{lib}})
	if err != nil {
		t.Fatal(err)
	}
	side, err := s.Derive(bare.ID, Derivation{Origin: OriginSide})
	if err != nil {
		t.Fatal(err)
	}
	if side.Cwd != s.HomeDir(side.ID) || !slices.Equal(side.AdditionalDirectories, []string{lib}) {
		t.Fatalf("side of a no-project chat: cwd %q folders %q", side.Cwd, side.AdditionalDirectories)
	}

	// A folder that has gone refuses the derivation, naming it.
	if err := os.Remove(notes); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Derive(parent.ID, Derivation{Origin: OriginSide}); err == nil || !strings.Contains(err.Error(), notes) {
		t.Fatalf("derive with a vanished folder: %v", err)
	} else if _, ok := AsFolderError(err); !ok {
		t.Fatalf("refusal is not a -32602 folder error: %v", err)
	}
	if _, err := s.Derive(parent.ID, Derivation{Origin: "import"}); err == nil {
		t.Fatal("derive with origin import was accepted")
	}
}

// A chat whose name is as long as a name may be is forked under a name that
// still fits: the parent's is cut, the origin kept.
func TestDeriveLongName(t *testing.T) {
	s := openStore(t)
	parent, err := s.Create(NewChat{Harness: "shell", Name: strings.Repeat("p", MaxNameBytes)})
	if err != nil {
		t.Fatal(err)
	}
	fork, err := s.Derive(parent.ID, Derivation{Origin: OriginFork})
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat("p", MaxNameBytes-len(" · fork")-len("…")) + "… · fork"; fork.Name != want {
		t.Errorf("name %q…, %d bytes", fork.Name[:10], len(fork.Name))
	}
}
