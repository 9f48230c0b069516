package e2e

import (
	"os"
	"strings"
	"testing"
)

// TestE2ETranscriptDrawn: the real binary in tmux, an ACP chat of the fake
// agent. Its markdown reply is drawn without its marks (no "**", no code
// fence's backticks, a table's cells apart), a failed command stays open
// with its output, a completed edit folds to its header until ctrl+o opens
// it (its diff and the new file), and a permission request shows the diff
// it asks about above its options.
func TestE2ETranscriptDrawn(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	config := "[harness.fake]\ncommand = \"" + buildACPFake(t) + "\"\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = \"" + c.dir("agent-state") + "\" }\n"
	if err := os.WriteFile(c.config, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	c.chat("new", "--harness", "fake", "--name", "drawn", "--json")

	// CI set makes termenv take the terminal for no terminal (no colours,
	// and a struck word keeps its ~~): the TUI is drawn as a user sees it.
	s := startTmux(t, 140, 60, append(c.env(), "TERM=xterm-256color", "CI="), []string{binary})
	s.waitText("drawn", "q quit")
	s.keys("Enter")
	s.waitText("Write a prompt")
	prompt := func(text string) {
		s.text(text)
		s.keys("Enter")
	}

	prompt("markdown")
	scr := s.waitText("func nextToken(s string) (tok, rest string) {", "Nothing else is broken known to be broken. Done.")
	for _, raw := range []string{"```", "**", "~~", "*Done.*", "### Next"} {
		if strings.Contains(scr, raw) {
			t.Fatalf("the markdown's %q is on the screen:\n%s", raw, scr)
		}
	}

	prompt("execute-fail")
	s.waitText("$ Run go build ./... ✗ failed", "./parser.go:5:9: undefined: tokens")

	prompt("edit-diff")
	scr = s.waitText("✎ Edit parser.go ✓", "edited parser.go and lexer.go")
	if strings.Contains(scr, "// Parse splits s into tokens.") {
		t.Fatalf("the completed edit is open before ctrl+o:\n%s", scr)
	}
	s.keys("C-o")
	s.waitText("+// Parse splits s into tokens.", "-    return strings.Fields(s)", "lexer.go (new file)")
	s.keys("C-o")
	s.waitFor("ctrl+o to fold the edit again", func(scr string) bool {
		return !strings.Contains(scr, "// Parse splits s into tokens.")
	})

	prompt("permission-edit")
	scr = s.waitText("⚠ permission: Edit main.go", "+func main() { run() }", "1 Allow")
	if strings.Index(scr, "+func main() { run() }") > strings.Index(scr, "1 Allow") {
		t.Fatalf("the diff is not above the options:\n%s", scr)
	}
	s.keys("1")
	s.waitText("permission: allow_once")
}
