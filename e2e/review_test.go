package e2e

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// waitChat waits, with a deadline, until chat id's file satisfies cond; what
// names the wait in the failure.
func waitChat(t *testing.T, c *cli, id, what string, cond func(*sessions.Meta) bool) *sessions.Meta {
	t.Helper()
	deadline := time.NewTimer(e2eDeadline)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		m := loadChat(t, c, id)
		if cond(m) {
			return m
		}
		select {
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s; the chat: %+v", what, m)
		case <-tick.C:
		}
	}
}

// TestE2EReviewPane runs the real binary in tmux on a chat whose folder is a
// git repository, with two folders (one a repository, one not). Its
// harness, a shell, edits files in all three after its first start; the
// review pane (d) lists exactly those files with the diff of the selected
// one, and `diff --json` reports the same.
func TestE2EReviewPane(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	c.withGit()
	proj, lib, notes := c.dir("proj"), c.dir("lib"), c.dir("notes")
	base := gitRepo(t, proj, map[string]string{"README": "one\ntwo\n", "main.go": "package main\n"})
	libHead := gitRepo(t, lib, map[string]string{"lib.go": "package lib\n"})
	writeTree(t, filepath.Join(notes, "old.md"), "before\n")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(notes, "old.md"), old, old); err != nil {
		t.Fatal(err)
	}
	s := startTmux(t, 140, 45, append(c.env(), "TERM=xterm-256color"), []string{binary, "--cwd", proj, "--dir", lib, "--dir", notes})

	s.waitText("keys go to")
	list := c.ls()
	if len(list) != 1 {
		t.Fatalf("stored chats: %+v", list)
	}
	id := list[0].ID
	// The first start records the baseline: HEAD of the chat's folder and
	// of the git folder, none for the other.
	m := waitChat(t, c, id, "the baseline of the first start", func(m *sessions.Meta) bool { return m.Baseline != nil })
	if m.Baseline.Head != base {
		t.Fatalf("baseline head %q, want %s", m.Baseline.Head, base)
	}
	if fb, ok := m.Baseline.Folder(lib); !ok || fb.Head != libHead {
		t.Fatalf("lib's baseline %+v (%v), want head %s", fb, ok, libHead)
	}
	if fb, ok := m.Baseline.Folder(notes); !ok || fb.Head != "" {
		t.Fatalf("notes' baseline %+v (%v), want one with no head", fb, ok)
	}

	// The harness edits: one file changed and one added in its folder, one
	// changed in the git folder, one written in the other.
	s.text("echo changed >> README; printf 'a\\nb\\n' > added.txt; echo '// F.' >> ../lib/lib.go; echo todo > ../notes/todo.md; echo EDITS-DONE")
	s.keys("Enter")
	s.waitText("│EDITS-DONE")

	s.keys("C-]")
	s.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to") })
	s.keys("d")
	scr := s.waitText("─ review ", "M README  +1 -0", "? added.txt  +2 -0", "M lib.go  +1 -0", "~ todo.md  modified", "+changed", "@@ -1,2 +1,3 @@")
	if strings.Contains(scr, "old.md") || strings.Contains(scr, "main.go") {
		t.Errorf("the pane lists a file that did not change:\n%s", scr)
	}
	// Down to the next file: its diff.
	s.keys("Down")
	s.waitText("> ? added.txt", "+a", "+b")
	s.keys("Escape")
	s.waitFor("the review pane to close", func(scr string) bool { return !strings.Contains(scr, "─ review ") })

	d := c.diffJSON(id)
	want := []proto.ReviewSection{
		{Folder: proj, Kind: proto.ReviewGit, Base: base, Files: []proto.ReviewFile{
			{Path: "README", Status: proto.ReviewModified, Added: 1},
			{Path: "added.txt", Status: proto.ReviewUntracked, Added: 2},
		}},
		{Folder: lib, Kind: proto.ReviewGit, Base: libHead, Files: []proto.ReviewFile{{Path: "lib.go", Status: proto.ReviewModified, Added: 1}}},
		{Folder: notes, Kind: proto.ReviewMtime, Files: []proto.ReviewFile{{Path: "todo.md", Status: proto.ReviewModified}}},
	}
	if len(d.Sections) != len(want) {
		t.Fatalf("diff --json has %d sections, want %d: %+v", len(d.Sections), len(want), d)
	}
	for i, w := range want {
		g := d.Sections[i]
		if g.Folder != w.Folder || g.Kind != w.Kind || w.Kind == proto.ReviewGit && g.Base != w.Base || !reflect.DeepEqual(g.Files, w.Files) {
			t.Errorf("section %d = %+v\nwant %+v", i, g, w)
		}
	}
}
