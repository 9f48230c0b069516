package e2e

import (
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
	sdk "github.com/coder/acp-go-sdk"
)

// TestE2EDoorChatInTheTUI: a chat an ACP client makes through
// `acpmux-tui acp` appears in an open TUI at once; a prompt typed in the
// TUI streams to the ACP client, and the client's prompt shows in the TUI.
func TestE2EDoorChatInTheTUI(t *testing.T) {
	needTmux(t)
	c := doorCLI(t)
	s := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("q quit")
	d := c.openDoor(t, acpschema.ForTest(t), "--harness", "fake")
	d.initialize(t)
	proj := c.dir("proj")
	resp, err := d.NewSession(doorCtx(t), sdk.NewSessionRequest{Cwd: proj, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	id := string(resp.SessionId)
	s.waitText("proj " + id)
	s.keys("Enter")
	s.waitText("Write a prompt", "enter send")
	s.text("typed in the tui")
	s.keys("Enter")
	s.waitText("echo: typed in the tui")
	srvWaitFor(t, "the TUI's turn at the ACP client", func() bool {
		return strings.Contains(d.Text(id, "user"), "typed in the tui|") && strings.Contains(d.Text(id, "agent"), "echo: typed in the tui|")
	})
	if _, err := d.Prompt(doorCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("sent by the client")}}); err != nil {
		t.Fatal(err)
	}
	s.waitText("echo: sent by the client")
	if err := d.Invalid(); err != nil {
		t.Fatal(err)
	}
}
