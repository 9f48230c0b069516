package sessions

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fileState is what a test compares to tell that nothing touched a file:
// its kind, inode, size and time, a link's target, a file's bytes.
type fileState struct {
	mode   fs.FileMode
	ino    uint64
	size   int64
	mod    time.Time
	target string
	sum    [sha256.Size]byte
}

func stateOf(t *testing.T, path string) fileState {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	st := fileState{mode: fi.Mode(), ino: fi.Sys().(*syscall.Stat_t).Ino, size: fi.Size(), mod: fi.ModTime()}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		if st.target, err = os.Readlink(path); err != nil {
			t.Fatal(err)
		}
	case fi.Mode().IsRegular() && fi.Size() <= 16<<20:
		// A sparse file of 100 MB is told apart by its inode, size and time.
		st.sum = sha256.Sum256(readFile(t, path))
	}
	return st
}

// hostileChat is one crafted file at chats/<id>.toml.
type hostileChat struct {
	name string
	id   string
	// make puts the file in place; dir is a folder outside the store.
	make func(t *testing.T, path, dir string)
	// broken is what the reason must say; empty when the chat loads.
	broken string
}

func writeText(text string) func(t *testing.T, path, dir string) {
	return func(t *testing.T, path, dir string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func hostileChats() []hostileChat {
	valid := func(id string) string { return chatText(id, "n", "/", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) }
	return []hostileChat{
		{
			// Overflowed the parser's stack: fatal, `ls` and the TUI died.
			name: "2 MB of nested arrays", id: "deep2mb",
			make:   writeText(valid("deep2mb") + "a = " + strings.Repeat("[", 2<<20)),
			broken: "chat file is 2.0 MiB, over the 1 MiB limit",
		},
		{
			name: "nested arrays just under the limit", id: "deep1mb",
			make:   writeText(valid("deep1mb") + "a = " + strings.Repeat("[", MaxChatFileBytes-300)),
			broken: "line 8: nested deeper than 32 levels of arrays, tables and dotted keys",
		},
		{
			name: "nested inline tables", id: "deepinl",
			make:   writeText(valid("deepinl") + "a = " + strings.Repeat("{b = ", 50) + "1" + strings.Repeat("}", 50) + "\n"),
			broken: "nested deeper than 32 levels",
		},
		{
			// 10,000 parts took the parser over a minute.
			name: "a dotted key of 10,000 parts", id: "dotted",
			make:   writeText(valid("dotted") + strings.Repeat("k.", 10_000) + "k = 1\n"),
			broken: "nested deeper than 32 levels",
		},
		{
			name: "100 MB sparse file", id: "sparse",
			make: func(t *testing.T, path, dir string) {
				f, err := os.Create(path)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if _, err := f.WriteString(valid("sparse")); err != nil {
					t.Fatal(err)
				}
				if err := f.Truncate(100 << 20); err != nil {
					t.Fatal(err)
				}
			},
			broken: "chat file is 100.0 MiB, over the 1 MiB limit",
		},
		{
			name: "just over the limit", id: "justover",
			make:   writeText(valid("justover") + "pad = \"" + strings.Repeat("p", MaxChatFileBytes) + "\"\n"),
			broken: fmt.Sprintf("chat file is %d bytes, over the 1 MiB limit (1048576 bytes)", len(valid("justover"))+MaxChatFileBytes+9),
		},
		{
			name: "symlink to a valid chat elsewhere", id: "lnkchat",
			make: func(t *testing.T, path, dir string) {
				target := filepath.Join(dir, "lnkchat.toml")
				if err := os.WriteFile(target, []byte(valid("lnkchat")), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, path); err != nil {
					t.Fatal(err)
				}
			},
			broken: "chat file is a symbolic link (links are never followed)",
		},
		{
			name: "symlink to /etc/passwd", id: "passwd",
			make: func(t *testing.T, path, dir string) {
				if err := os.Symlink("/etc/passwd", path); err != nil {
					t.Fatal(err)
				}
			},
			broken: "is a symbolic link",
		},
		{
			name: "dangling symlink", id: "dangling",
			make: func(t *testing.T, path, dir string) {
				if err := os.Symlink(filepath.Join(dir, "nope.toml"), path); err != nil {
					t.Fatal(err)
				}
			},
			broken: "is a symbolic link",
		},
		{
			// Opening it for reading would wait for a writer forever.
			name: "FIFO", id: "fifo",
			make: func(t *testing.T, path, dir string) {
				if err := syscall.Mkfifo(path, 0o644); err != nil {
					t.Fatal(err)
				}
			},
			broken: "chat file is a named pipe (FIFO), not a regular file",
		},
		{
			name: "folder", id: "folder",
			make: func(t *testing.T, path, dir string) {
				if err := os.Mkdir(path, 0o755); err != nil {
					t.Fatal(err)
				}
			},
			broken: "chat file is a directory, not a regular file",
		},
		{
			name: "NUL bytes", id: "nulls",
			make:   writeText(valid("nulls") + "pad = 1\x00\x00\x00\n"),
			broken: fmt.Sprintf("NUL byte at offset %d: not a TOML text file", len(valid("nulls"))+7),
		},
		{
			name: "UTF-16 text", id: "utf16",
			make:   writeText("\xff\xfev\x00e\x00r\x00"),
			broken: "NUL byte at offset 3",
		},
		{
			name: "10 MB name", id: "name10mb",
			make:   writeText(strings.Replace(valid("name10mb"), `name = "n"`, `name = "`+strings.Repeat("x", 10<<20)+`"`, 1)),
			broken: "chat file is 10.0 MiB, over the 1 MiB limit",
		},
		{
			name: "name of most of a megabyte", id: "name1mb",
			make:   writeText(strings.Replace(valid("name1mb"), `name = "n"`, `name = "`+strings.Repeat("x", 1_000_000)+`"`, 1)),
			broken: "name is 1000000 bytes, at most 1024",
		},
		{
			name: "name that drives the terminal", id: "escname",
			make:   writeText(strings.Replace(valid("escname"), `name = "n"`, `name = "\u001b]0;pwned\u0007"`, 1)),
			broken: `name "\x1b]0;pwned\a" has a control character (U+001B): a name is one line of printable text`,
		},
		{
			name: "huge unknown key over the limit", id: "hugekey",
			make:   writeText(valid("hugekey") + strings.Repeat("k", 2<<20) + " = 1\n"),
			broken: "chat file is 2.0 MiB, over the 1 MiB limit",
		},
		{
			// A newer version's key, however long, is kept.
			name: "long unknown key within the limit", id: "longkey",
			make: writeText(valid("longkey") + strings.Repeat("k", 1_000_000) + " = 1\n"),
		},
		{
			// The parser quotes the last key it read in its error.
			name: "long key then a syntax error", id: "longbad",
			make:   writeText(valid("longbad") + strings.Repeat("k", 1_000_000) + " = [1,\n"),
			broken: strings.Repeat("k", 100) + `"): unexpected EOF; expected value`,
		},
		{
			name: "a file name that is not a chat id", id: "Not An Id",
			make:   writeText(valid("notanid")),
			broken: `load chat "Not An Id": the file's name is not a chat id (1-64 of [a-z0-9-], then .toml)`,
		},
	}
}

// Every crafted chat file is listed (broken, with its reason, or loaded),
// never crashes or blocks the process, and is left exactly as it was by List,
// Load, Resolve and every write that is refused.
func TestHostileChatFiles(t *testing.T) {
	tr := newTree(t)
	for _, hc := range hostileChats() {
		t.Run(hc.name, func(t *testing.T) {
			s := openStore(t)
			path := s.ChatPath(hc.id)
			outside := t.TempDir()
			hc.make(t, path, outside)
			before := stateOf(t, path)
			var outsideBefore []fileState
			outsideFiles, _ := filepath.Glob(filepath.Join(outside, "*"))
			for _, f := range outsideFiles {
				outsideBefore = append(outsideBefore, stateOf(t, f))
			}

			entries := listWithin(t, s)
			if len(entries) != 1 || entries[0].ID != hc.id {
				t.Fatalf("entries %+v", entries)
			}
			e := entries[0]
			if hc.broken == "" {
				if e.Broken != nil || e.Meta == nil {
					t.Fatalf("listed as broken: %v", e.Broken)
				}
			} else {
				checkBroken(t, "List", e.Broken, hc.broken)
				if e.Meta != nil || e.Name() != hc.id || e.JSON("stopped", "none").Status != "broken" {
					t.Errorf("broken entry %+v", e)
				}
				_, err := s.Load(hc.id)
				if ValidID(hc.id) {
					checkBroken(t, "Load", err, hc.broken)
				} else if !errors.Is(err, ErrNotFound) {
					t.Errorf("Load = %v", err)
				}
				if r, err := s.Resolve(hc.id); err != nil || r.Broken == nil {
					t.Errorf("Resolve = %+v, %v", r, err)
				}
				// Every write refuses, and says why.
				if _, err := s.AddFolders(hc.id, []string{tr.p("a")}); err == nil {
					t.Error("AddFolders wrote")
				}
				if _, err := s.Update(hc.id, func(m *Meta) error { m.Name = "x"; return nil }); err == nil {
					t.Error("Update wrote")
				}
				if _, _, err := s.RemoveMissingFolders(hc.id); err == nil {
					t.Error("RemoveMissingFolders wrote")
				}
				for _, force := range []bool{false, true} {
					if err := s.Remove(hc.id, force); err == nil {
						t.Errorf("Remove(force=%v) removed it", force)
					}
				}
				if _, err := s.Derive(hc.id, Derivation{Origin: OriginFork}); err == nil {
					t.Error("Derive made a chat of it")
				}
			}
			if after := stateOf(t, path); after != before {
				t.Errorf("file changed:\n%+v\n%+v", before, after)
			}
			if hc.broken == "" {
				// A chat that loads takes a folder, and keeps what it had.
				m, err := s.AddFolders(hc.id, []string{tr.p("a")})
				if err != nil {
					t.Fatal(err)
				}
				again, err := s.Load(hc.id)
				if err != nil || len(again.ExtraKeys()) != len(m.ExtraKeys()) || len(again.AdditionalDirectories) != 1 {
					t.Errorf("after AddFolders: %+v, %v", again, err)
				}
			}
			for i, f := range outsideFiles {
				if after := stateOf(t, f); after != outsideBefore[i] {
					t.Errorf("link target %s changed", f)
				}
			}
			// A bad file's reason stays short enough for one line of `ls`.
			if e.Broken != nil && len(e.Broken.Error()) > 2048 {
				t.Errorf("reason is %d bytes", len(e.Broken.Error()))
			}
		})
	}
}

// listWithin lists the store, failing rather than hanging when a file blocks
// the reader.
func listWithin(t *testing.T, s *Store) []Entry {
	t.Helper()
	type result struct {
		entries []Entry
		err     error
	}
	done := make(chan result, 1)
	go func() {
		entries, err := s.List()
		done <- result{entries, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.entries
	case <-time.After(30 * time.Second):
		t.Fatal("List blocked on a chat file")
		return nil
	}
}

func checkBroken(t *testing.T, what string, err error, want string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: broken = %v; want it to say %q", what, err, want)
	}
}

// All the crafted files together, among sound chats: each sound chat is
// listed as it is, each crafted one as broken or loaded.
func TestHostileChatFilesAmongSoundOnes(t *testing.T) {
	s := openStore(t)
	outside := t.TempDir()
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 20 {
		id := fmt.Sprintf("sound%02d", i)
		putChat(t, s, id, chatText(id, "chat "+id, "/", created.Add(time.Duration(i)*time.Minute)))
	}
	want := map[string]string{}
	for _, hc := range hostileChats() {
		hc.make(t, s.ChatPath(hc.id), outside)
		want[hc.id] = hc.broken
	}
	for range 2 { // the second time from what the first one parsed
		entries := listWithin(t, s)
		if len(entries) != 20+len(want) {
			t.Fatalf("%d entries", len(entries))
		}
		sound := 0
		for _, e := range entries {
			if strings.HasPrefix(e.ID, "sound") {
				sound++
				if e.Broken != nil || e.Meta.Name != "chat "+e.ID {
					t.Errorf("sound chat %s: %+v", e.ID, e)
				}
				continue
			}
			broken, ok := want[e.ID]
			switch {
			case !ok:
				t.Errorf("unexpected entry %s", e.ID)
			case broken == "" && e.Broken != nil:
				t.Errorf("%s broken: %v", e.ID, e.Broken)
			case broken != "":
				checkBroken(t, e.ID, e.Broken, broken)
			}
		}
		if sound != 20 {
			t.Errorf("%d sound chats listed", sound)
		}
	}
}

// TestListOnceListsAsListDoes: ListOnce, which ls uses, gives every chat
// as List does, field for field, the sound ones and each crafted file
// (broken with the same reason, or loaded), and keeps nothing for a next
// List.
func TestListOnceListsAsListDoes(t *testing.T) {
	s := openStore(t)
	outside := t.TempDir()
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 70 { // more than two workers' batches
		id := fmt.Sprintf("sound%02d", i)
		putChat(t, s, id, chatText(id, "chat "+id, "/", created.Add(time.Duration(i%7)*time.Minute)))
	}
	for _, hc := range hostileChats() {
		hc.make(t, s.ChatPath(hc.id), outside)
	}
	done := make(chan []Entry, 1)
	go func() {
		once, err := s.ListOnce()
		if err != nil {
			t.Error(err)
		}
		done <- once
	}()
	var once []Entry
	select {
	case once = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("ListOnce blocked on a chat file")
	}
	s.mu.Lock()
	kept := s.parsed != nil || s.stamps != nil
	s.mu.Unlock()
	if kept {
		t.Error("ListOnce kept what it parsed")
	}
	listed := listWithin(t, s)
	if len(once) != len(listed) {
		t.Fatalf("ListOnce gave %d chats, List %d", len(once), len(listed))
	}
	for i := range listed {
		a, b := once[i], listed[i]
		if a.ID != b.ID || (a.Broken == nil) != (b.Broken == nil) || a.NoProject != b.NoProject {
			t.Fatalf("chat %d: ListOnce %+v, List %+v", i, a, b)
		}
		if a.Broken != nil && a.Broken.Error() != b.Broken.Error() {
			t.Errorf("%s: ListOnce says %q, List %q", a.ID, a.Broken, b.Broken)
		}
		// Clone's copy makes an empty list nil; compared as copies.
		if (a.Meta == nil) != (b.Meta == nil) || a.Meta != nil && !reflect.DeepEqual(a.Meta.Clone(), b.Meta.Clone()) {
			t.Errorf("%s: ListOnce %+v, List %+v", a.ID, a.Meta, b.Meta)
		}
	}
}

// A write replaces only the file it read: a chat file swapped for a link or
// for another file while the change is made is left as it is, and a new
// chat never lands on a file already there.
func TestWriteReplacesOnlyWhatItRead(t *testing.T) {
	s := openStore(t)
	m, err := s.Create(NewChat{Harness: "shell"})
	if err != nil {
		t.Fatal(err)
	}
	path := s.ChatPath(m.ID)
	elsewhere := filepath.Join(t.TempDir(), "elsewhere.toml")
	if err := os.WriteFile(elsewhere, readFile(t, path), 0o644); err != nil {
		t.Fatal(err)
	}
	swaps := map[string]func(){
		"symlink": func() {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(elsewhere, path); err != nil {
				t.Fatal(err)
			}
		},
		"another file": func() {
			// Made before the old one goes, so it cannot reuse its inode.
			if err := os.WriteFile(path+".new", readFile(t, path), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(path+".new", path); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, swap := range swaps {
		t.Run(name, func(t *testing.T) {
			// Start from the chat's own regular file.
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, readFile(t, elsewhere), 0o644); err != nil {
				t.Fatal(err)
			}
			var before fileState
			_, err := s.Update(m.ID, func(m *Meta) error {
				swap()
				before = stateOf(t, path)
				m.Name = "renamed"
				return nil
			})
			if err == nil || !strings.Contains(err.Error(), "left as it is") {
				t.Fatalf("Update over a swapped file = %v", err)
			}
			if after := stateOf(t, path); after != before {
				t.Errorf("swapped file changed:\n%+v\n%+v", before, after)
			}
			if got := readFile(t, elsewhere); bytes.Contains(got, []byte("renamed")) {
				t.Errorf("the link's target was written:\n%s", got)
			}
			if tmps, _ := filepath.Glob(filepath.Join(s.Home(), "chats", ".*.tmp-*")); len(tmps) != 0 {
				t.Errorf("temp files left: %v", tmps)
			}
		})
	}

	// A new chat's file never replaces one already there.
	for _, was := range []string{"file", "symlink"} {
		target := filepath.Join(s.Home(), "chats", "taken-"+was+".toml")
		if was == "file" {
			if err := os.WriteFile(target, []byte("mine\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Symlink(elsewhere, target); err != nil {
			t.Fatal(err)
		}
		before := stateOf(t, target)
		err := writeAtomic(target, []byte("version = 1\n"), 0o644, nil)
		if err == nil || !strings.Contains(err.Error(), "already at the new chat's path") {
			t.Errorf("new chat over a %s: %v", was, err)
		}
		if after := stateOf(t, target); after != before {
			t.Errorf("%s replaced", was)
		}
	}
}

// Listing reads every file but parses only bytes it has not parsed before:
// the chats it returns are each the caller's own to change.
func TestListParsesChangedFilesOnly(t *testing.T) {
	s := openStore(t)
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	putChat(t, s, "aaa", chatText("aaa", "first", "/", created))
	putChat(t, s, "bbb", chatText("bbb", "second", "/", created.Add(time.Hour)))
	first, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	first[0].Meta.Name = "changed by the caller"
	first[0].Meta.AdditionalDirectories = append(first[0].Meta.AdditionalDirectories, "/x")
	// A file changed in place, same size, is read again.
	putChat(t, s, "bbb", chatText("bbb", "secont", "/", created.Add(time.Hour)))
	second, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if second[0].Meta.Name != "first" || len(second[0].Meta.AdditionalDirectories) != 0 {
		t.Errorf("a caller's change reached the store: %+v", second[0].Meta)
	}
	if second[1].Meta.Name != "secont" {
		t.Errorf("changed file not read again: %+v", second[1].Meta)
	}
	// The same bytes under another id are still checked against the name.
	putChat(t, s, "ccc", chatText("aaa", "first", "/", created))
	third, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(third) != 3 || third[2].ID != "ccc" || third[2].Broken == nil || !strings.Contains(third[2].Broken.Error(), `file names id "aaa"`) {
		t.Errorf("copy under another id: %+v", third)
	}
	s.mu.Lock()
	cached := len(s.parsed)
	s.mu.Unlock()
	if cached != 2 {
		t.Errorf("%d parsed files remembered, want 2 (one per distinct content)", cached)
	}
}

// TestListSkipsUnchangedFiles: a store that has listed before reads again
// only the files whose stat changed, and still sees every change; a file
// changed within the trust margin (the kernel's clock ticks coarsely, so
// two writes in a tick can keep the same times) is read at every List.
func TestListSkipsUnchangedFiles(t *testing.T) {
	s := openStore(t)
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"aaa", "bbb", "ccc"} {
		putChat(t, s, id, chatText(id, "chat "+id, "/", created.Add(time.Duration(i)*time.Hour)))
	}
	list := func(wantReads int64, wantNames ...string) {
		t.Helper()
		before := s.reads.Load()
		entries, err := s.List()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if got := s.reads.Load() - before; got != wantReads {
			t.Errorf("List read %d files, want %d", got, wantReads)
		}
		if strings.Join(names, ",") != strings.Join(wantNames, ",") {
			t.Errorf("List gave %q, want %q", names, wantNames)
		}
	}
	// Just written: inside the margin, read every time.
	list(3, "chat aaa", "chat bbb", "chat ccc")
	list(3, "chat aaa", "chat bbb", "chat ccc")
	list(3, "chat aaa", "chat bbb", "chat ccc")
	// Trusted at once (as a file a second old is).
	s.trustAfter = -time.Hour
	list(3, "chat aaa", "chat bbb", "chat ccc") // stamps taken
	list(0, "chat aaa", "chat bbb", "chat ccc")
	// Changed through the store (a new file renamed over it), in place
	// with another size, and replaced by a broken one: each read again.
	if _, err := s.Update("aaa", func(m *Meta) error { m.Name = "renamed"; return nil }); err != nil {
		t.Fatal(err)
	}
	putChat(t, s, "bbb", chatText("bbb", "chat bbb, longer", "/", created.Add(time.Hour)))
	putChat(t, s, "ccc", "version = \n")
	list(3, "renamed", "chat bbb, longer", "ccc")
	list(0, "renamed", "chat bbb, longer", "ccc")
	// Removed and added.
	if err := os.Remove(s.ChatPath("bbb")); err != nil {
		t.Fatal(err)
	}
	putChat(t, s, "ddd", chatText("ddd", "chat ddd", "/", created.Add(5*time.Hour)))
	list(1, "renamed", "chat ddd", "ccc")
}
