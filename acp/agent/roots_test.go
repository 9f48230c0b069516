package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
)

func canonicalTemp(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mkdirs(t *testing.T, base string, rels ...string) {
	t.Helper()
	for _, rel := range rels {
		if err := os.MkdirAll(filepath.Join(base, rel), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// The root that holds a path is the longest lexical match, component by
// component, under its canonical spelling or the one the chat was given.
func TestRootsLocate(t *testing.T) {
	base := canonicalTemp(t)
	mkdirs(t, base, "a/b", "a/bc", "x/sub")
	if err := os.Symlink(filepath.Join(base, "x"), filepath.Join(base, "x-link")); err != nil {
		t.Fatal(err)
	}
	r := NewRoots("", filepath.Join(base, "x-link"), []string{filepath.Join(base, "a/b"), filepath.Join(base, "x/sub"), filepath.Join(base, "missing")})
	dirs := r.state.dirs
	if len(dirs) != 3 || dirs[0].path != filepath.Join(base, "x") || dirs[0].alias != filepath.Join(base, "x-link") {
		t.Fatalf("roots %+v", dirs)
	}
	cases := []struct {
		path string
		root int
		rel  string
	}{
		{filepath.Join(base, "a/b"), 1, "."},
		{filepath.Join(base, "a/b/c/d.txt"), 1, "c/d.txt"},
		{filepath.Join(base, "a/bc/d.txt"), -1, ""},
		{filepath.Join(base, "a"), -1, ""},
		{filepath.Join(base, "x/f.txt"), 0, "f.txt"},
		{filepath.Join(base, "x-link/f.txt"), 0, "f.txt"},
		{filepath.Join(base, "x/sub/f.txt"), 2, "f.txt"},
		{filepath.Join(base, "x/subway"), 0, "subway"},
		{"/", -1, ""},
	}
	for _, c := range cases {
		i, rel, ok := locateIn(dirs, c.path)
		if ok != (c.root >= 0) || (ok && (i != c.root || rel != c.rel)) {
			t.Errorf("locate(%q) = %d %q %v, want %d %q", c.path, i, rel, ok, c.root, c.rel)
		}
	}
	all := NewRoots("", "/", nil)
	if i, rel, ok := locateIn(all.state.dirs, "/etc/hosts"); !ok || i != 0 || rel != "etc/hosts" {
		t.Errorf("a root of / : %d %q %v", i, rel, ok)
	}
}

// A request through a symlink that leaves the folder it is spelled in but
// lands in another of the chat's folders is served through that one; one
// that lands outside gets the one refusal.
func TestRootsSymlinkBetweenRoots(t *testing.T) {
	base := canonicalTemp(t)
	mkdirs(t, base, "one", "two", "out")
	if err := os.WriteFile(filepath.Join(base, "two", "f.txt"), []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "two"), filepath.Join(base, "one", "to-two")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../out", filepath.Join(base, "one", "to-out")); err != nil {
		t.Fatal(err)
	}
	r := NewRoots("", filepath.Join(base, "one"), []string{filepath.Join(base, "two")})
	defer r.close()
	text, err := r.ReadText(context.Background(), filepath.Join(base, "one", "to-two", "f.txt"), nil, nil, 1<<20)
	if err != nil || text != "two" {
		t.Fatalf("read through a link into another root: %q %v", text, err)
	}
	if err := r.WriteText(filepath.Join(base, "one", "to-two", "g.txt"), "g", 1<<20); err != nil {
		t.Fatalf("write through a link into another root: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(base, "two", "g.txt")); string(data) != "g" {
		t.Fatalf("the write landed elsewhere: %q", data)
	}
	if _, err := r.ReadText(context.Background(), filepath.Join(base, "one", "to-two", "missing.txt"), nil, nil, 1<<20); err == nil || err.Error() != "no such file" {
		t.Fatalf("read of a missing file through a link into another root: %v", err)
	}
	for _, p := range []string{filepath.Join(base, "one", "to-out", "x"), filepath.Join(base, "one", "to-out", "missing", "x")} {
		if _, err := r.ReadText(context.Background(), p, nil, nil, 1<<20); err == nil || err.Error() != RefusalOutside {
			t.Fatalf("read through a link out: %v", err)
		}
	}
	if err := os.WriteFile(filepath.Join(base, "out", "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadText(context.Background(), filepath.Join(base, "one", "to-out", "x"), nil, nil, 1<<20); err == nil || err.Error() != RefusalOutside {
		t.Fatalf("read through a link out to a file that exists: %v", err)
	}
}

// A folder replaced since the agent started (moved away and made again) is
// refused, not silently followed.
func TestRootsReplacedFolderIsRefused(t *testing.T) {
	base := canonicalTemp(t)
	dir := filepath.Join(base, "proj")
	mkdirs(t, base, "proj")
	r := NewRoots("", dir, nil)
	defer r.close()
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatal(err)
	}
	mkdirs(t, base, "proj")
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := r.ReadText(context.Background(), filepath.Join(dir, "f.txt"), nil, nil, 1<<20)
	if err == nil || !strings.Contains(err.Error(), "was replaced since the agent started") {
		t.Fatalf("read in a replaced folder: %v", err)
	}
}

// The folders held open are closed when the harness process ends.
func TestRootsClosedWithTheProcess(t *testing.T) {
	dir := canonicalTemp(t)
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("f"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := NewRoots("", dir, nil)
	ctx, cancel := context.WithCancel(context.Background())
	r.bindTo(ctx)
	if text, err := r.ReadText(ctx, filepath.Join(dir, "f.txt"), nil, nil, 1<<20); err != nil || text != "f" {
		t.Fatalf("read: %q %v", text, err)
	}
	if r.state.handles[0] == nil {
		t.Fatal("the folder is not held open")
	}
	cancel()
	wait.Until(t, "the folders to close", func() bool {
		r.state.mu.Lock()
		defer r.state.mu.Unlock()
		return r.state.closed && r.state.handles[0] == nil
	})
	if _, err := r.ReadText(context.Background(), filepath.Join(dir, "f.txt"), nil, nil, 1<<20); err == nil {
		t.Fatal("a read after the process ended was served")
	}
}

// At most maxFSInFlight requests are served at once and maxFSWaiting wait;
// the next is refused at once, and a waiter leaves when its request is
// cancelled.
func TestFSInFlightBound(t *testing.T) {
	r := NewRoots("", canonicalTemp(t), nil)
	ctx := context.Background()
	for range maxFSInFlight {
		if err := r.acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	waitCtx, cancelWaiters := context.WithCancel(ctx)
	var wg sync.WaitGroup
	results := make(chan error, maxFSWaiting)
	for range maxFSWaiting {
		wg.Go(func() { results <- r.acquire(waitCtx) })
	}
	wait.Until(t, "every waiter to queue", func() bool { return len(r.state.waiting) == maxFSWaiting })
	err := r.acquire(ctx)
	if err == nil || !strings.HasPrefix(err.Error(), "too many file requests in flight") {
		t.Fatalf("one over the bound: %v", err)
	}
	// One slot frees: one waiter gets it.
	r.release()
	if err := <-results; err != nil {
		t.Fatalf("a waiter: %v", err)
	}
	cancelWaiters()
	wg.Wait()
	close(results)
	for err := range results {
		var ref *fsRefusal
		if !errors.As(err, &ref) || ref.text != "request cancelled" {
			t.Fatalf("a cancelled waiter: %v", err)
		}
	}
	if len(r.state.waiting) != 0 || len(r.state.slots) != maxFSInFlight {
		t.Fatalf("%d waiting, %d slots taken after the waiters left", len(r.state.waiting), len(r.state.slots))
	}
}

// setFolders changes what is served at once: a folder taken off the list
// is refused from that moment, even with its handle already open; a kept
// one is still served; an added one is served.
func TestRootsSetFolders(t *testing.T) {
	base := canonicalTemp(t)
	mkdirs(t, base, "cwd", "kept", "dropped", "added")
	for _, d := range []string{"kept", "dropped", "added"} {
		if err := os.WriteFile(filepath.Join(base, d, "f.txt"), []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cwd := filepath.Join(base, "cwd")
	read := func(r Roots, d string) (string, error) {
		return r.ReadText(context.Background(), filepath.Join(base, d, "f.txt"), nil, nil, 1<<20)
	}
	r := NewRoots("", cwd, []string{filepath.Join(base, "kept"), filepath.Join(base, "dropped")})
	defer r.close()
	for _, d := range []string{"kept", "dropped"} {
		if text, err := read(r, d); err != nil || text != d {
			t.Fatalf("before: %s: %q %v", d, text, err)
		}
	}
	if _, err := read(r, "added"); err == nil {
		t.Fatal("a folder not yet added was served")
	}
	copied := r // a copy, as each request holds, sees the change too
	r.SetFolders(cwd, []string{filepath.Join(base, "kept"), filepath.Join(base, "added")})
	if _, err := read(copied, "dropped"); err == nil || !strings.Contains(err.Error(), RefusalOutside) {
		t.Fatalf("a dropped folder: %v", err)
	}
	for _, d := range []string{"kept", "added"} {
		if text, err := read(copied, d); err != nil || text != d {
			t.Fatalf("after: %s: %q %v", d, text, err)
		}
	}
}

func TestRootsResolve(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	for _, d := range []string{"a/b", "a/bc", "x"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r := NewRoots("", filepath.Join(base, "x"), []string{filepath.Join(base, "a/b")})
	cases := []struct {
		path  string
		write bool
		ok    bool
	}{
		{filepath.Join(base, "a/b"), false, true},
		{filepath.Join(base, "a/b/new.txt"), true, true},
		{filepath.Join(base, "a/bc"), false, false},
		{filepath.Join(base, "a/bc/new.txt"), true, false},
		{filepath.Join(base, "a"), false, false},
		{filepath.Join(base, "x/../a/bc/new.txt"), true, false},
		{filepath.Join(base, "x/missing/new.txt"), true, false},
		{"relative.txt", false, false},
		{"", false, false},
		{"/etc/passwd", false, false},
	}
	for _, c := range cases {
		_, err := r.resolve(c.path, c.write)
		if (err == nil) != c.ok {
			t.Errorf("resolve(%q, write=%v): err %v, want ok=%v", c.path, c.write, err, c.ok)
		}
	}
}
