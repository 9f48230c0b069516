package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
)

// End-to-end runs of the real binary with the real Claude Code, which
// cannot reach its service here and says so before it exits 1: what it
// printed must be on the chat's screen after each crash and once the chat
// has failed, and the summary's error line quotes the line that says why.

// realClaudeCode returns the command (and the arguments before ours) that
// runs the real Claude Code CLI installed by scripts/test in .peers/: the
// native binary the Agent SDK ships for this platform, or a cli.js run
// with node. It skips (fails under ACPMUX_REQUIRE_PEERS=1) when neither is
// there.
func realClaudeCode(t *testing.T) (string, []string) {
	t.Helper()
	mods := filepath.Join(moduleRoot, ".peers", "node_modules", "@anthropic-ai")
	native, _ := filepath.Glob(filepath.Join(mods, "claude-agent-sdk-*", "claude"))
	for _, bin := range native {
		if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return bin, nil
		}
	}
	for _, js := range []string{filepath.Join(mods, "claude-agent-sdk", "cli.js"), filepath.Join(mods, "claude-code", "cli.js")} {
		if _, err := os.Stat(js); err == nil {
			node, err := exec.LookPath("node")
			if err != nil {
				acpschema.SkipUnlessPeers(t, "the real Claude Code is "+js+", but node is not on PATH")
			}
			return node, []string{js}
		}
	}
	acpschema.SkipUnlessPeers(t, "the real Claude Code is not installed in .peers/ (scripts/test installs @agentclientprotocol/claude-agent-acp, which brings it)")
	return "", nil
}

// closedPort returns a local TCP address nothing listens on now: a proxy
// there refuses every connection, so Claude Code meets its offline error
// whether or not the machine has a network; a [web] listen there is free.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// summaryValue returns what the summary's row with label says, as plain
// text with the blanks around it trimmed.
func summaryValue(scr, label string) string {
	for _, l := range strings.Split(scr, "\n") {
		if i := strings.Index(l, "│ "+label+" "); i >= 0 {
			rest, _, _ := strings.Cut(l[i+len("│ "+label):], "│")
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// TestE2ERealClaudeCodeOfflineShowsWhy: the real Claude Code, offline,
// prints its welcome and "Unable to connect to Anthropic services", and
// exits 1. The chat pane shows those lines after the first crash, above
// the divider of the respawn that follows; once the crashes pass the limit
// and the chat is "failed" the last run's lines are on screen, the
// summary's error line quotes the line that says why (its connection
// error, not the link it prints last), and `show` gives that reason, the
// command it was started with and its exit as rows.
func TestE2ERealClaudeCodeOfflineShowsWhy(t *testing.T) {
	needTmux(t)
	command, args := realClaudeCode(t)
	c := newCLI(t)
	proxy := "http://" + closedPort(t)
	cfg := fmt.Sprintf("[harness.claude]\ncommand = %q\nargs = %s\nenv = { IS_SANDBOX = \"1\", HTTPS_PROXY = %q, HTTP_PROXY = %q, DISABLE_AUTOUPDATER = \"1\" }\n",
		command, tomlStrings(args), proxy, proxy)
	if err := os.WriteFile(c.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	const why = "Unable to connect to Anthropic services"
	s := startTmux(t, 120, 50, append(c.env(), "TERM=xterm-256color", "CI=true"), []string{binary, "--harness", "claude"})

	// The first crash: its lines stay on screen, and the respawn's divider
	// comes below them.
	scr := s.waitFor("Claude Code's offline error above a respawn divider", func(scr string) bool {
		i, d := strings.Index(scr, why), strings.Index(scr, "── respawned ")
		return i >= 0 && d > i
	})
	if !strings.Contains(scr, "Welcome to Claude Code") || !strings.Contains(scr, "Failed to connect to api.anthropic.com") {
		t.Fatalf("after the first crash the screen lacks Claude Code's welcome or its reason:\n%s", scr)
	}

	// Crashes past the limit: the chat fails, and says why.
	scr = s.waitText("✗ failed")
	last := strings.LastIndex(scr, "── respawned ")
	if last < 0 || !strings.Contains(scr[last:], why) || !strings.Contains(scr[last:], "Failed to connect to api.anthropic.com") {
		t.Fatalf("the failed chat's screen does not show the last run's error below its divider:\n%s", scr)
	}
	errLine := summaryValue(scr, "error")
	if !strings.HasPrefix(errLine, `"Failed to connect to api.anthropic.com`) || strings.Contains(errLine, "supported-countries") {
		t.Fatalf("the summary's error line %q does not quote Claude Code's connection error; the screen:\n%s", errLine, scr)
	}
	id := only(t, c).ID
	j := c.chat("show", id, "--json")
	if j.Status != "failed" || j.Failure == nil || !strings.HasPrefix(j.Failure.Said, "Failed to connect to api.anthropic.com") ||
		len(j.Failure.Command) == 0 || j.Failure.Command[0] != command || j.Failure.Exit != "exit status 1" {
		t.Fatalf("show --json of the failed chat: status %q, failure %+v", j.Status, j.Failure)
	}
	shown := c.ok("show", id)
	for _, want := range []string{`reason +"Failed to connect to api\.anthropic\.com`, `command +` + regexp.QuoteMeta(command) + ` `, `exit +exit status 1`} {
		if !regexp.MustCompile(`(?m)^` + want).MatchString(shown) {
			t.Fatalf("show of the failed chat lacks the row %q:\n%s", want, shown)
		}
	}
	s.keys("C-]")
	s.waitFor("the chat pane to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to claude") })
	s.quit()
}

// tomlStrings writes strs as a TOML array of strings.
func tomlStrings(strs []string) string {
	q := make([]string, len(strs))
	for i, s := range strs {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
