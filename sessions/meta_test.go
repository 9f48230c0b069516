package sessions

import (
	"encoding/json"
	"errors"
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
		{"wrong type", validChat + "additional_directories = \"/a\"\n", "additional_directories"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseMeta([]byte(tt.text))
			if err == nil || m != nil {
				t.Fatalf("ParseMeta accepted:\n%s", tt.text)
			}
			if !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %q lacks %q", err, tt.err)
			}
		})
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	m := &Meta{
		Version: 1, ID: "k3x9q2", Name: "fix \"the\" parser\n\ttab é 目录", Harness: "claude",
		Cwd: "/home/me/src/app", AdditionalDirectories: []string{"/home/me/src/lib", "/with space/ü"},
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
	// The known keys come first, in the order of DESIGN.md; an empty list is
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
