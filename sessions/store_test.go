package sessions

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

func openStore(t testing.TB) *Store {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := OpenStore(filepath.Join(home, "agent"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// chatFiles lists the names in chats/ that a user would see as chats.
func chatFiles(t *testing.T, s *Store) []string {
	t.Helper()
	des, err := os.ReadDir(filepath.Join(s.Home(), "chats"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		if strings.HasSuffix(de.Name(), ".toml") {
			out = append(out, de.Name())
		}
	}
	return out
}

func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, de := range des {
		out = append(out, de.Name())
	}
	return out
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// putChat writes a chat file by hand, as another version or a user would.
func putChat(t *testing.T, s *Store, id, text string) {
	t.Helper()
	if err := os.WriteFile(s.ChatPath(id), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func chatText(id, name, cwd string, created time.Time) string {
	return fmt.Sprintf("version = 1\nid = %q\nname = %q\nharness = \"shell\"\ncwd = %q\nadditional_directories = []\ncreated = %s\n",
		id, name, cwd, created.UTC().Format(time.RFC3339))
}

var idRE = regexp.MustCompile(`^[a-z0-9-]{1,64}$`)

func TestCreateWithoutProject(t *testing.T) {
	s := openStore(t)
	tr := newTree(t)
	m, err := s.Create(NewChat{Harness: "shell", AdditionalDirectories: []string{tr.p("link-a"), tr.p("b") + "/"}})
	if err != nil {
		t.Fatal(err)
	}
	if !idRE.MatchString(m.ID) {
		t.Errorf("id %q", m.ID)
	}
	if m.Cwd != s.HomeDir(m.ID) || !s.NoProject(m) {
		t.Errorf("cwd %q, want its home %q", m.Cwd, s.HomeDir(m.ID))
	}
	if fi, err := os.Stat(m.Cwd); err != nil || !fi.IsDir() {
		t.Fatalf("home folder: %v", err)
	}
	if got := dirEntries(t, m.Cwd); len(got) != 0 {
		t.Errorf("home folder not empty: %v", got)
	}
	if fmt.Sprint(m.AdditionalDirectories) != fmt.Sprint([]string{tr.p("a"), tr.p("b")}) {
		t.Errorf("folders %q", m.AdditionalDirectories)
	}
	if m.Name != "shell "+m.ID || m.Version != 1 || m.Harness != "shell" || m.Created.IsZero() {
		t.Errorf("meta %+v", m)
	}
	loaded, err := s.Load(m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(loaded) != fmt.Sprint(m) {
		t.Errorf("loaded %+v\ncreated %+v", loaded, m)
	}
	// The file on disk has the keys of docs/chat-files.md.
	var raw map[string]any
	if _, err := toml.DecodeFile(s.ChatPath(m.ID), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"version", "id", "name", "harness", "cwd", "additional_directories", "created"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("file lacks key %s:\n%s", k, readFile(t, s.ChatPath(m.ID)))
		}
	}
	if raw["id"] != m.ID || raw["cwd"] != m.Cwd {
		t.Errorf("file: %v", raw)
	}
}

func TestCreateWithProject(t *testing.T) {
	s := openStore(t)
	tr := newTree(t)
	m, err := s.Create(NewChat{Harness: "claude", Name: "fix the parser", Cwd: tr.p("link-own") + "/", AdditionalDirectories: []string{tr.p("a")}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Cwd != tr.p("own") || s.NoProject(m) {
		t.Errorf("cwd %q, want %q", m.Cwd, tr.p("own"))
	}
	if got := dirEntries(t, filepath.Join(s.Home(), "homes")); len(got) != 0 {
		t.Errorf("a chat with a project got a home folder: %v", got)
	}
	if m.Name != "fix the parser" {
		t.Errorf("name %q", m.Name)
	}
	// The project folder, given through a link, is still the chat's own folder.
	_, err = s.Create(NewChat{Harness: "claude", Cwd: tr.p("own"), AdditionalDirectories: []string{tr.p("link-own")}})
	if fe, ok := AsFolderError(err); !ok || fe.Problems[0].Reason != "is the chat's own folder" {
		t.Fatalf("own folder as a folder: %v", err)
	}
	if _, err := s.Create(NewChat{Harness: "claude", Cwd: tr.p("file")}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("project that is a file: %v", err)
	}
	if got := chatFiles(t, s); len(got) != 1 {
		t.Errorf("chat files %v", got)
	}
}

func TestCreateRefusalWritesNothing(t *testing.T) {
	s := openStore(t)
	tr := newTree(t)
	for _, n := range []NewChat{
		{Harness: "shell", AdditionalDirectories: []string{tr.p("a"), "relative", tr.p("nope")}},
		{Harness: "shell", Cwd: tr.p("own"), AdditionalDirectories: []string{tr.p("own")}},
		{Harness: "shell", AdditionalDirectories: makeDirs(t, tr.p("many"), 65)},
		{Harness: "shell", Name: "bad \xff name"},
		{Harness: ""},
	} {
		if m, err := s.Create(n); err == nil {
			t.Errorf("Create(%+v) = %+v", n, m)
		}
	}
	if got := chatFiles(t, s); len(got) != 0 {
		t.Errorf("refusals wrote %v", got)
	}
	if got := dirEntries(t, filepath.Join(s.Home(), "homes")); len(got) != 0 {
		t.Errorf("refusals left home folders %v", got)
	}
	if got := dirEntries(t, filepath.Join(s.Home(), "chats")); len(got) > 1 {
		t.Errorf("refusals left files %v", got) // only .lock may remain
	}
}

// A folder whose name is not UTF-8 exists on Linux, but no chat file can hold
// it: it is refused rather than stored as a file that no longer parses.
func TestCreateRefusesNonUTF8Folder(t *testing.T) {
	s := openStore(t)
	tr := newTree(t)
	odd := tr.p("odd\xff")
	if err := os.Mkdir(odd, 0o755); err != nil {
		t.Skipf("file system refuses non-UTF-8 names: %v", err)
	}
	_, err := s.Create(NewChat{Harness: "shell", AdditionalDirectories: []string{odd}})
	fe, ok := AsFolderError(err)
	if !ok || fe.Problems[0].Reason != "not valid UTF-8" {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), `odd\xff"`) {
		t.Errorf("the bad name is not escaped: %q", err.Error())
	}
	if got := chatFiles(t, s); len(got) != 0 {
		t.Errorf("wrote %v", got)
	}
}

func TestCreateIDs(t *testing.T) {
	s := openStore(t)
	seen := map[string]bool{}
	for range 200 {
		m, err := s.Create(NewChat{Harness: "shell"})
		if err != nil {
			t.Fatal(err)
		}
		if !idRE.MatchString(m.ID) || seen[m.ID] {
			t.Fatalf("id %q (seen before: %v)", m.ID, seen[m.ID])
		}
		seen[m.ID] = true
	}
	if got := chatFiles(t, s); len(got) != 200 {
		t.Errorf("%d files", len(got))
	}
}

func TestValidID(t *testing.T) {
	for _, id := range []string{"a", "k3x9q2", "a-b", strings.Repeat("z", 64), "0", "--"} {
		if !ValidID(id) {
			t.Errorf("ValidID(%q) = false", id)
		}
	}
	for _, id := range []string{"", ".", "..", "../x", "a/b", "A", "a b", "a.b", "é", strings.Repeat("z", 65), "a\x00", "a\n"} {
		if ValidID(id) {
			t.Errorf("ValidID(%q) = true", id)
		}
	}
}

func TestLoad(t *testing.T) {
	s := openStore(t)
	created := time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC)
	putChat(t, s, "k3x9q2", chatText("k3x9q2", "fix the parser", "/home/me/src/app", created))
	m, err := s.Load("k3x9q2")
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "fix the parser" || m.Cwd != "/home/me/src/app" || !m.Created.Equal(created) {
		t.Errorf("%+v", m)
	}
	for _, id := range []string{"nope", "../chats/k3x9q2", "K3X9Q2", ""} {
		if _, err := s.Load(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Load(%q) err = %v, want ErrNotFound", id, err)
		}
	}
	putChat(t, s, "other", chatText("k3x9q2", "x", "/", created))
	if _, err := s.Load("other"); err == nil || !strings.Contains(err.Error(), `file names id "k3x9q2"`) {
		t.Errorf("mismatched id: %v", err)
	}
}

func TestListAndResolve(t *testing.T) {
	s := openStore(t)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	chats := []struct{ id, name string }{
		{"abc123", "fix the parser"},
		{"abd456", "fix the lexer"},
		{"zz9", "notes"},
		{"notes2", "abc123x"},
		{"q1", "same"},
		{"q2", "same"},
	}
	for i, c := range chats {
		putChat(t, s, c.id, chatText(c.id, c.name, "/", base.Add(time.Duration(len(chats)-i)*time.Hour)))
	}
	putChat(t, s, "broken1", "version = 1\nid = \"broken1\"\nname = [unterminated\n")
	if err := os.WriteFile(filepath.Join(s.Home(), "chats", ".abc.toml.tmp-1"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	entries, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range entries {
		order = append(order, e.ID)
	}
	// Oldest first; the broken file is listed too, last.
	if want := "[q2 q1 notes2 zz9 abd456 abc123 broken1]"; fmt.Sprint(order) != want {
		t.Errorf("order %v, want %s", order, want)
	}
	for _, e := range entries {
		if e.ID == "broken1" {
			if e.Meta != nil || e.Broken == nil || !strings.Contains(e.Broken.Error(), "load chat broken1") || e.Name() != "broken1" {
				t.Errorf("broken entry %+v", e)
			}
		} else if e.Broken != nil {
			t.Errorf("%s broken: %v", e.ID, e.Broken)
		}
	}

	tests := []struct{ ref, want, err string }{
		{"abc123", "abc123", ""},           // exact id (also a prefix of notes2's name)
		{"zz9", "zz9", ""},                 // exact id
		{"fix the lexer", "abd456", ""},    // exact name
		{"notes", "zz9", ""},               // exact name beats being a prefix of notes2
		{"abd", "abd456", ""},              // unique id prefix
		{"fix the p", "abc123", ""},        // unique name prefix
		{"z", "zz9", ""},                   // unique prefix
		{"broken", "broken1", ""},          // a broken chat is found too
		{"ab", "", "ambiguous"},            // abc123, abd456, notes2 by name
		{"fix", "", "ambiguous"},           // two names
		{"same", "", "ambiguous"},          // two chats of one name
		{"nothing", "", "no such chat"},    // not found
		{"", "", "no such chat"},           // empty
		{"../abc123", "", "no such chat"},  // never a path
		{"ABC123", "", "no such chat"},     // case matters
		{"fix the parser!", "", "no such"}, // longer than a name
	}
	for _, tt := range tests {
		e, err := s.Resolve(tt.ref)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Resolve(%q) = %q, %v; want error %q", tt.ref, e.ID, err, tt.err)
			}
			if tt.err == "no such chat" && !errors.Is(err, ErrNotFound) {
				t.Errorf("Resolve(%q) err %v is not ErrNotFound", tt.ref, err)
			}
			continue
		}
		if err != nil || e.ID != tt.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", tt.ref, e.ID, err, tt.want)
		}
	}
	_, err = s.Resolve("ab")
	for _, id := range []string{"abc123", "abd456", "notes2"} {
		if !strings.Contains(err.Error(), id) {
			t.Errorf("ambiguous error does not name %s: %v", id, err)
		}
	}
	if e, err := s.Resolve("broken1"); err != nil || e.Broken == nil {
		t.Errorf("Resolve(broken1) = %+v, %v", e, err)
	}
}

const futureChat = `version = 1
id = "fut123"
name = "from the future"
harness = "shell"
cwd = "/"
additional_directories = []
created = 2026-11-30T22:00:00.123456789Z
color = "teal"
pinned = true
tags = ["a", "b"]
when = 2027-01-02T03:04:05+02:00

[future]
mode = "x"
weights = [1.5, 2.5]

[future.deep]
n = 1

[[history]]
at = 1
[[history]]
at = 2
`

func TestUpdateKeepsUnknownKeys(t *testing.T) {
	s := openStore(t)
	tr := newTree(t)
	putChat(t, s, "fut123", futureChat)
	var before map[string]any
	if _, err := toml.Decode(futureChat, &before); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update("fut123", func(m *Meta) error { m.Name = "renamed"; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddFolders("fut123", []string{tr.p("a")}); err != nil {
		t.Fatal(err)
	}
	var after map[string]any
	if _, err := toml.DecodeFile(s.ChatPath("fut123"), &after); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"color", "pinned", "tags", "when", "future", "history"} {
		if fmt.Sprint(after[k]) != fmt.Sprint(before[k]) {
			t.Errorf("key %s: %v, was %v\nfile:\n%s", k, after[k], before[k], readFile(t, s.ChatPath("fut123")))
		}
	}
	if after["name"] != "renamed" || fmt.Sprint(after["additional_directories"]) != fmt.Sprint([]any{tr.p("a")}) {
		t.Errorf("changes lost: %v", after)
	}
	// The creation time is kept to the nanosecond, not rounded on rewrite.
	if got := after["created"].(time.Time); !got.Equal(before["created"].(time.Time)) {
		t.Errorf("created %v, was %v", got, before["created"])
	}
	m, err := s.Load("fut123")
	if err != nil {
		t.Fatal(err)
	}
	keys := m.ExtraKeys()
	if len(keys) != 6 {
		t.Errorf("extra keys %v", keys)
	}
}

func TestBrokenFileIsNeverRewritten(t *testing.T) {
	tr := newTree(t)
	for name, text := range map[string]string{
		"syntax":        "version = 1\nid = \"brk\"\nname = \"unterminated\n",
		"newer version": strings.Replace(chatText("brk", "n", "/", time.Now()), "version = 1", "version = 2", 1),
		"empty":         "",
		"bad id":        strings.Replace(chatText("brk", "n", "/", time.Now()), `id = "brk"`, `id = "../x"`, 1),
		"wrong type":    strings.Replace(chatText("brk", "n", "/", time.Now()), `additional_directories = []`, `additional_directories = "x"`, 1),
		"relative dir":  strings.Replace(chatText("brk", "n", "/", time.Now()), `additional_directories = []`, `additional_directories = ["rel"]`, 1),
	} {
		t.Run(name, func(t *testing.T) {
			s := openStore(t)
			putChat(t, s, "brk", text)
			if err := os.Mkdir(s.HomeDir("brk"), 0o755); err != nil {
				t.Fatal(err)
			}
			entries, err := s.List()
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 || entries[0].Broken == nil || entries[0].Meta != nil {
				t.Fatalf("entries %+v", entries)
			}
			if name == "newer version" && !strings.Contains(entries[0].Broken.Error(), "version 2 is newer") {
				t.Errorf("broken: %v", entries[0].Broken)
			}
			if _, err := s.Update("brk", func(m *Meta) error { m.Name = "x"; return nil }); err == nil {
				t.Error("Update rewrote a broken file")
			}
			if _, err := s.AddFolders("brk", []string{tr.p("a")}); err == nil {
				t.Error("AddFolders rewrote a broken file")
			}
			if _, err := s.RemoveFolders("brk", []string{tr.p("a")}); err == nil {
				t.Error("RemoveFolders rewrote a broken file")
			}
			if _, _, err := s.RemoveMissingFolders("brk"); err == nil {
				t.Error("RemoveMissingFolders rewrote a broken file")
			}
			for _, force := range []bool{false, true} {
				err := s.Remove("brk", force)
				if err == nil || !strings.Contains(err.Error(), "does not parse") {
					t.Errorf("Remove(force=%v) = %v", force, err)
				}
			}
			if got := readFile(t, s.ChatPath("brk")); string(got) != text {
				t.Errorf("file changed:\n%s", got)
			}
			if _, err := os.Stat(s.HomeDir("brk")); err != nil {
				t.Errorf("home folder of a broken chat removed: %v", err)
			}
		})
	}
}

func TestRemove(t *testing.T) {
	s := openStore(t)
	tr := newTree(t)

	// No project: the file and the empty home folder go.
	// A sandboxed chat's scratch folder goes with it, whatever it holds.
	m, err := s.Create(NewChat{Harness: "shell", AdditionalDirectories: []string{tr.p("a")}})
	if err != nil {
		t.Fatal(err)
	}
	scratch := ScratchDir(s.Home(), m.ID)
	if err := os.MkdirAll(filepath.Join(scratch, "left"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(m.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(scratch); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("scratch folder still there: %v", err)
	}
	if _, err := os.Stat(s.ChatPath(m.ID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("chat file still there: %v", err)
	}
	if _, err := os.Stat(s.HomeDir(m.ID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("home folder still there: %v", err)
	}
	if _, err := os.Stat(tr.p("a")); err != nil {
		t.Errorf("an additional folder was touched: %v", err)
	}
	if err := s.Remove(m.ID, false); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Remove = %v", err)
	}

	// A home folder with files is kept, and so is the chat, unless forced.
	m, err = s.Create(NewChat{Harness: "shell"})
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(m.Cwd, "work.txt")
	if err := os.WriteFile(work, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, s.ChatPath(m.ID))
	err = s.Remove(m.ID, false)
	if err == nil || !strings.Contains(err.Error(), "not empty") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("Remove of a non-empty home = %v", err)
	}
	if !bytes.Equal(readFile(t, s.ChatPath(m.ID)), before) || string(readFile(t, work)) != "keep me" {
		t.Error("refused Remove changed something")
	}
	if err := s.Remove(m.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(m.Cwd); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("forced Remove left the home folder: %v", err)
	}

	// A project folder is never touched, with or without force.
	for _, force := range []bool{false, true} {
		proj := tr.p(fmt.Sprintf("project-%v", force))
		if err := os.MkdirAll(filepath.Join(proj, "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proj, "src", "main.go"), []byte("package main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := s.Create(NewChat{Harness: "shell", Cwd: proj})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Remove(m.ID, force); err != nil {
			t.Fatal(err)
		}
		if string(readFile(t, filepath.Join(proj, "src", "main.go"))) != "package main\n" {
			t.Errorf("project folder touched (force=%v)", force)
		}
		if _, err := os.Stat(s.ChatPath(m.ID)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("chat file still there")
		}
	}
	if got := chatFiles(t, s); len(got) != 0 {
		t.Errorf("left %v", got)
	}
}

func TestUpdateCannotChangeIdentity(t *testing.T) {
	s := openStore(t)
	m, err := s.Create(NewChat{Harness: "shell"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Update(m.ID, func(m *Meta) error { m.ID = "other"; m.Version = 9; m.Name = "n"; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != m.ID || got.Version != 1 {
		t.Errorf("%+v", got)
	}
	if _, err := os.Stat(s.ChatPath("other")); err == nil {
		t.Error("Update wrote under another id")
	}
	// A change that fails writes nothing.
	before := readFile(t, s.ChatPath(m.ID))
	if _, err := s.Update(m.ID, func(m *Meta) error { return errors.New("no") }); err == nil {
		t.Error("failed change reported success")
	}
	if _, err := s.Update(m.ID, func(m *Meta) error { m.Cwd = "relative"; return nil }); err == nil {
		t.Error("a bad cwd was stored")
	}
	if !bytes.Equal(readFile(t, s.ChatPath(m.ID)), before) {
		t.Error("failed Update changed the file")
	}
}

// NoProject compares a chat's cwd with its home folder without building
// the path: it must say what comparing with HomeDir says, for a home given
// unclean and for cwds that are near misses.
func TestNoProjectIsHomeDirsCompare(t *testing.T) {
	real, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, home := range []string{real, real + "/", real + "/./", "/" + real} {
		s, err := OpenStore(home)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"a1", "abc-def", "", "..", "a/b", "A"} {
			h := s.HomeDir(id)
			for _, cwd := range []string{h, h + "/", h + "x", strings.TrimSuffix(h, id), real + "/homes//" + id, real + "/homes/" + id, real, "", "/"} {
				m := &Meta{ID: id, Cwd: cwd}
				if got, want := s.NoProject(m), cwd == h; got != want {
					t.Errorf("home %q id %q cwd %q: NoProject %v, HomeDir says %v", home, id, cwd, got, want)
				}
			}
		}
		if !s.NoProject(&Meta{ID: "a1", Cwd: real + "/homes/a1"}) {
			t.Errorf("home %q: the chat's own folder is not its home", home)
		}
	}
}
