package agent

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
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

// TestRootsChatRunInAFolderThatHoldsTheAgentHome: a chat whose own folder
// holds the agent home (cwd = ~) reads and writes the rest of that folder,
// but nothing inside the agent home: not the chat files, not another
// chat's home folder, not the lock, not a chat file reached through
// /proc/self/fd. A chat run in / reads nothing under /proc or /sys.
func TestRootsChatRunInAFolderThatHoldsTheAgentHome(t *testing.T) {
	user := canonicalTemp(t)
	home := filepath.Join(user, ".local/share/acpmux")
	mkdirs(t, user, "src", ".local/share/acpmux/chats", ".local/share/acpmux/homes/other")
	chatFile := filepath.Join(home, "chats", "other.toml")
	for p, text := range map[string]string{
		chatFile:                                            "version = 1\n",
		filepath.Join(home, "acpmux.lock"):                  "",
		filepath.Join(user, "notes.txt"):                    "notes\n",
		filepath.Join(user, "src", "a.go"):                  "package a\n",
		filepath.Join(home, "homes", "other", "theirs.txt"): "theirs\n",
	} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	held, err := os.Open(chatFile)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()

	r := NewRoots(home, user, nil)
	ctx := context.Background()
	for _, tt := range []struct {
		path string
		ok   bool
	}{
		{filepath.Join(user, "notes.txt"), true},
		{filepath.Join(user, "src", "a.go"), true},
		{chatFile, false},
		{filepath.Join(home, "acpmux.lock"), false},
		{filepath.Join(home, "homes", "other", "theirs.txt"), false},
		{filepath.Join(user, "src", "..", ".local/share/acpmux/chats/other.toml"), false},
		{"/proc/self/fd/" + strconv.Itoa(int(held.Fd())), false},
	} {
		_, err := r.ReadText(ctx, tt.path, nil, nil, 1<<20)
		if (err == nil) != tt.ok {
			t.Errorf("read %s: %v, want served %v", tt.path, err, tt.ok)
		}
		if err != nil && err.Error() != RefusalOutside {
			t.Errorf("read %s refused as %q, want %q (nothing about what is there)", tt.path, err, RefusalOutside)
		}
	}
	for _, tt := range []struct {
		path string
		ok   bool
	}{
		{filepath.Join(user, "new.txt"), true},
		{filepath.Join(home, "chats", "evil.toml"), false},
		{chatFile, false},
		{filepath.Join(home, "homes", "other", "theirs.txt"), false},
	} {
		if err := r.WriteText(tt.path, "x\n", 1<<20); (err == nil) != tt.ok {
			t.Errorf("write %s: %v, want served %v", tt.path, err, tt.ok)
		}
	}
	if b, _ := os.ReadFile(chatFile); string(b) != "version = 1\n" {
		t.Fatalf("the chat file was changed: %q", b)
	}
	if err := r.ConfineDir(filepath.Join(home, "chats")); err == nil {
		t.Error("a terminal may start in the agent home's chats/")
	}
	if err := r.ConfineDir(filepath.Join(user, "src")); err != nil {
		t.Errorf("a terminal in the chat's own src/: %v", err)
	}

	root := NewRoots(home, "/", nil)
	for _, p := range []string{"/proc/self/environ", "/proc/self/status", "/proc/self/fd/" + strconv.Itoa(int(held.Fd())), "/sys/kernel/mm/transparent_hugepage/enabled", chatFile} {
		if _, err := root.ReadText(ctx, p, nil, nil, 1<<20); err == nil {
			t.Errorf("a chat run in / read %s", p)
		}
	}
	if err := root.WriteText("/proc/self/comm", "x", 1<<20); err == nil {
		t.Error("a chat run in / wrote /proc/self/comm")
	}
	if _, err := root.ReadText(ctx, filepath.Join(user, "notes.txt"), nil, nil, 1<<20); err != nil {
		t.Errorf("a chat run in / cannot read a plain file: %v", err)
	}
}
