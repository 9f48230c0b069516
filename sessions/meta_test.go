package sessions

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const validChat = "version = 1\nid = \"k3x9q2\"\nname = \"fix\"\nharness = \"claude\"\ncwd = \"/home/me/src/app\"\n"

func TestParseMetaRefusals(t *testing.T) {
	tests := []struct{ name, text, err string }{
		{"syntax", "version = 1\nid = \"x", "toml:"},
		{"missing version", strings.Replace(validChat, "version = 1\n", "", 1), "missing key version"},
		{"newer version", strings.Replace(validChat, "version = 1", "version = 2", 1), "version 2 is newer than this acpmux-tui reads (1)"},
		{"negative version", strings.Replace(validChat, "version = 1", "version = -1", 1), "bad version -1"},
		{"id with slash", strings.Replace(validChat, `"k3x9q2"`, `"a/b"`, 1), `bad id "a/b"`},
		{"id dot-dot", strings.Replace(validChat, `"k3x9q2"`, `".."`, 1), `bad id ".."`},
		{"id upper case", strings.Replace(validChat, `"k3x9q2"`, `"K3"`, 1), `bad id "K3"`},
		{"missing harness", strings.Replace(validChat, "harness = \"claude\"\n", "", 1), "missing key harness"},
		{"relative cwd", strings.Replace(validChat, `"/home/me/src/app"`, `"src/app"`, 1), `cwd "src/app" is not an absolute path`},
		{"missing cwd", strings.Replace(validChat, "cwd = \"/home/me/src/app\"\n", "", 1), `cwd "" is not an absolute path`},
		{"relative folder", validChat + "additional_directories = [\"/a\", \"b\"]\n", `additional_directories[1] "b": not an absolute path`},
		{"folder with NUL", validChat + "additional_directories = [\"/a\\u0000\"]\n", "contains a NUL byte"},
		{"65 folders", validChat + "additional_directories = [" + strings.Repeat(`"/a",`, 65) + "]\n", "65 additional_directories, at most 64"},
		{"unknown origin", validChat + "origin = \"clone\"\n", `unknown origin "clone"`},
		{"unknown folders_via", validChat + "folders_via = \"carrier pigeon\"\n", `folders_via "carrier pigeon" is not one of argv, env, acp, flag, note`},
		{"wrong type", validChat + "additional_directories = \"/a\"\n", "additional_directories"},
		{"name too long", strings.Replace(validChat, `"fix"`, `"`+strings.Repeat("é", 513)+`"`, 1), "name is 1026 bytes, at most 1024"},
		{"name on two lines", strings.Replace(validChat, `"fix"`, `"fix\nthe parser"`, 1), `name "fix\nthe parser" has a control character (U+000A): a name is one line of printable text`},
		{"name with a tab", strings.Replace(validChat, `"fix"`, `"fix\tit"`, 1), "(U+0009)"},
		{"name with an escape", strings.Replace(validChat, `"fix"`, `"\u001b[2J"`, 1), "(U+001B)"},
		{"name with a C1 control", strings.Replace(validChat, `"fix"`, `"a\u009bb"`, 1), "(U+009B)"},
		{"NUL byte", validChat + "# \x00\n", "NUL byte at offset 85: not a TOML text file"},
		{"over the size limit", validChat + "pad = '" + strings.Repeat("x", 3<<20) + "'\n", "chat file is 3.0 MiB, over the 1 MiB limit"},
		{"nested too deep", validChat + "a = " + strings.Repeat("[", 33) + strings.Repeat("]", 33) + "\n", "line 6: nested deeper than 32 levels"},
		{"long bad id", strings.Replace(validChat, `"k3x9q2"`, `"`+strings.Repeat("x", 100_000)+`"`, 1), "…(100000 bytes)"},
		// The TOML parser fills a field from either, in an order of its
		// own: which id the chat had changed from read to read.
		{"keys differing in case", validChat + "iD = \"b\"\n", `keys "id" and "iD" differ only in case`},
		{"keys differing in case, the other first", "iD = \"b\"\n" + validChat, `keys "iD" and "id" differ only in case`},
		{"a table and one a header makes, differing in case", validChat + "[Re]\ne = \"\"\n[re.p]\nn = 1\n", `keys "Re" and "re" differ only in case`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseMeta([]byte(tt.text))
			if err == nil || m != nil {
				t.Fatalf("ParseMeta accepted:\n%.500s", tt.text)
			}
			if !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %.500q lacks %q", err, tt.err)
			}
			if len(err.Error()) > 2048 {
				t.Errorf("error is %d bytes", len(err.Error()))
			}
		})
	}
}

// TestKnownKeyInAnotherCase: a known key spelt in another case, with a key
// this version does not know beside it, is read into its field and written
// back once, in lowercase, the unknown key kept.
func TestKnownKeyInAnotherCase(t *testing.T) {
	text := strings.Replace(validChat, "harness =", "hArness =", 1) + "from_a_newer_version = 3\n"
	m, err := ParseMeta([]byte(text))
	if err != nil || m.Harness != "claude" {
		t.Fatalf("ParseMeta: %+v, %v", m, err)
	}
	out, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(strings.ToLower(string(out)), "harness =") != 1 || !strings.Contains(string(out), "harness = \"claude\"") || !strings.Contains(string(out), "from_a_newer_version = 3") {
		t.Fatalf("written back as:\n%s", out)
	}
	if _, err := ParseMeta(out); err != nil {
		t.Fatalf("the rewrite does not parse: %v", err)
	}
}

