package sessions

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestWorktreeRoundTrip(t *testing.T) {
	text := `version = 1
id = "k3x9q2"
name = "fix"
harness = "claude"
cwd = "/home/me/wt/k3x9q2"
additional_directories = []
created = 2026-11-30T22:00:00Z
later_key = "kept"

[worktree]
path = "/home/me/wt/k3x9q2"
branch = "acpmux/fix-k3x9q2"
base = "0123456789abcdef0123456789abcdef01234567"
base_ref = "main"
repo = "/home/me/src/app"
`
	m, err := ParseMeta([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := &Worktree{Path: "/home/me/wt/k3x9q2", Branch: "acpmux/fix-k3x9q2",
		Base: "0123456789abcdef0123456789abcdef01234567", BaseRef: "main", Repo: "/home/me/src/app"}
	if !reflect.DeepEqual(m.Worktree, want) {
		t.Fatalf("Worktree = %+v, want %+v", m.Worktree, want)
	}
	out, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseMeta(out)
	if err != nil {
		t.Fatalf("reparse %s: %v", out, err)
	}
	if !reflect.DeepEqual(again.Worktree, want) || again.extra["later_key"] != "kept" {
		t.Errorf("after a rewrite: worktree %+v, extra %v\n%s", again.Worktree, again.extra, out)
	}
	if c := m.Clone(); c.Worktree == m.Worktree {
		t.Error("Clone shares the worktree")
	}

	for _, bad := range []struct{ from, to, says string }{
		{`path = "/home/me/wt/k3x9q2"`, `path = "wt"`, "worktree.path"},
		{`branch = "acpmux/fix-k3x9q2"`, `branch = ""`, "worktree.branch"},
		{`repo = "/home/me/src/app"`, `repo = ""`, "worktree.repo"},
	} {
		if _, err := ParseMeta([]byte(strings.Replace(text, bad.from, bad.to, 1))); err == nil || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("%s: ParseMeta = %v, want an error naming %s", bad.to, err, bad.says)
		}
	}
}

func TestWorktreeJSONMissing(t *testing.T) {
	dir := t.TempDir()
	w := &Worktree{Path: dir, Branch: "b", Base: "c", Repo: dir}
	if j := w.JSON(); j.Missing || j.Path != dir {
		t.Errorf("JSON of a present worktree = %+v", j)
	}
	gone := filepath.Join(dir, "gone")
	w.Path = gone
	if j := w.JSON(); !j.Missing {
		t.Errorf("JSON of a gone worktree = %+v, want missing", j)
	}
	if (*Worktree)(nil).JSON() != nil {
		t.Error("JSON of no worktree is not nil")
	}
}

func TestCreateInWorktreesDir(t *testing.T) {
	home := t.TempDir()
	s, err := OpenStore(home)
	if err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(s.WorktreesDir(), "abc")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(NewChat{Harness: "shell", Cwd: wt}); err != nil {
		t.Errorf("a chat in a worktree under the agent home: %v", err)
	}
	if _, err := s.Create(NewChat{Harness: "shell", Cwd: filepath.Join(s.Home(), "chats")}); err == nil {
		t.Error("a chat in the agent home's chats folder was made")
	}
}
