package sessions

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// parseMetaTOML is ParseMeta as it was before decodeCanonical: the same
// checks before and after, every file through the TOML parser.
func parseMetaTOML(data []byte) (*Meta, error) {
	if len(data) > MaxChatFileBytes {
		return nil, sizeError(int64(len(data)))
	}
	if i := strings.IndexByte(string(data), 0); i >= 0 {
		return nil, fmt.Errorf("NUL byte at offset %d: not a TOML text file", i)
	}
	if err := checkNesting(data); err != nil {
		return nil, err
	}
	m, err := decodeTOML(data)
	if err != nil {
		return nil, err
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}

// sameAsTOML fails t unless decodeCanonical, where it decodes data, makes
// the Meta the TOML parser makes of it, and ParseMeta gives what the TOML
// path gives: the same Meta, or the same error text. It reports whether
// decodeCanonical decoded data.
func sameAsTOML(t *testing.T, data []byte) bool {
	t.Helper()
	fast, ok := decodeCanonical(data)
	if ok {
		full, err := decodeTOML(data)
		if err != nil {
			t.Fatalf("decodeCanonical read a file the TOML parser refuses (%v):\n%q", err, data)
		}
		if !reflect.DeepEqual(fast, full) {
			t.Fatalf("decodeCanonical and the TOML parser differ on\n%q\nfast: %#v\ntoml: %#v", data, fast, full)
		}
	}
	got, gotErr := ParseMeta(data)
	want, wantErr := parseMetaTOML(data)
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Fatalf("ParseMeta error %v, the TOML path's %v, on\n%q", gotErr, wantErr, data)
	}
	// Printed, not DeepEqual: a kept key may be NaN, and the TOML parser
	// makes a new *time.Location for each offset it reads.
	if metaText(got) != metaText(want) {
		t.Fatalf("ParseMeta and the TOML path differ on\n%q\ngot:  %s\nwant: %s", data, metaText(got), metaText(want))
	}
	return ok
}

// metaText prints m for a comparison: its fields, and its baseline's and
// its kept keys' values rather than the pointers that hold them (a kept
// date-time's zone is a new *time.Location at each parse).
func metaText(m *Meta) string {
	if m == nil {
		return fmt.Sprintf("%#v", m)
	}
	c := *m
	c.Baseline, c.Worktree, c.extra = nil, nil, nil
	text := fmt.Sprintf("%#v", &c)
	keys := slices.Sorted(maps.Keys(m.extra))
	for _, k := range keys {
		text += fmt.Sprintf(" kept{%q: %v}", k, m.extra[k])
	}
	if w := m.Worktree; w != nil {
		text += fmt.Sprintf(" worktree%+v", *w)
	}
	b := m.Baseline
	if b == nil {
		return text
	}
	text += fmt.Sprintf(" baseline{at %s head %q", b.At, b.Head)
	for _, f := range b.Folders {
		since := "nil"
		if f.Since != nil {
			since = f.Since.String()
		}
		text += fmt.Sprintf(" folder{%q %q %s}", f.Path, f.Head, since)
	}
	return text + "}"
}

