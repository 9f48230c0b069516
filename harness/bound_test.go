package harness

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/sessions"
)

func TestExpandState(t *testing.T) {
	env := []string{"HOME=/home/u", "CODEX_HOME=/srv/codex", "XDG_DATA_HOME=/data"}
	for _, tc := range []struct{ entry, want string }{
		{"~/.claude/", "/home/u/.claude/"},
		{"~/.claude.json", "/home/u/.claude.json"},
		{"$CODEX_HOME/|~/.codex/", "/srv/codex/"},
		{"$CLAUDE_CONFIG_DIR/|~/.claude/", "/home/u/.claude/"},
		{"$XDG_DATA_HOME/opencode/|~/.local/share/opencode/", "/data/opencode/"},
		{"$XDG_STATE_HOME/opencode/|~/.local/state/opencode/", "/home/u/.local/state/opencode/"},
		{"/opt/tool/", "/opt/tool/"},
		{"$UNSET/x/", ""},
	} {
		if got := expandState(tc.entry, env); got != tc.want {
			t.Errorf("expandState(%q) = %q, want %q", tc.entry, got, tc.want)
		}
	}
	if got := expandState("~/.pi/", nil); got != "" {
		t.Errorf("no HOME: %q", got)
	}
}

// TestBound: the bound of a sandboxed chat holds its scratch folder first
// (the canary is written there), its folder, its folders, its files, the
// harness's state (made when a folder, left out when a file is missing),
// the agent home hidden, and for a git working tree .git pinned with its
// hooks and config read-only; resolved paths only.
func TestBound(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(p string) string {
		t.Helper()
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	home, user := mk(filepath.Join(root, "agent")), mk(filepath.Join(root, "user"))
	proj, extra := mk(filepath.Join(root, "proj")), mk(filepath.Join(root, "extra"))
	mk(filepath.Join(proj, ".git"))
	if err := os.WriteFile(filepath.Join(proj, ".git", "config"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(root, "notes.md")
	if err := os.WriteFile(notes, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(extra, link); err != nil {
		t.Fatal(err)
	}
	m := &sessions.Meta{ID: "abc", Harness: "claude", Cwd: proj, AdditionalDirectories: []string{link}, AdditionalFiles: []string{notes}, Sandbox: true}
	spec, _ := mustTable(t).Get("claude")
	b, err := spec.Bound(m, home, []string{"HOME=" + user}, true)
	if err != nil {
		t.Fatal(err)
	}
	scratch := filepath.Join(home, "tmp", "abc")
	wantW := []string{scratch, proj, extra, filepath.Join(user, ".claude"), filepath.Join(user, ".cache", "claude-cli-nodejs")}
	if !slices.Equal(b.Writable, wantW) {
		t.Errorf("writable %q, want %q", b.Writable, wantW)
	}
	claudeJSON := filepath.Join(user, ".claude.json")
	if !slices.Equal(b.WritableFiles, []string{notes, claudeJSON}) {
		t.Errorf("writable files %q", b.WritableFiles)
	}
	if text, err := os.ReadFile(claudeJSON); err != nil || string(text) != "{}\n" {
		t.Errorf("~/.claude.json not made for Claude Code to write in place: %q %v", text, err)
	}
	if !slices.Equal(b.Hidden, []string{home}) || b.Scratch != scratch {
		t.Errorf("hidden %q scratch %q", b.Hidden, b.Scratch)
	}
	git := filepath.Join(proj, ".git")
	if !slices.Equal(b.Pinned, []string{git}) || !slices.Equal(b.ReadOnly, []string{filepath.Join(git, "hooks"), filepath.Join(git, "config")}) {
		t.Errorf("pinned %q read-only %q", b.Pinned, b.ReadOnly)
	}
	if want := "landlock · writes: folder, 1 folder, 1 file, tmp, ~/.claude, ~/.claude.json, ~/.cache/claude-cli-nodejs · .git/hooks read-only"; b.Summary != want {
		t.Errorf("summary %q, want %q", b.Summary, want)
	}
	for _, p := range []string{scratch, filepath.Join(git, "hooks"), filepath.Join(user, ".claude")} {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			t.Errorf("%s not made: %v", p, err)
		}
	}
	// An existing one is kept as it is.
	if err := os.WriteFile(claudeJSON, []byte(`{"theme":"dark"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ = spec.Bound(m, home, []string{"HOME=" + user}, true); !slices.Contains(b.WritableFiles, claudeJSON) {
		t.Errorf("~/.claude.json not writable: %q", b.WritableFiles)
	}
	if text, _ := os.ReadFile(claudeJSON); string(text) != `{"theme":"dark"}` {
		t.Errorf("~/.claude.json rewritten: %q", text)
	}

	// A chat whose folder holds the agent home cannot be sandboxed.
	m.Cwd = root
	if _, err := spec.Bound(m, home, []string{"HOME=" + user}, false); err == nil || !strings.Contains(err.Error(), "holds the agent home") {
		t.Errorf("a folder holding the agent home: %v", err)
	}
}

// TestBoundOfALinkedWorktree: a linked worktree's .git file is read-only
// and its repository's common folder is writable, with hooks and config
// read-only, so commits work and hooks cannot be planted.
func TestBoundOfALinkedWorktree(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	common := filepath.Join(root, "repo", ".git")
	gitDir := filepath.Join(common, "worktrees", "wt")
	wt := filepath.Join(root, "wt")
	for _, d := range []string{gitDir, wt, filepath.Join(root, "agent")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(wt, ".git"):          "gitdir: " + gitDir + "\n",
		filepath.Join(gitDir, "commondir"): "../..\n",
		filepath.Join(common, "config"):    "",
	}
	for p, text := range files {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec, _ := mustTable(t).Get("shell")
	b, err := spec.Bound(&sessions.Meta{ID: "w", Cwd: wt, Sandbox: true}, filepath.Join(root, "agent"), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(b.Writable, common) || !slices.Contains(b.ReadOnly, filepath.Join(wt, ".git")) ||
		!slices.Contains(b.ReadOnly, filepath.Join(common, "hooks")) || !slices.Contains(b.Pinned, common) {
		t.Errorf("worktree bound: writable %q read-only %q pinned %q", b.Writable, b.ReadOnly, b.Pinned)
	}
}

func TestSandboxedDefault(t *testing.T) {
	on, off := true, false
	cfg := config.Defaults()
	if (Spec{}).Sandboxed(cfg) {
		t.Error("sandboxed with nothing set")
	}
	cfg.Sandbox = true
	if !(Spec{}).Sandboxed(cfg) || (Spec{Sandbox: &off}).Sandboxed(cfg) {
		t.Error("the config's default, or the harness's own over it")
	}
	cfg.Sandbox = false
	if !(Spec{Sandbox: &on}).Sandboxed(cfg) {
		t.Error("the harness's own sandbox = true")
	}
}

func mustTable(t *testing.T) *Table {
	t.Helper()
	table, err := NewTable(config.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	return table
}
