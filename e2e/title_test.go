package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIAgentTitleIsKeptCleanedAndShown: the title an ACP agent gives its
// session (session_info_update) is kept in the chat file and shown by
// `show` (and `title` in --json) and `ls` (in place of the default name);
// a hostile one reaches neither the file nor the terminal with its
// escapes, controls or bidirectional characters; a later one replaces it;
// a name of the user's wins in `ls`.
func TestCLIAgentTitleIsKeptCleanedAndShown(t *testing.T) {
	c := newCLI(t)
	config := "[harness.fake]\ncommand = \"" + buildACPFake(t) + "\"\ntransport = \"acp\"\n"
	if err := os.WriteFile(c.config, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	chat := c.chat("new", "--harness", "fake", "--json")
	file := filepath.Join(c.home, "chats", chat.ID+".toml")
	stored := func() string {
		t.Helper()
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	if out := c.ok("prompt", chat.ID, "title Parser report"); out != "title: set\n" {
		t.Fatalf("prompt printed %q", out)
	}
	if got := c.chat("show", chat.ID, "--json"); got.Title != "Parser report" || got.Name != chat.Name {
		t.Fatalf("show --json: title %q name %q, want the title and the name %q", got.Title, got.Name, chat.Name)
	}
	if f := stored(); !strings.Contains(f, "title = \"Parser report\"\n") {
		t.Fatalf("chat file:\n%s", f)
	}
	if out := c.ok("show", chat.ID); !strings.Contains(out, "title") || !strings.Contains(out, "Parser report") {
		t.Fatalf("show:\n%s", out)
	}
	if out := c.ok("ls"); !strings.Contains(out, "Parser report") {
		t.Fatalf("ls does not show the title in place of the default name:\n%s", out)
	}

	// Hostile: an OSC that would retitle the window, a BEL, a right-to-left
	// override. The fake reads \x1b and \u202e as the characters.
	c.ok("prompt", chat.ID, `title \x1b]0;pwned\x07Report \u202egpj.exe\x1b[2J`)
	const clean = "Report gpj.exe"
	if got := c.chat("show", chat.ID, "--json"); got.Title != clean {
		t.Fatalf("hostile title shown as %q, want %q", got.Title, clean)
	}
	f := stored()
	if !strings.Contains(f, "title = \""+clean+"\"\n") || strings.Contains(f, "pwned") || strings.Contains(f, "\\u") {
		t.Fatalf("chat file after a hostile title:\n%s", f)
	}
	for _, args := range [][]string{{"show", chat.ID}, {"ls"}} {
		if out := c.ok(args...); strings.ContainsAny(out, "\x1b\x07\u202e") || !strings.Contains(out, clean) {
			t.Fatalf("%s printed %q", args[0], out)
		}
	}

	// The user's name wins in ls; show keeps both.
	c.ok("rename", chat.ID, "my parser")
	if out := c.ok("ls"); !strings.Contains(out, "my parser") || strings.Contains(out, clean) {
		t.Fatalf("ls after a rename:\n%s", out)
	}
	if got := c.chat("show", chat.ID, "--json"); got.Name != "my parser" || got.Title != clean {
		t.Fatalf("after a rename: name %q title %q", got.Name, got.Title)
	}
}
