package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// acpx returns node and the real acpx CLI of the installed peers, or skips
// (fails under ACPMUX_REQUIRE_PEERS=1) when they are absent.
func acpx(t *testing.T) (node, cli string) {
	t.Helper()
	cli = filepath.Join(moduleRoot, ".peers", "node_modules", "acpx", "dist", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		acpschema.SkipUnlessPeers(t, "acpx is not installed in .peers/ (scripts/test installs acpx@0.19.1)")
	}
	var err error
	if node, err = exec.LookPath("node"); err != nil {
		acpschema.SkipUnlessPeers(t, "acpx is installed, but node is not on PATH")
	}
	return node, cli
}

// runAcpx runs acpx against `acpmux-tui acp --harness fake` in folder dir.
func (c *cli) runAcpx(t *testing.T, dir string, args ...string) result {
	t.Helper()
	node, cli := acpx(t)
	agent := binary + " acp --harness fake"
	ctx, cancel := context.WithTimeout(context.Background(), doorHang)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{cli, "--agent", agent, "--timeout", "120"}, args...)...)
	cmd.Env = append(c.env(), "PATH="+filepath.Join(c.root, "bin")+":"+filepath.Dir(node))
	cmd.Dir = dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("acpx %q did not end within %v\nstdout: %s\nstderr: %s", args, doorHang, stdout.String(), stderr.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// TestACPDoorDrivenByAcpx: the real acpx, pointed at `acpmux-tui acp`,
// creates a chat (the chat file says origin acp), prompts the fake agent
// through the door, and lists the home's ACP chats with session/list; a
// prompt from acpmux-tui's own CLI lands in the same conversation, which
// acpx's next prompt continues.
func TestACPDoorDrivenByAcpx(t *testing.T) {
	c := doorCLI(t)
	proj := c.dir("proj")
	r := c.runAcpx(t, proj, "sessions", "new")
	if r.code != 0 {
		t.Fatalf("acpx sessions new: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	lines := strings.Fields(strings.TrimSpace(r.stdout))
	if len(lines) == 0 {
		t.Fatalf("acpx sessions new printed no session id:\n%s\n%s", r.stdout, r.stderr)
	}
	id := lines[len(lines)-1]
	// acpx keeps a queue owner running for its session after each call;
	// closing the session ends it, so the test leaves no process behind.
	t.Cleanup(func() {
		if r := c.runAcpx(t, proj, "sessions", "close"); r.code != 0 {
			t.Errorf("acpx sessions close: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
	})
	var chat proto.ChatJSON
	for _, ch := range c.ls() {
		if ch.ID == id {
			chat = ch
		}
	}
	if chat.Origin != sessions.OriginACP || chat.Cwd != proj || chat.Harness != "fake" {
		t.Fatalf("acpx's session %q is the chat %+v", id, chat)
	}

	r = c.runAcpx(t, proj, "--format", "quiet", "prompt", "hello from acpx")
	if r.code != 0 || !strings.Contains(r.stdout, "echo: hello from acpx") {
		t.Fatalf("acpx prompt: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}

	c.ok("prompt", id, "from the cli")
	r = c.runAcpx(t, proj, "--format", "quiet", "prompt", "and again")
	if r.code != 0 || !strings.Contains(r.stdout, "echo: and again") {
		t.Fatalf("acpx's second prompt: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if got := strings.Join(c.transcriptOf(t, id), "|"); !strings.Contains(got, "hello from acpx") || !strings.Contains(got, "from the cli") || !strings.Contains(got, "and again") {
		t.Fatalf("the chat's conversation: %s", got)
	}

	r = c.runAcpx(t, proj, "--format", "json", "sessions", "list")
	if r.code != 0 {
		t.Fatalf("acpx sessions list: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var listed struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			Cwd       string `json:"cwd"`
			Title     string `json:"title"`
		} `json:"sessions"`
	}
	out := r.stdout[strings.LastIndex(r.stdout, "\n{")+1:]
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &listed); err != nil {
		t.Fatalf("acpx sessions list printed %q: %v", r.stdout, err)
	}
	if len(listed.Sessions) != 1 || listed.Sessions[0].SessionID != id || listed.Sessions[0].Cwd != proj || listed.Sessions[0].Title != chat.Name {
		t.Fatalf("acpx sessions list: %+v", listed.Sessions)
	}
}

// transcriptOf is the user prompts of a chat's conversation as the fake
// agent keeps it (ACPMUX_FAKE_STATE), oldest first.
func (c *cli) transcriptOf(t *testing.T, id string) []string {
	t.Helper()
	sid := c.chat("show", id, "--json").AgentSessionID
	b, err := os.ReadFile(filepath.Join(c.dir("agent-state"), sid+".json"))
	if err != nil {
		t.Fatalf("the fake agent's session of chat %s: %v", id, err)
	}
	var s struct {
		History []struct {
			User string `json:"user"`
		} `json:"history"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range s.History {
		out = append(out, h.User)
	}
	return out
}
