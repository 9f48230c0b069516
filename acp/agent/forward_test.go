package agent

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRootsConfine: what a forwarded file request must pass before any
// client sees it, the rules of serving it: a read names a regular file
// inside the roots; a write such a file or a new name in a folder of them;
// a way out by "..", a symlink or the agent home is refused.
func TestRootsConfine(t *testing.T) {
	base := canonicalTemp(t)
	home := filepath.Join(base, "home")
	mkdirs(t, base, "proj/sub", "out", "home/chats")
	proj := filepath.Join(base, "proj")
	write := func(p string) {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(proj, "a.txt"))
	write(filepath.Join(base, "out", "secret.txt"))
	write(filepath.Join(home, "chats", "c.toml"))
	if err := os.Symlink(filepath.Join(base, "out", "secret.txt"), filepath.Join(proj, "link-out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "out", "gone.txt"), filepath.Join(proj, "dangling-out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "out"), filepath.Join(proj, "dir-out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, "chats"), filepath.Join(proj, "home-link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(proj, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := NewRoots(home, proj, nil)
	t.Cleanup(r.close)
	cases := []struct {
		path     string
		forWrite bool
		ok       bool
	}{
		{filepath.Join(proj, "a.txt"), false, true},
		{filepath.Join(proj, "a.txt"), true, true},
		{filepath.Join(proj, "sub", "new.txt"), false, false}, // a read must name a file that is there
		{filepath.Join(proj, "sub", "new.txt"), true, true},
		{filepath.Join(proj, "nosuch", "new.txt"), true, false},
		{filepath.Join(proj, "..", "out", "secret.txt"), false, false},
		{filepath.Join(base, "out", "secret.txt"), false, false},
		{filepath.Join(base, "out", "new.txt"), true, false},
		{filepath.Join(proj, "link-out"), false, false},
		{filepath.Join(proj, "link-out"), true, false},
		{filepath.Join(proj, "dangling-out"), true, false},
		{filepath.Join(proj, "dir-out", "secret.txt"), false, false},
		{filepath.Join(proj, "dir-out", "new.txt"), true, false},
		{filepath.Join(proj, "home-link", "c.toml"), false, false},
		{filepath.Join(proj, "fifo"), false, false},
		{filepath.Join(proj, "fifo"), true, false},
		{filepath.Join(proj, "sub"), false, false},
		{"rel/a.txt", false, false},
	}
	for _, c := range cases {
		err := r.Confine(c.path, c.forWrite)
		if (err == nil) != c.ok {
			t.Errorf("confine(%q, write=%v) = %v, want ok=%v", c.path, c.forWrite, err, c.ok)
		}
		var fr *fsRefusal
		if err != nil && !errors.As(err, &fr) {
			t.Errorf("confine(%q): %v is no refusal the agent can be told", c.path, err)
		}
	}
	if err := r.ConfineDir(filepath.Join(proj, "sub")); err != nil {
		t.Errorf("a terminal in a folder of the chat: %v", err)
	}
	for _, d := range []string{filepath.Join(base, "out"), filepath.Join(proj, "dir-out"), filepath.Join(proj, "home-link"), filepath.Join(proj, "a.txt")} {
		if err := r.ConfineDir(d); err == nil {
			t.Errorf("a terminal in %s was let through", d)
		}
	}
}