// corpusFiles returns the inputs of a fuzz corpus under testdata/fuzz.
func corpusFiles(t testing.TB, name string) map[string][]byte {
	dir := filepath.Join("testdata", "fuzz", name)
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, de := range des {
		b, err := os.ReadFile(filepath.Join(dir, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		_, rest, _ := strings.Cut(string(b), "\n")
		rest = strings.TrimSpace(rest)
		q, ok := strings.CutPrefix(rest, "[]byte(")
		if !ok || !strings.HasSuffix(q, ")") {
			t.Fatalf("%s: not a []byte corpus entry", de.Name())
		}
		s, err := strconv.Unquote(strings.TrimSuffix(q, ")"))
		if err != nil {
			t.Fatalf("%s: %v", de.Name(), err)
		}
		out[de.Name()] = []byte(s)
	}
	return out
}

// TestDecodeCanonicalIsTOML: over the chat-file corpus of both fuzz tests,
// hand-made edge cases, and files Marshal writes for chats with every key
// (folders, files, a capsule, escapes), the fast decode gives the TOML
// parser's Meta where it decodes, and ParseMeta gives the same chat or the
// same error as ever. It must decode what Marshal writes, or ls is not
// faster; and it must give up on what it does not fully read.
func TestDecodeCanonicalIsTOML(t *testing.T) {
	for _, corpus := range []string{"FuzzParseMeta", "FuzzDecodeCanonical"} {
		for name, data := range corpusFiles(t, corpus) {
			t.Run(corpus+"/"+name, func(t *testing.T) { sameAsTOML(t, data) })
		}
	}
	head := "version = 1\nid = \"abc\"\nharness = \"shell\"\ncwd = \"/\"\n"
	for _, c := range []struct {
		name, text string
		fast       bool // decodeCanonical must decode it
	}{
		{"plain", head, true},
		{"empty", "", true},
		{"blank lines", "\n \t\n" + head + "\n", true},
		{"no final newline", strings.TrimSuffix(head, "\n"), true},
		{"blanks around =", "version\t=  1\nid =\"abc\"\nharness= \"shell\" \ncwd = \"/\"\n", true},
		{"escapes", head + "name = \"a\\tb\\n\\\"q\\\" \\\\ \\b\\f\\r \\u00e9 \\U0001F600\"\n", true},
		{"raw tab and non-ASCII", head + "name = \"a\tb é 世\"\n", true},
		{"arrays", head + "additional_directories = [\"/a\", \"/b\"]\nadditional_files = []\n", true},
		{"array without blanks", head + "additional_directories = [\"/a\",\"/b\"]\n", true},
		{"array with a comma in a string", head + "additional_directories = [\"/a, \\\"b]\"]\n", true},
		{"created", head + "created = 2026-11-30T22:00:00Z\n", true},
		{"created with a fraction", head + "created = 2026-11-30T22:00:00.123456789Z\n", true},
		{"capsule", head + "capsule = true\n", true},
		{"title", head + "title = \"Parser report \u00e9\"\n", true},
		{"title twice", head + "title = \"a\"\ntitle = \"b\"\n", false},
		{"title as a number", head + "title = 1\n", false},
		{"a control character escaped in a title", head + "title = \"a\\u001bb\"\n", true},
		{"a bidi override in a title", head + "title = \"a\u202eb\"\n", true},
		{"capsule false", head + "capsule = false\n", true},
		{"usage", head + "context_used = 1200\ncontext_size = 200000\ncost = 0.4213\ncost_currency = \"USD\"\n", true},
		{"usage at its bounds", head + "context_used = 1000000000\ncontext_size = 1000000000\ncost = 1000000000.0\ncost_currency = \"VND\"\n", true},
		{"a cost with an exponent", head + "cost = 1e-05\ncost_currency = \"USD\"\n", false},
		{"a negative cost", head + "cost = -1.5\ncost_currency = \"USD\"\n", false},
		{"a cost as an integer", head + "cost = 2\ncost_currency = \"USD\"\n", false},
		{"a cost with a leading zero", head + "cost = 01.5\ncost_currency = \"USD\"\n", false},
		{"a cost of nan", head + "cost = nan\ncost_currency = \"USD\"\n", false},
		{"a cost with underscores", head + "cost = 1_000.5\ncost_currency = \"USD\"\n", false},
		{"context twice", head + "context_used = 1\ncontext_used = 2\n", false},
		{"a context as a string", head + "context_size = \"2\"\n", false},
		{"a context of 19 digits", head + "context_size = 1000000000000000000\n", false},
		{"a bad id still checked", "version = 1\nid = \"Bad\"\nharness = \"shell\"\ncwd = \"/\"\n", true},
		{"version 0", "version = 0\n", true},
		{"version too new", "version = 2\nid = \"abc\"\n", true},
		{"control character escaped in a name", head + "name = \"a\\u001bb\"\n", true},
		{"origin and the rest", head + "parent = \"p\"\norigin = \"fork\"\nagent_session_id = \"0b7a0c2e-5f0e-4c55-9d7e-2c1f3a9b8d10\"\nfolders_via = \"argv\"\nfiles_via = \"env\"\n", true},

		{"baseline", head + "\n[baseline]\nat = 2026-12-03T09:00:00.000000123Z\nhead = \"3f1c2a9e8b7d6c5f4e3a2b1c0d9e8f7a6b5c4d3e\"\n\n[[baseline.folders]]\npath = \"/l\"\nhead = \"3f1c2a9e8b7d6c5f4e3a2b1c0d9e8f7a6b5c4d3e\"\nsince = 2026-12-03T09:00:00Z\n\n[[baseline.folders]]\npath = \"/n\"\n", true},
		{"baseline without folders", head + "[baseline]\nat = 2026-12-03T09:00:00Z\n", true},

		{"worktree", head + "\n[worktree]\npath = \"/h/worktrees/k3\"\nbranch = \"acpmux/x-k3\"\nbase = \"3f1c2a9e8b7d6c5f4e3a2b1c0d9e8f7a6b5c4d3e\"\nbase_ref = \"HEAD\"\nrepo = \"/src\"\n", true},
		{"baseline then worktree", head + "[baseline]\nat = 2026-12-03T09:00:00Z\n\n[[baseline.folders]]\npath = \"/n\"\n\n[worktree]\npath = \"/w\"\n", true},
		{"worktree twice", head + "[worktree]\n[worktree]\n", false},
		{"baseline after the worktree", head + "[worktree]\npath = \"/w\"\n[baseline]\n", false},
		{"a worktree key twice", head + "[worktree]\nbase = \"a\"\nbase = \"b\"\n", false},
		{"an unknown worktree key", head + "[worktree]\nat = 2026-12-03T09:00:00Z\n", false},
		{"folders before the baseline", head + "[[baseline.folders]]\npath = \"/n\"\n", false},
		{"baseline twice", head + "[baseline]\n[baseline]\n", false},
		{"a top key after the baseline", head + "[baseline]\nname = \"x\"\n", false},
		{"a baseline key twice", head + "[baseline]\nhead = \"a\"\nhead = \"b\"\n", false},
		{"a folder key in the baseline", head + "[baseline]\npath = \"/a\"\n", false},
		{"comment", head + "# a comment\n", false},
		{"comment after a value", head + "name = \"a\" # x\n", false},
		{"unknown key", head + "notes = \"x\"\n", false},
		{"a key twice", head + "name = \"a\"\nname = \"b\"\n", false},
		{"quoted key", head + "\"name\" = \"a\"\n", false},
		{"leading blank", " " + head, false},
		{"table", head + "[x]\ny = 1\n", false},
		{"CRLF", strings.ReplaceAll(head, "\n", "\r\n"), false},
		{"literal string", head + "name = 'a'\n", false},
		{"multi-line string", head + "name = \"\"\"a\"\"\"\n", false},
		{"unterminated string", head + "name = \"a\n", false},
		{"string then junk", head + "name = \"a\"b\n", false},
		{"raw control character", head + "name = \"a\x01b\"\n", false},
		{"raw DEL", head + "name = \"a\x7fb\"\n", false},
		{"escape \\e", head + "name = \"\\e\"\n", false},
		{"escape \\x", head + "name = \"\\x41\"\n", false},
		{"surrogate escape", head + "name = \"\\ud800\"\n", false},
		{"escape past U+10FFFF", head + "name = \"\\U00110000\"\n", false},
		{"short \\u", head + "name = \"\\u12\"\n", false},
		{"bad hex", head + "name = \"\\u12g4\"\n", false},
		{"trailing comma", head + "additional_directories = [\"/a\",]\n", false},
		{"multi-line array", head + "additional_directories = [\n\"/a\"]\n", false},
		{"array of numbers", head + "additional_directories = [1]\n", false},
		{"version with a sign", "version = +1\nid = \"abc\"\n", false},
		{"version with a leading zero", "version = 01\nid = \"abc\"\n", false},
		{"version with an underscore", "version = 1_0\nid = \"abc\"\n", false},
		{"version as a string", "version = \"1\"\n", false},
		{"version as a float", "version = 1.0\n", false},
		{"created with an offset", head + "created = 2026-11-30T22:00:00+02:00\n", false},
		{"created lowercase", head + "created = 2026-11-30t22:00:00z\n", false},
		{"created local", head + "created = 2026-11-30T22:00:00\n", false},
		{"created with a space", head + "created = 2026-11-30 22:00:00Z\n", false},
		{"created with a short year", head + "created = 226-11-30T22:00:00Z\n", false},
		{"created out of range", head + "created = 2026-13-30T22:00:00Z\n", false},
		{"capsule as a string", head + "capsule = \"true\"\n", false},
		{"no value", head + "name =\n", false},
		{"no =", head + "name\n", false},
		{"invalid UTF-8", head + "name = \"\xff\"\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := sameAsTOML(t, []byte(c.text)); got != c.fast {
				t.Fatalf("decodeCanonical decoded it: %v, want %v\n%q", got, c.fast, c.text)
			}
		})
	}
	created := time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC)
	for i, m := range []*Meta{
		{Version: 1, ID: "k3x9q2", Name: "fix the parser", Harness: "claude", Cwd: "/home/me/src/app", Created: created},
		{Version: 1, ID: "a-1", Name: "tab\there \"q\" \\ é 世 😀", Harness: "claude-acp", Cwd: "/with space/ü",
			AdditionalDirectories: []string{"/home/me/src/lib", "/home/me/notes, and more"}, AdditionalFiles: []string{"/home/me/specs/api.md"},
			Created: created.Add(1500 * time.Millisecond), Parent: "k3x9q2", Origin: OriginHandoff,
			AgentSessionID: "0b7a0c2e-5f0e-4c55-9d7e-2c1f3a9b8d10", FoldersVia: "acp", FilesVia: "acp", Capsule: true,
			Title: "Parser \"report\" \\ é 世", Sandbox: true},
		{Version: 1, ID: "ctl", Name: "x", Harness: "shell", Cwd: "/a\u007fb\u0001c\u2028d", Created: created},
		{Version: 1, ID: "base", Harness: "shell", Cwd: "/src", AdditionalDirectories: []string{"/l", "/n"}, Created: created,
			Baseline: &Baseline{At: created.Add(time.Second), Head: "3f1c2a9e8b7d6c5f4e3a2b1c0d9e8f7a6b5c4d3e", Folders: []FolderBaseline{
				{Path: "/l", Head: "9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b"}, {Path: "/n", Since: &created}}}},
		{Version: 1, ID: "wt", Harness: "shell", Cwd: "/h/worktrees/wt", Created: created,
			Baseline: &Baseline{At: created, Head: "3f1c2a9e8b7d6c5f4e3a2b1c0d9e8f7a6b5c4d3e"},
			Worktree: &Worktree{Path: "/h/worktrees/wt", Branch: "acpmux/wt", Base: "3f1c2a9e8b7d6c5f4e3a2b1c0d9e8f7a6b5c4d3e", BaseRef: "HEAD", Repo: "/src"}},
	} {
		data, err := m.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		t.Run("Marshal/"+strconv.Itoa(i), func(t *testing.T) {
			if !sameAsTOML(t, data) {
				t.Fatalf("decodeCanonical gave up on what Marshal writes:\n%s", data)
			}
		})
	}
}

// FuzzDecodeCanonical: whatever the bytes, decodeCanonical decodes them
// only into the Meta the TOML parser makes of them, and ParseMeta answers
// as the TOML path does (sameAsTOML).
func FuzzDecodeCanonical(f *testing.F) {
	for _, data := range corpusFiles(f, "FuzzParseMeta") {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameAsTOML(t, data) })
}
