package e2e

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EComposerCommandsAndMentions: the real binary in tmux, an ACP
// chat of the fake agent in a project folder. / offers the agent's slash
// commands and tab completes one; @ offers the files of the chat's folder
// (not its hidden ones) and tab puts one in the prompt as a chip; enter
// sends, and the prompt that reached the agent carries the file as a
// resource_link with its file:// URI (the agent's own record says so).
func TestE2EComposerCommandsAndMentions(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	state := c.dir("agent-state")
	config := "[harness.fake]\ncommand = \"" + buildACPFake(t) + "\"\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = \"" + state + "\", ACPMUX_FAKE_COMMANDS = \"1\" }\n"
	if err := os.WriteFile(c.config, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	proj := c.dir("proj")
	writeProject(t, proj, "src/parser.go", "src/lexer.go", "README.md", ".git/HEAD")
	chat := c.chat("new", "--harness", "fake", "--cwd", proj, "--name", "composer", "--json")

	s := startTmux(t, 120, 40, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("composer", "q quit")
	s.keys("Enter")
	s.waitText("Write a prompt")

	// The agent offers its commands once its session is set up.
	s.text("/")
	s.waitText("commands of the agent", "/review", "Review the changes of this chat", "/explain")
	s.text("te")
	s.waitFor("the popup filtered to /test", func(scr string) bool {
		return strings.Contains(scr, "/test") && !strings.Contains(scr, "/review")
	})
	s.keys("Tab")
	s.waitText("│ /test ", "package pattern")

	s.text("@pars")
	scr := s.waitText("files of the chat", "src/parser.go")
	if strings.Contains(scr, ".git") || strings.Contains(scr, "src/lexer.go") {
		t.Fatalf("@pars offers a hidden file or one it does not match:\n%s", scr)
	}
	s.keys("Tab")
	s.waitText("│ /test @parser.go ")
	s.text("please")
	s.keys("Enter")
	s.waitText("echo: /test @parser.go please")

	wantOneLink(t, state, c.chat("show", chat.ID, "--json").AgentSessionID, filepath.Join(proj, "src/parser.go"))
}

// writeProject writes each file (a path under root) with a line of Go.
func writeProject(t *testing.T, root string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package src\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// wantOneLink fails unless the fake ACP agent, keeping its record in
// state, received exactly one resource link in session sid: the file at
// path.
func wantOneLink(t *testing.T, state, sid, path string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(state, sid+".json"))
	if err != nil {
		t.Fatalf("the fake's record of session %q: %v", sid, err)
	}
	var rec struct{ Links []string }
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	uri := (&url.URL{Scheme: "file", Path: path}).String()
	// A link is "NAME URI MIMETYPE" in the record.
	if len(rec.Links) != 1 || !strings.HasPrefix(rec.Links[0], filepath.Base(path)+" "+uri+" ") {
		t.Fatalf("the agent received links %q, want %s at %s", rec.Links, filepath.Base(path), uri)
	}
}
