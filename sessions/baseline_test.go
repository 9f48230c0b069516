package sessions

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitInit makes a git repository with one commit in dir and returns HEAD.
func gitInit(t *testing.T, dir string) string {
	t.Helper()
	for _, argv := range [][]string{
		{"init", "-q"},
		{"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "one"},
	} {
		cmd := exec.Command("git", append([]string{"-C", dir}, argv...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", argv, err, out)
		}
	}
	head := GitHead(dir)
	if head == "" {
		t.Fatalf("GitHead(%s) is empty after a commit", dir)
	}
	return head
}

func TestBaselineRoundTripAndAddedFolders(t *testing.T) {
	root := t.TempDir()
	s, err := OpenStore(filepath.Join(root, "home"))
	if err != nil {
		t.Fatal(err)
	}
	cwd, repo, plain := filepath.Join(root, "cwd"), filepath.Join(root, "repo"), filepath.Join(root, "plain")
	for _, d := range []string{cwd, repo, plain} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cwdHead, repoHead := gitInit(t, cwd), gitInit(t, repo)
	m, err := s.Create(NewChat{Harness: "claude", Cwd: cwd, AdditionalDirectories: []string{plain}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Baseline != nil {
		t.Fatalf("a new chat has a baseline before its first start: %+v", m.Baseline)
	}
	// A kept key from a newer version must stay a top-level key when the
	// baseline table is written after it.
	data, err := os.ReadFile(s.ChatPath(m.ID))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.ChatPath(m.ID), append(data, []byte("future_key = \"kept\"\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	b := NewBaseline(at, cwd, []string{plain})
	if b.Head != cwdHead || len(b.Folders) != 1 || b.Folders[0].Head != "" {
		t.Fatalf("NewBaseline = %+v, want head %s and one folder without a head", b, cwdHead)
	}
	if ok, err := s.RecordBaseline(m.ID, b); err != nil || !ok {
		t.Fatalf("RecordBaseline = %v, %v", ok, err)
	}
	if ok, err := s.RecordBaseline(m.ID, NewBaseline(at.Add(time.Hour), cwd, nil)); err != nil || ok {
		t.Fatalf("second RecordBaseline = %v, %v; want the first start's kept", ok, err)
	}
	if _, err := s.AddFolders(m.ID, []string{repo}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if keys := got.ExtraKeys(); len(keys) != 1 || keys[0] != "future_key" {
		t.Fatalf("kept keys = %v, want [future_key]", keys)
	}
	gb := got.Baseline
	if gb == nil || !gb.At.Equal(at) || gb.Head != cwdHead {
		t.Fatalf("stored baseline = %+v, want at %v head %s", gb, at, cwdHead)
	}
	rb, ok := gb.Folder(repo)
	if !ok || rb.Head != repoHead || rb.Since == nil || !rb.Since.After(at) {
		t.Fatalf("added folder's baseline = %+v (found %v), want head %s and a since after %v", rb, ok, repoHead, at)
	}
	if !gb.FolderSince(plain).Equal(at) {
		t.Fatalf("FolderSince(first folder) = %v, want the first start %v", gb.FolderSince(plain), at)
	}
	raw, _ := os.ReadFile(s.ChatPath(m.ID))
	if !strings.Contains(string(raw), "[baseline]") {
		t.Fatalf("chat file has no [baseline] table:\n%s", raw)
	}
}

func TestBaselineRefusesBadCommit(t *testing.T) {
	text := "version = 1\nid = \"a\"\nharness = \"claude\"\ncwd = \"/tmp\"\nadditional_directories = []\n[baseline]\nat = 2026-12-03T09:00:00Z\nhead = \"$(rm -rf)\"\n"
	if _, err := ParseMeta([]byte(text)); err == nil || !strings.Contains(err.Error(), "baseline head") {
		t.Fatalf("ParseMeta of a bad baseline head: %v, want a refusal naming it", err)
	}
}
