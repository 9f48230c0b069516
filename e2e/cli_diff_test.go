package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// gitIn runs the real git in dir for a test, failing it on an error.
func gitIn(t testing.TB, dir string, argv ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, argv...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", argv, dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// writeFile writes text at path, making its folder.
func writeTree(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// gitRepo makes a repository at dir with files in one commit; it returns HEAD.
func gitRepo(t testing.TB, dir string, files map[string]string) string {
	t.Helper()
	gitIn(t, filepath.Dir(dir), "init", "-q", "-b", "main", dir)
	for p, text := range files {
		writeTree(t, filepath.Join(dir, p), text)
	}
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "--allow-empty", "-m", "base")
	return gitIn(t, dir, "rev-parse", "HEAD")
}

// withGit puts the real git on the test world's PATH (its bin folder).
func (c *cli) withGit() {
	c.t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		c.t.Skip("git is not installed")
	}
	if err := os.Symlink(git, filepath.Join(c.root, "bin", "git")); err != nil && !os.IsExist(err) {
		c.t.Fatal(err)
	}
}

func (c *cli) diffJSON(args ...string) diffJSON {
	c.t.Helper()
	out := c.ok(append([]string{"diff"}, append(args, "--json")...)...)
	var d diffJSON
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		c.t.Fatalf("diff --json: %v\n%s", err, out)
	}
	return d
}

// TestCLIDiffSections: a chat on a repository with two folders (one a git
// repository, one not), its baseline recorded as a first start records it;
// after edits in all three, `diff --json` lists exactly those, --stat counts
// them, the default prints the diff, and --base moves the compare side.
func TestCLIDiffSections(t *testing.T) {
	c := newCLI(t)
	c.withGit()
	proj, lib, notes := c.dir("proj"), c.dir("lib"), c.dir("notes")
	base := gitRepo(t, proj, map[string]string{"main.go": "package main\n", "README": "one\ntwo\n"})
	libHead := gitRepo(t, lib, map[string]string{"lib.go": "package lib\n"})
	writeTree(t, filepath.Join(notes, "old.md"), "before\n")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(notes, "old.md"), old, old); err != nil {
		t.Fatal(err)
	}
	j := c.chat("new", "--cwd", proj, "--dir", lib, "--dir", notes, "--json")

	// Before a first start there is no baseline: against HEAD, nothing.
	d := c.diffJSON(j.ID)
	if len(d.Sections) != 3 || len(d.Sections[0].Files) != 0 || !strings.Contains(d.Sections[0].Note, "not started") {
		t.Fatalf("diff before a start = %+v, want 3 empty sections, the first noting no start", d)
	}

	// The baseline a first start records (mux.recordBaselineLater).
	store, err := sessions.OpenStore(c.home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.RecordBaseline(j.ID, sessions.NewBaseline(time.Now(), proj, j.AdditionalDirectories)); err != nil {
		t.Fatal(err)
	}
	writeTree(t, filepath.Join(proj, "README"), "one\n2\n")
	gitIn(t, proj, "commit", "-qam", "readme")
	writeTree(t, filepath.Join(proj, "main.go"), "package main\n\nfunc main() {}\n")
	writeTree(t, filepath.Join(proj, "added.txt"), "a\nb\n")
	writeTree(t, filepath.Join(lib, "lib.go"), "package lib\n\n// F.\nfunc F() {}\n")
	writeTree(t, filepath.Join(notes, "todo.md"), "- review\n")

	d = c.diffJSON(j.ID)
	want := []proto.ReviewSection{
		{Folder: proj, Kind: proto.ReviewGit, Base: base, Files: []proto.ReviewFile{
			{Path: "README", Status: proto.ReviewModified, Added: 1, Deleted: 1},
			{Path: "added.txt", Status: proto.ReviewUntracked, Added: 2},
			{Path: "main.go", Status: proto.ReviewModified, Added: 2},
		}},
		{Folder: lib, Kind: proto.ReviewGit, Base: libHead, Files: []proto.ReviewFile{
			{Path: "lib.go", Status: proto.ReviewModified, Added: 3},
		}},
		{Folder: notes, Kind: proto.ReviewMtime, Files: []proto.ReviewFile{{Path: "todo.md", Status: proto.ReviewModified}}},
	}
	if d.ID != j.ID || len(d.Sections) != len(want) {
		t.Fatalf("diff --json = %+v, want id %s and %d sections", d, j.ID, len(want))
	}
	for i, w := range want {
		g := d.Sections[i]
		if g.Folder != w.Folder || g.Kind != w.Kind || w.Kind == proto.ReviewGit && g.Base != w.Base || !reflect.DeepEqual(g.Files, w.Files) {
			t.Errorf("section %d = %+v\nwant %+v", i, g, w)
		}
	}

	stat := c.ok("diff", j.ID, "--stat")
	for _, line := range []string{
		" README    | 2 +-", " added.txt | 2 ++", " main.go   | 2 ++",
		" 3 files changed, 5 insertions(+), 1 deletions(-)",
		" lib.go | 3 +++", " todo.md | modified", " 1 file modified",
	} {
		if !strings.Contains(stat, line+"\n") {
			t.Errorf("diff --stat has no line %q:\n%s", line, stat)
		}
	}
	full := c.ok("diff", j.ID)
	for _, s := range []string{"-two\n+2\n", "+func main() {}\n", "+// F.\n", "# todo.md (modified): not in a git repository"} {
		if !strings.Contains(full, s) {
			t.Errorf("diff has no %q:\n%s", s, full)
		}
	}

	// Against HEAD (after the README commit) the README drops out.
	d = c.diffJSON(j.ID, "--base", "HEAD")
	if got := len(d.Sections[0].Files); got != 2 || d.Sections[0].Files[0].Path != "added.txt" {
		t.Errorf("diff --base HEAD cwd files = %+v, want added.txt and main.go", d.Sections[0].Files)
	}
	if r := c.run("diff", j.ID, "--base", "no-such-ref"); r.code == 0 || !strings.Contains(r.stderr, "no-such-ref") {
		t.Errorf("diff --base no-such-ref: exit %d, stderr %q; want a failure naming the ref", r.code, r.stderr)
	}
	if r := c.run("diff", j.ID, "--parent"); r.code == 0 || !strings.Contains(r.stderr, "no parent") {
		t.Errorf("diff --parent of a chat without one: exit %d, stderr %q", r.code, r.stderr)
	}
}
