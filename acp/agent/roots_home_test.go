package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestRootsNeverServeTheAgentHome: a chat whose folder holds the agent
// home (a user who added ~) reads and writes that folder but nothing
// inside the agent home, by any spelling or symlink; a chat with no
// project still reads and writes its own home folder, which is inside it.
func TestRootsNeverServeTheAgentHome(t *testing.T) {
	user := canonicalTemp(t)
	home := filepath.Join(user, ".local/share/acpmux")
	own := filepath.Join(home, "homes", "abc123")
	mkdirs(t, user, "project", ".local/share/acpmux/chats", ".local/share/acpmux/homes/abc123", ".local/share/acpmux/homes/other")
	write := func(p, text string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	chatFile := filepath.Join(home, "chats", "other.toml")
	write(chatFile, "version = 1\n")
	write(filepath.Join(user, "notes.txt"), "notes\n")
	write(filepath.Join(own, "mine.txt"), "mine\n")
	write(filepath.Join(home, "homes", "other", "theirs.txt"), "theirs\n")
	if err := os.Symlink(chatFile, filepath.Join(user, "project", "link.toml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, "chats"), filepath.Join(user, "chats-link")); err != nil {
		t.Fatal(err)
	}

	// The chat has no project (its cwd is its own home folder) and the
	// user's whole folder as an additional folder.
	r := NewRoots(home, own, []string{user})
	ctx := context.Background()
	for _, tt := range []struct {
		path string
		ok   bool
	}{
		{filepath.Join(user, "notes.txt"), true},
		{filepath.Join(own, "mine.txt"), true},
		{chatFile, false},
		{filepath.Join(home, "homes", "other", "theirs.txt"), false},
		{filepath.Join(user, "project", "link.toml"), false},
		{filepath.Join(user, "chats-link", "other.toml"), false},
		{filepath.Join(user, ".local/share/acpmux/chats/../chats/other.toml"), false},
	} {
		_, err := r.ReadText(ctx, tt.path, nil, nil, 1<<20)
		if (err == nil) != tt.ok {
			t.Errorf("read %s: %v, want served %v", tt.path, err, tt.ok)
		}
	}
	for _, tt := range []struct {
		path string
		ok   bool
	}{
		{filepath.Join(user, "new.txt"), true},
		{filepath.Join(own, "new.txt"), true},
		{filepath.Join(home, "chats", "evil.toml"), false},
		{filepath.Join(user, "chats-link", "evil.toml"), false},
		{filepath.Join(home, "acpmux.sock"), false},
		{chatFile, false},
	} {
		err := r.WriteText(tt.path, "x\n", 1<<20)
		if (err == nil) != tt.ok {
			t.Errorf("write %s: %v, want served %v", tt.path, err, tt.ok)
		}
	}
	if b, _ := os.ReadFile(chatFile); string(b) != "version = 1\n" {
		t.Fatalf("the chat file was changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(home, "chats", "evil.toml")); err == nil {
		t.Fatal("a file was written into the chats folder")
	}
}
