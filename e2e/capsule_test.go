package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EHandoffCapsuleIsTheServers: the TUI's handoff capsule is written
// by the server, which runs the harness: a Claude Code chat whose session
// log is where the server's CLAUDE_CONFIG_DIR says gets its conversation
// in the capsule, though the TUI was started without that variable and
// its own ~/.claude holds nothing.
func TestE2EHandoffCapsuleIsTheServers(t *testing.T) {
	needTmux(t)
	c := newCLI(t) // PATH holds nothing: the shell alone is installed
	configDir := filepath.Join(c.root, "server-claude")
	c.claudeChatWithLog("parser", configDir)
	c.serve("CLAUDE_CONFIG_DIR=" + configDir)

	s := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("chats 1")
	s.keys("h")
	// The notes start in one column, after the longest name (claude-acp).
	s.waitText("hand parser off to", "shell       pty · ✓ installed")
	s.keys("Enter") // shell: the one installed, offered first
	scr := s.waitText("hand off to shell: the capsule", "# Handoff from chat \"parser\"")
	if !strings.Contains(scr, claudeSessionGoal) {
		t.Fatalf("the capsule lacks what the session log the server reads said (%q):\n%s", claudeSessionGoal, scr)
	}
	s.keys("Escape")
	s.waitText("handoff cancelled: no chat made")
	s.quit()
}