// A name is one line of printable text of at most 1024 bytes: any letters,
// marks and symbols, but no control characters.
func TestNames(t *testing.T) {
	for _, name := range []string{"", "fix the parser", "目录 ünïcødé 🦀", "a\u200db", strings.Repeat("x", MaxNameBytes), strings.Repeat("é", MaxNameBytes/2)} {
		if p := nameProblem(name); p != "" {
			t.Errorf("nameProblem(%.40q) = %s", name, p)
		}
		if _, err := ParseMeta([]byte(strings.Replace(validChat, `"fix"`, fmt.Sprintf("%q", name), 1))); err != nil {
			t.Errorf("ParseMeta with name %.40q: %v", name, err)
		}
	}
	// Create refuses what a chat file may not hold, and writes nothing.
	s := openStore(t)
	for _, name := range []string{strings.Repeat("x", MaxNameBytes+1), "two\nlines", "bell\a"} {
		if m, err := s.Create(NewChat{Harness: "shell", Name: name}); err == nil {
			t.Errorf("Create with name %.40q made %s", name, m.ID)
		}
	}
	// The store's lock file may be there (made by the first writer).
	if got := slices.DeleteFunc(dirEntries(t, filepath.Join(s.Home(), "chats")), func(n string) bool { return n == ".lock" }); len(got) != 0 {
		t.Errorf("refused Create left %v", got)
	}
	if got := dirEntries(t, filepath.Join(s.Home(), "homes")); len(got) != 0 {
		t.Errorf("refused Create left home folders %v", got)
	}
}

func TestFitName(t *testing.T) {
	long := strings.Repeat("é", MaxNameBytes) // 2048 bytes
	tests := []struct {
		base, suffix string
		want         string
	}{
		{"parser", " (fork)", "parser (fork)"},
		{strings.Repeat("x", MaxNameBytes-7), " (fork)", strings.Repeat("x", MaxNameBytes-7) + " (fork)"},
		{strings.Repeat("x", MaxNameBytes), " (fork)", strings.Repeat("x", MaxNameBytes-10) + "… (fork)"},
		// Cut on a character boundary: 1024-7-3 = 1014 bytes is 507 é.
		{long, " (fork)", strings.Repeat("é", 507) + "… (fork)"},
		{long, " (side)x", strings.Repeat("é", 506) + "… (side)x"},
		{"", strings.Repeat("s", MaxNameBytes+5), strings.Repeat("s", MaxNameBytes)},
	}
	for _, tt := range tests {
		got := FitName(tt.base, tt.suffix)
		if got != tt.want || len(got) > MaxNameBytes || nameProblem(got) != "" {
			t.Errorf("FitName(%.20q…, %.20q) = %.30q… (%d bytes), want %d bytes", tt.base, tt.suffix, got, len(got), len(tt.want))
		}
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	m := &Meta{
		// A name is one line of printable text; a path may hold any byte but
		// NUL, so the escapes TOML needs are tried on the folder.
		Version: 1, ID: "k3x9q2", Name: "fix \"the\" parser \\ é 目录", Harness: "claude",
		Cwd: "/home/me/src/app\n\ttab", AdditionalDirectories: []string{"/home/me/src/lib", "/with space/ü"},
		Created: time.Date(2026, 11, 30, 22, 0, 0, 500, time.FixedZone("x", 3600)),
		Parent:  "a1b2c3", Origin: OriginFork, AgentSessionID: "s-1",
	}
	data, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseMeta(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if got.Name != m.Name || got.Cwd != m.Cwd || strings.Join(got.AdditionalDirectories, "|") != strings.Join(m.AdditionalDirectories, "|") ||
		!got.Created.Equal(m.Created) || got.Parent != m.Parent || got.Origin != m.Origin || got.AgentSessionID != m.AgentSessionID {
		t.Errorf("round trip:\n%+v\n%+v\n%s", m, got, data)
	}
	// The known keys come first, in the order of docs/chat-files.md; an empty list is
	// written as an empty array.
	empty := &Meta{Version: 1, ID: "e", Harness: "shell", Cwd: "/"}
	data, err = empty.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := "version = 1\nid = \"e\"\nname = \"\"\nharness = \"shell\"\ncwd = \"/\"\nadditional_directories = []\ncreated = 0001-01-01T00:00:00Z\n"
	if string(data) != want {
		t.Errorf("Marshal:\n%s\nwant:\n%s", data, want)
	}
}

func TestEntryJSON(t *testing.T) {
	m := &Meta{Version: 1, ID: "k3x9q2", Name: "n", Harness: "claude", Cwd: "/p", Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	j := Entry{ID: m.ID, Meta: m}.JSON("stopped", "none")
	raw, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]any{
		"id": "k3x9q2", "name": "n", "harness": "claude", "cwd": "/p", "parent": "", "origin": "",
		"agentSessionId": "", "status": "stopped", "foldersVia": "none", "created": "2026-01-02T03:04:05Z",
	} {
		if got[k] != v {
			t.Errorf("%s = %#v, want %#v", k, got[k], v)
		}
	}
	if dirs, ok := got["additionalDirectories"].([]any); !ok || len(dirs) != 0 {
		t.Errorf("additionalDirectories = %#v, want []", got["additionalDirectories"])
	}
	if _, ok := got["broken"]; ok {
		t.Error("a sound chat has a broken field")
	}

	b := Entry{ID: "brk", Broken: errors.New("load chat brk: toml: bad")}.JSON("stopped", "none")
	if b.Status != "broken" || b.Broken != "load chat brk: toml: bad" || b.AdditionalDirectories == nil || b.ID != "brk" {
		t.Errorf("broken: %+v", b)
	}
}
