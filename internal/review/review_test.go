package review

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

func run(t *testing.T, dir string, argv ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, argv...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", argv, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// repo makes a git repository at dir with files committed, returning HEAD.
func repo(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	run(t, "", "init", "-q", dir)
	for p, text := range files {
		write(t, filepath.Join(dir, p), text)
	}
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "--allow-empty", "-m", "base")
	return run(t, dir, "rev-parse", "HEAD")
}

func TestComputeSections(t *testing.T) {
	root := t.TempDir()
	cwd, gitDir, plain := filepath.Join(root, "cwd"), filepath.Join(root, "lib"), filepath.Join(root, "notes")
	base := repo(t, cwd, map[string]string{"a.txt": "one\ntwo\n", "gone.txt": "x\n", "keep.txt": "same\n"})
	libHead := repo(t, gitDir, map[string]string{"lib.go": "package lib\n"})
	write(t, filepath.Join(plain, "old.md"), "old\n")
	since := time.Now()
	old := since.Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(plain, "old.md"), old, old); err != nil {
		t.Fatal(err)
	}

	// Committed after the base, then uncommitted, staged and untracked.
	write(t, filepath.Join(cwd, "a.txt"), "one\n2\nthree\n")
	run(t, cwd, "commit", "-qam", "edit a")
	run(t, cwd, "rm", "-q", "gone.txt")
	write(t, filepath.Join(cwd, "staged.txt"), "s\n")
	run(t, cwd, "add", "staged.txt")
	write(t, filepath.Join(cwd, "new dir/untracked.txt"), "u1\nu2\nu3")
	write(t, filepath.Join(cwd, "blob.bin"), "a\x00b")
	write(t, filepath.Join(gitDir, "lib.go"), "package lib\n\nfunc F() {}\n")
	write(t, filepath.Join(plain, "new.md"), "new\n")
	write(t, filepath.Join(plain, ".git/ignored"), "not a repo's .git, still skipped\n")

	ctx := context.Background()
	got, err := Compute(ctx, Request{Cwd: cwd, Base: base, Since: since, Folders: []Folder{
		{Path: gitDir, Head: libHead, Since: since},
		{Path: plain, Since: since},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %d sections, want 3: %+v", len(got), got)
	}
	wantCwd := []proto.ReviewFile{
		{Path: "a.txt", Status: proto.ReviewModified, Added: 2, Deleted: 1},
		{Path: "blob.bin", Status: proto.ReviewUntracked, Binary: true},
		{Path: "gone.txt", Status: proto.ReviewDeleted, Deleted: 1},
		{Path: "new dir/untracked.txt", Status: proto.ReviewUntracked, Added: 3},
		{Path: "staged.txt", Status: proto.ReviewAdded, Added: 1},
	}
	if got[0].Kind != proto.ReviewGit || got[0].Base != base || !reflect.DeepEqual(got[0].Files, wantCwd) {
		t.Errorf("cwd section = %+v\nwant kind git, base %s, files %+v", got[0], base, wantCwd)
	}
	wantLib := []proto.ReviewFile{{Path: "lib.go", Status: proto.ReviewModified, Added: 2}}
	if got[1].Kind != proto.ReviewGit || got[1].Base != libHead || !reflect.DeepEqual(got[1].Files, wantLib) {
		t.Errorf("git folder section = %+v, want %+v against %s", got[1], wantLib, libHead)
	}
	wantPlain := []proto.ReviewFile{{Path: "new.md", Status: proto.ReviewModified}}
	if got[2].Kind != proto.ReviewMtime || !reflect.DeepEqual(got[2].Files, wantPlain) || !strings.Contains(got[2].Note, "not a git repository") {
		t.Errorf("plain folder section = %+v, want %+v by mtime", got[2], wantPlain)
	}

	d, err := FileDiff(ctx, got[0], wantCwd[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d.Text, "@@") || !strings.Contains(d.Text, "\n-two\n") || !strings.Contains(d.Text, "\n+2\n+three\n") {
		t.Errorf("diff of a.txt =\n%s\nwant -two +2 +three", d.Text)
	}
	d, err = FileDiff(ctx, got[0], wantCwd[3], 0)
	if err != nil || !strings.Contains(d.Text, "+u1\n+u2\n+u3") {
		t.Errorf("diff of an untracked file = %q, %v", d.Text, err)
	}
	if d, _ := FileDiff(ctx, got[0], wantCwd[1], 0); !d.Binary || d.Text != "" || d.Reason() == "" {
		t.Errorf("binary file's diff = %+v, want named binary, not drawn", d)
	}
	if d, _ := FileDiff(ctx, got[0], wantCwd[0], 20); !d.TooLarge || d.Text != "" {
		t.Errorf("diff over the cap = %+v, want too large", d)
	}
	if d, _ := FileDiff(ctx, got[2], wantPlain[0], 0); !d.NotDiffed {
		t.Errorf("mtime file's diff = %+v, want not diffed", d)
	}

	// The compare side moved to the commit after the base: a.txt's
	// committed change drops out.
	head, err := ResolveCommit(ctx, cwd, "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	s, err := GitSection(ctx, cwd, head)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Files {
		if f.Path == "a.txt" {
			t.Errorf("against HEAD a.txt is still listed: %+v", s.Files)
		}
	}
	if _, err := ResolveCommit(ctx, cwd, "--output=/tmp/x"); err == nil {
		t.Error("a ref that is an option was accepted")
	}
	if _, err := ResolveCommit(ctx, cwd, "no-such-branch"); err == nil {
		t.Error("a missing ref resolved")
	}
}

func TestMtimeSectionCaps(t *testing.T) {
	dir := t.TempDir()
	since := time.Now()
	for i := range MaxListed + 3 {
		write(t, filepath.Join(dir, "f", strings.Repeat("x", 1+i%7)+"-"+time.Duration(i).String()), "x")
	}
	s := MtimeSection(dir, since)
	if len(s.Files) != MaxListed || !strings.Contains(s.Note, "3 more files not listed") {
		t.Fatalf("listed %d, note %q; want %d and 3 more", len(s.Files), s.Note, MaxListed)
	}
}

// TestFolderNoLongerRepo: a folder whose baseline recorded a HEAD but is no
// longer in a work tree is reviewed by mtime and says why, though git was
// asked about it beside the review's own commands; in a work tree, a base
// git does not know is an error, not an mtime review.
func TestFolderNoLongerRepo(t *testing.T) {
	root := t.TempDir()
	was := filepath.Join(root, "was")
	head := repo(t, was, map[string]string{"a.txt": "a\n"})
	if err := os.RemoveAll(filepath.Join(was, ".git")); err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	// a.txt was written just before: within the review's slack for the
	// kernel's coarse clock, so it is dated well before, as in use.
	old := since.Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(was, "a.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(was, "b.txt"), "b\n")
	ctx := context.Background()
	got, err := Compute(ctx, Request{Cwd: was, Base: head, Since: since})
	if err != nil {
		t.Fatal(err)
	}
	want := []proto.ReviewFile{{Path: "b.txt", Status: proto.ReviewModified}}
	if len(got) != 1 || got[0].Kind != proto.ReviewMtime || !reflect.DeepEqual(got[0].Files, want) || !strings.Contains(got[0].Note, "no longer a git repository") {
		t.Errorf("sections = %+v; want one by mtime listing %+v, noting it is no longer a git repository", got, want)
	}

	live := filepath.Join(root, "live")
	repo(t, live, map[string]string{"a.txt": "a\n"})
	if _, err := Compute(ctx, Request{Cwd: live, Base: strings.Repeat("0", 40), Since: since}); err == nil || !strings.Contains(err.Error(), "review "+live) {
		t.Errorf("a base unknown to the repository: error %v; want the review's failure", err)
	}
}

// TestFileDiffIsGitsOwn: the diff of a tracked file, made against an index
// of its own (trackedDiff), is byte for byte what `git diff BASE -- path`
// prints: a file changed (committed since and then edited), one deleted,
// one whose mode changed, and one in a section that is a folder inside
// the repository, its paths relative to that folder.
func TestFileDiffIsGitsOwn(t *testing.T) {
	root := t.TempDir()
	top := filepath.Join(root, "repo")
	base := repo(t, top, map[string]string{"a.txt": "one\ntwo\n", "gone.txt": "x\n", "run.sh": "echo\n", "sub/in.txt": "in\n", "sub/deep/d.txt": "d\n"})
	write(t, filepath.Join(top, "a.txt"), "one\n2\n")
	run(t, top, "commit", "-qam", "edit a")
	write(t, filepath.Join(top, "a.txt"), "one\n2\nthree\n")
	if err := os.Remove(filepath.Join(top, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(top, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(top, "sub/deep/d.txt"), "d\nmore\n")
	write(t, filepath.Join(top, "sub/in.txt"), "IN\n")

	ctx := context.Background()
	for _, c := range []struct{ folder, path string }{
		{top, "a.txt"}, {top, "gone.txt"}, {top, "run.sh"},
		{filepath.Join(top, "sub"), "in.txt"}, {filepath.Join(top, "sub"), "deep/d.txt"},
	} {
		want, _, err := gitCapped(ctx, c.folder, nil, DefaultMaxDiffBytes, "diff", "--relative", "--no-ext-diff", "--no-textconv", base, "--", c.path)
		if err != nil || want == "" {
			t.Fatalf("git's own diff of %s: %q, %v", c.path, want, err)
		}
		d, err := FileDiff(ctx, proto.ReviewSection{Folder: c.folder, Kind: proto.ReviewGit, Base: base}, proto.ReviewFile{Path: c.path, Status: proto.ReviewModified}, 0)
		if err != nil || d.Text != want {
			t.Errorf("%s in %s (err %v):\n%s\nwant git's own:\n%s", c.path, c.folder, err, d.Text, want)
		}
	}
	// Added since the base and staged: the whole file, as new.
	write(t, filepath.Join(top, "sub/new.txt"), "n1\nn2\n")
	run(t, top, "add", "sub/new.txt")
	d, err := FileDiff(ctx, proto.ReviewSection{Folder: filepath.Join(top, "sub"), Kind: proto.ReviewGit, Base: base}, proto.ReviewFile{Path: "new.txt", Status: proto.ReviewAdded}, 0)
	if err != nil || !strings.Contains(d.Text, "+n1\n+n2\n") {
		t.Errorf("a file added since the base: %q, %v", d.Text, err)
	}
}
