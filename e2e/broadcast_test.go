package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EOnePromptToThreeChats: in the TUI, space marks three ACP chats,
// p opens one prompt for them, and each agent answers it.
func TestE2EOnePromptToThreeChats(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	wire := filepath.Join(c.root, "wire.jsonl")
	conf := fmt.Sprintf("[harness.fake]\ncommand = %q\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_WIRE = %q }\n", buildACPFake(t), wire)
	if err := os.WriteFile(c.config, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, name := range []string{"one", "two", "three"} {
		ids = append(ids, c.chat("new", "--harness", "fake", "--name", name, "--json").ID)
	}
	s := startTmux(t, 160, 40, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("one", "two", "three")
	s.keys("Home")
	for range ids {
		s.keys("Space")
	}
	s.waitText("+one", "+two", "+three")
	s.keys("p")
	s.waitText("one prompt to 3 chats")
	s.text("same question")
	s.keys("Enter")
	s.waitText("sent to 3 of 3 chats")
	// Each agent (a process of its own, writing the same record) got it.
	srvWaitFor(t, "three agents to get the prompt", func() bool {
		b, _ := os.ReadFile(wire)
		n := 0
		for line := range strings.Lines(string(b)) {
			if strings.Contains(line, `"session/prompt"`) && strings.Contains(line, "same question") {
				n++
			}
		}
		return n == 3
	})
}
