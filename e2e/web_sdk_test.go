package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// webSDK returns node and the installed peers' folder (.peers) holding the
// ACP SDK, or skips (fails under ACPMUX_REQUIRE_PEERS=1) when they are
// absent.
func webSDK(t *testing.T) (node, peers string) {
	t.Helper()
	peers = filepath.Join(moduleRoot, ".peers")
	ws := filepath.Join(peers, "node_modules", "@agentclientprotocol", "sdk", "dist", "transports", "ws-stream.js")
	if _, err := os.Stat(ws); err != nil {
		acpschema.SkipUnlessPeers(t, "the ACP SDK's WebSocket stream is not installed in .peers/ (scripts/test installs @agentclientprotocol/sdk@2.4.0)")
	}
	var err error
	if node, err = exec.LookPath("node"); err != nil {
		acpschema.SkipUnlessPeers(t, "the ACP SDK is installed, but node is not on PATH")
	}
	return node, peers
}

// webSDKResult is the line web-acp-client.mjs prints.
type webSDKResult struct {
	SessionID     string   `json:"sessionId"`
	Reply         string   `json:"reply"`
	ReplayedUser  []string `json:"replayedUser"`
	ReplayedAgent []string `json:"replayedAgent"`
}

// TestWebDoorDrivenByTheACPSDK: a real ACP client, the pinned TypeScript
// SDK's client app on its own WebSocket stream, signs in to the web door
// with the token as a bearer header (from its environment, not its
// command line), makes a session in a folder inside the web roots, prompts
// the fake agent and gets its reply; `ls` shows the chat with that folder
// and origin acp; a second connection loads the session and gets the
// conversation replayed.
func TestWebDoorDrivenByTheACPSDK(t *testing.T) {
	node, peers := webSDK(t)
	c := doorCLI(t)
	root := c.dir("projects")
	proj := c.dir("projects/proj")
	cfg, err := os.ReadFile(c.config)
	if err != nil {
		t.Fatal(err)
	}
	cfg = fmt.Appendf([]byte("default_acp_harness = \"fake\"\n"), "%s[web]\nroots = [%q]\n", cfg, root)
	if err := os.WriteFile(c.config, cfg, 0o644); err != nil {
		t.Fatal(err)
	}

	var w webOpened
	out := c.ok("web", "--json", "--listen", "127.0.0.1:0")
	if err := json.Unmarshal([]byte(out), &w); err != nil {
		t.Fatalf("web --json: %v\n%s", err, out)
	}
	if w.TokenFile != filepath.Join(c.home, proto.WebTokenName) || !slices.Contains(w.Roots, root) {
		t.Fatalf("web --json printed %+v, want the token file in the agent home and the root %s", w, root)
	}
	b, err := os.ReadFile(w.TokenFile)
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(b))
	if token == "" || !strings.HasSuffix(w.URL, "#token="+token) {
		t.Fatalf("web --json printed the url %q; the token file holds %q", w.URL, token)
	}

	ctx, cancel := context.WithTimeout(context.Background(), doorHang)
	defer cancel()
	script := filepath.Join(moduleRoot, "e2e", "testdata", "web-acp-client.mjs")
	cmd := exec.CommandContext(ctx, node, "--experimental-websocket", script, peers, "ws://"+w.Listen+"/acp", proj)
	cmd.Env = append(c.env(), "PATH="+filepath.Join(c.root, "bin")+":"+filepath.Dir(node), "ACPMUX_WEB_TOKEN="+token)
	cmd.Dir = proj
	for _, a := range cmd.Args {
		if strings.Contains(a, token) {
			t.Fatalf("the token is on the client's command line: %q", cmd.Args)
		}
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the web ACP client did not end within %v\nstdout: %s\nstderr: %s", doorHang, stdout.String(), stderr.String())
	}
	if err != nil {
		t.Fatalf("the web ACP client: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	var got webSDKResult
	if err := json.Unmarshal([]byte(strings.TrimSpace(stdout.String())), &got); err != nil {
		t.Fatalf("the web ACP client printed %q: %v\nstderr: %s", stdout.String(), err, stderr.String())
	}

	var chat proto.ChatJSON
	for _, ch := range c.ls() {
		if ch.ID == got.SessionID {
			chat = ch
		}
	}
	if chat.ID == "" || chat.Origin != sessions.OriginACP || chat.Cwd != proj || chat.Harness != "fake" {
		t.Fatalf("the web client's session %q is the chat %+v, want one in %s on fake with origin acp", got.SessionID, chat, proj)
	}
	if got.Reply != "echo: hello" {
		t.Fatalf("the reply over the web door: %q, want %q", got.Reply, "echo: hello")
	}
	if len(got.ReplayedUser) == 0 || got.ReplayedUser[0] != "hello" || len(got.ReplayedAgent) == 0 || got.ReplayedAgent[0] != "echo: hello" {
		t.Fatalf("session/load over the web door replayed user %q, agent %q", got.ReplayedUser, got.ReplayedAgent)
	}
}
