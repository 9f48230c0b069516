package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// writeFile writes a small file under the test's root and returns its path.
func (c *cli) writeFile(rel string) string {
	c.t.Helper()
	p := filepath.Join(c.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("spec\n"), 0o644); err != nil {
		c.t.Fatal(err)
	}
	return p
}

// TestCLIFileFlagsAndRefusals: --file repeats on new, relative paths and
// ~ resolved against the caller, stored canonical; a bad --dir and a bad
// --file in one new are refused together (exit 2, every entry named,
// nothing written).
func TestCLIFileFlagsAndRefusals(t *testing.T) {
	c := newCLI(t)
	work := c.dir("work")
	spec, notes := c.writeFile("work/spec.md"), c.writeFile("user/notes.md") // HOME is root/user
	j := c.chatIn(work, "new", "--file", "spec.md", "--file", "~/notes.md", "--file", "./spec.md", "--name", "files", "--json")
	if !slices.Equal(j.AdditionalFiles, []string{spec, notes}) {
		t.Fatalf("new --file: %q, want %q", j.AdditionalFiles, []string{spec, notes})
	}
	if m := loadChat(t, c, j.ID); !slices.Equal(m.AdditionalFiles, []string{spec, notes}) {
		t.Fatalf("stored: %q", m.AdditionalFiles)
	}

	// The bare command's launch flags take --file too (with no terminal it
	// prints the chat it made, as new does).
	if r := c.runIn(work, nil, "--file", "spec.md", "--name", "bare"); r.code != 0 || !hasRow(r.stdout, "files", spec) {
		t.Fatalf("bare --file: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	before := c.chatFiles()
	if r := c.runIn(work, nil, "--file", "gone.md"); r.code != 2 || !strings.Contains(r.stderr, "-32602") {
		t.Fatalf("bare --file of a file that is not there: exit %d\n%s", r.code, r.stderr)
	}
	r := c.runIn(work, nil, "new", "--dir", "no-such-dir", "--file", ".", "--file", "gone.md")
	if r.code != 2 || !strings.Contains(r.stderr, "-32602") || !strings.Contains(r.stderr, "additionalDirectories and additionalFiles refused") {
		t.Fatalf("a bad --dir with bad --file: exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{filepath.Join(work, "no-such-dir") + `": does not exist`, work + `": is a folder, not a file`, filepath.Join(work, "gone.md") + `": does not exist`} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the refusal does not name %q:\n%s", want, r.stderr)
		}
	}
	if after := c.chatFiles(); !slices.Equal(after, before) {
		t.Fatalf("a refusal wrote chat files: %q → %q", before, after)
	}
}

// TestCLIAddAndRemoveFiles mirrors add-dir and rm-dir: relative paths
// resolved against the caller, a file the chat has said and kept, a
// refusal exits 2 and writes nothing, show lists the files with a mark for
// one that has gone, and rm-file takes it out.
func TestCLIAddAndRemoveFiles(t *testing.T) {
	c := newCLI(t)
	work := c.dir("work")
	a, b := c.writeFile("work/a.md"), c.writeFile("work/b.md")
	j := c.chat("new", "--name", "docs", "--file", a, "--json")

	out := c.runIn(work, nil, "add-file", "docs", "b.md", "a.md")
	if out.code != 0 || !strings.Contains(out.stderr, "already has "+a) || !hasRow(out.stdout, "files", a) || !hasRow(out.stdout, "", b) {
		t.Fatalf("add-file: exit %d\n%s\n%s", out.code, out.stdout, out.stderr)
	}
	if got := c.chat("show", j.ID, "--json"); !slices.Equal(got.AdditionalFiles, []string{a, b}) {
		t.Fatalf("after add-file: %q", got.AdditionalFiles)
	}
	if r := c.run("add-file", "docs", a); r.code != 0 || !strings.Contains(r.stdout, "nothing changed") {
		t.Errorf("add-file of a file the chat has: %d %s", r.code, r.stdout)
	}

	path := filepath.Join(c.home, "chats", j.ID+".toml")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(work, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r := c.runIn(work, nil, "add-file", "docs", c.writeFile("work/c.md"), "pipe", "lib")
	if r.code != 2 || !strings.Contains(r.stderr, "-32602") || !strings.Contains(r.stderr, `[1] "`+fifo+`": is a FIFO`) ||
		!strings.Contains(r.stderr, `[2] "`+filepath.Join(work, "lib")+`": does not exist`) {
		t.Errorf("refused add-file: %d\n%s", r.code, r.stderr)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("a refused add-file changed the chat file")
	}
	if r := c.run("add-file", "docs"); r.code != 2 {
		t.Errorf("add-file with no file exited %d", r.code)
	}

	// show marks a file that has gone; rm-file still takes it out.
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	show := c.ok("show", "docs")
	if !hasRow(show, "files", a) || !hasRow(show, "", b+"  ✗ does not exist (rm-file removes it)") {
		t.Errorf("show with a file gone:\n%s", show)
	}
	c.runIn(work, nil, "rm-file", "docs", "b.md")
	if got := c.chat("show", j.ID, "--json"); !slices.Equal(got.AdditionalFiles, []string{a}) {
		t.Fatalf("after rm-file: %q", got.AdditionalFiles)
	}
	if r := c.run("rm-file", "docs", b); r.code == 0 || !strings.Contains(r.stderr, b) {
		t.Errorf("rm-file of a file not there: %d %s", r.code, r.stderr)
	}
	c.ok("rm-file", "docs", a)
	if got := c.chat("show", j.ID, "--json"); got.AdditionalFiles == nil || len(got.AdditionalFiles) != 0 || got.FilesVia != "none" {
		t.Fatalf("after the last rm-file: %#v via %q", got.AdditionalFiles, got.FilesVia)
	}
	if show := c.ok("show", "docs"); !hasRow(show, "files", "(none)") {
		t.Errorf("show with no files:\n%s", show)
	}
}

// TestCLIDerivedChatsKeepTheirFiles: fork, side and handoff from the
// command line carry the parent's files.
func TestCLIDerivedChatsKeepTheirFiles(t *testing.T) {
	c := newCLI(t)
	spec := c.writeFile("specs/api.md")
	lib := c.dir("lib")
	j := c.chat("new", "--name", "parent", "--dir", lib, "--file", spec, "--json")
	for _, args := range [][]string{
		{"fork", j.ID, "--json"},
		{"side", j.ID, "--json"},
		{"handoff", j.ID, "--to", "codex", "--json"},
	} {
		d := c.chat(args...)
		if !slices.Equal(d.AdditionalFiles, []string{spec}) || !slices.Equal(d.AdditionalDirectories, []string{lib}) {
			t.Errorf("%s: files %q folders %q", args[0], d.AdditionalFiles, d.AdditionalDirectories)
		}
		if m := loadChat(t, c, d.ID); !slices.Equal(m.AdditionalFiles, []string{spec}) {
			t.Errorf("%s stored files %q", args[0], m.AdditionalFiles)
		}
	}
}
