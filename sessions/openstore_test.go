package sessions

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The tests of opening a store: the agent home it makes, and what a
// killed writer left there.

func TestOpenStoreRemovesStaleTemps(t *testing.T) {
	s := openStore(t)
	m, err := s.Create(NewChat{Harness: "shell"})
	if err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(s.Home(), "chats", "."+m.ID+".toml.tmp-12345")
	if err := os.WriteFile(stale, []byte("version = 1\nid = "), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenStore(s.Home()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temp file kept: %v", err)
	}
	if _, err := s.Load(m.ID); err != nil {
		t.Error(err)
	}
}

// OpenStore removes a handoff capsule's temp file too, and leaves what is
// not a writer's temp file: a chat, a name that only looks alike, and a
// FIFO named as a temp file (not something a writer makes).
func TestOpenStoreRemovesOnlyWritersTemps(t *testing.T) {
	s := openStore(t)
	m, err := s.Create(NewChat{Harness: "shell"})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(s.Home(), "chats")
	capsule := filepath.Join(dir, "."+m.ID+".handoff.md.tmp-77")
	alike := filepath.Join(dir, m.ID+".toml.tmp-1") // no leading dot
	fifo := filepath.Join(dir, ".x.toml.tmp-9")
	for _, f := range []string{capsule, alike} {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenStore(s.Home()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(capsule); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a capsule's stale temp file kept: %v", err)
	}
	for _, f := range []string{alike, fifo, s.ChatPath(m.ID)} {
		if _, err := os.Lstat(f); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(f), err)
		}
	}
}

func TestOpenStore(t *testing.T) {
	if _, err := OpenStore("relative/home"); err == nil {
		t.Error("relative agent home accepted")
	}
	if _, err := OpenStore(""); err == nil {
		t.Error("empty agent home accepted")
	}
	// An agent home reached through a link: chats with no project still know
	// their folder is their own.
	real, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "home-link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	s, err := OpenStore(link)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Create(NewChat{Harness: "shell"})
	if err != nil {
		t.Fatal(err)
	}
	if !s.NoProject(m) || m.Cwd != filepath.Join(real, "homes", m.ID) {
		t.Errorf("cwd %q, NoProject %v", m.Cwd, s.NoProject(m))
	}
	if err := s.Remove(m.ID, false); err != nil {
		t.Fatal(err)
	}
	if got := dirEntries(t, filepath.Join(real, "homes")); len(got) != 0 {
		t.Errorf("home folder left: %v", got)
	}
}

// TestOpenStoreMakesAHomeOfTheOwnersAlone: an agent home that OpenStore
// makes, and the folders it makes on the way to it, are mode 0700; a home
// that was there keeps its mode (the server tightens it, TightenHome).
func TestOpenStoreMakesAHomeOfTheOwnersAlone(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "share", "acpmux")
	if _, err := OpenStore(home); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(base, "share"), home} {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s made mode %v, want 0700", d, fi.Mode().Perm())
		}
	}
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenStore(open); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(open); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("a home that was there: %v, %v; want its mode 0755 kept", fi.Mode().Perm(), err)
	}
}
