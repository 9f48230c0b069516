package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// rawControl returns the first control character in s that a terminal
// would act on (anything but newline), or -1.
func rawControl(s string) rune {
	for _, r := range s {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return r
		}
	}
	return -1
}

// TestCLIShowsNoRawEscapes: chat files written by hand with escape
// sequences in every field the format lets them into (the harness, the
// cwd, a folder) and with a hostile agent_session_id: `ls` and `show` print
// none of them raw, `--json` keeps the exact values (encoded by JSON), and
// the chat with the hostile session id is listed as broken with the
// reason, its file left as it was.
func TestCLIShowsNoRawEscapes(t *testing.T) {
	c := newCLI(t)
	c.ok("ls") // makes the agent home
	osc := "\x1b]0;X\a"
	hostile := "version = 1\nid = \"hostile\"\nname = \"hostile\"\nharness = \"shell\"\ncwd = \"/tmp\"\n" +
		"agent_session_id = \"../../../outside/stolen\\u001b]0;X\\u0007\"\n"
	escaped := "version = 1\nid = \"escaped\"\nname = \"escaped\"\n" +
		"harness = \"shell\\u001b[31m\"\ncwd = \"/tmp/x\\u001b]0;X\\u0007\"\n" +
		"additional_directories = [\"/tmp/y\\u009b2J\\u001b]52;c;cHduZWQ=\\u0007\"]\n"
	files := map[string]string{"hostile": hostile, "escaped": escaped}
	for id, text := range files {
		if err := os.WriteFile(filepath.Join(c.home, "chats", id+".toml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	for _, args := range [][]string{{"ls"}, {"show", "hostile"}, {"show", "escaped"}, {"ls", "--json"}, {"show", "escaped", "--json"}} {
		r := c.run(args...)
		// show of a broken chat exits 1 (docs/cli.md); every other run 0.
		if want := map[bool]int{true: 1, false: 0}[args[0] == "show" && args[1] == "hostile"]; r.code != want {
			t.Errorf("acpmux-tui %s exited %d, want %d\n%s%s", strings.Join(args, " "), r.code, want, r.stdout, r.stderr)
		}
		for _, out := range []string{r.stdout, r.stderr} {
			if ch := rawControl(out); ch >= 0 {
				t.Errorf("acpmux-tui %s printed control character %U raw:\n%q", strings.Join(args, " "), ch, out)
			}
		}
	}
	if r := c.run("show", "hostile"); !strings.Contains(r.stdout+r.stderr, `agent_session_id "../../../outside/stolen\x1b]0;X\a" has a character that is not printable (U+001B)`) {
		t.Errorf("show of the hostile chat does not say why it is broken:\n%s%s", r.stdout, r.stderr)
	}
	if out := c.ok("show", "escaped"); !strings.Contains(out, "/tmp/x") || !strings.Contains(out, "/tmp/y") || !strings.Contains(out, "harness      shell\n") {
		t.Errorf("show of the escaped chat lost its fields:\n%s", out)
	}
	var list []proto.ChatJSON
	if err := json.Unmarshal([]byte(c.ok("ls", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	for _, j := range list {
		switch j.ID {
		case "hostile":
			if j.Status != "broken" || !strings.Contains(j.Broken, "not printable (U+001B)") || j.AgentSessionID != "" {
				t.Errorf("ls --json: the hostile chat is %+v, want it broken with the reason", j)
			}
		case "escaped":
			if j.Cwd != "/tmp/x"+osc || j.Harness != "shell\x1b[31m" {
				t.Errorf("ls --json changed the values: cwd %q harness %q", j.Cwd, j.Harness)
			}
		}
	}
	for id, text := range files {
		if got, _ := os.ReadFile(filepath.Join(c.home, "chats", id+".toml")); string(got) != text {
			t.Errorf("chat file %s changed: %q", id, got)
		}
	}
}
