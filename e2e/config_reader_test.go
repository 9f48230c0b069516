package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/acp"
	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/internal/testharness/sshd"
	sdk "github.com/coder/acp-go-sdk"
)

// TestE2EConfigOneReader: with the TUI, a door client and the server all
// running, a harness and a host are added to the config file. At once,
// and from each: `prompt` runs a turn on a chat of the new harness, the
// door opens sessions on it (a client naming it at initialize, and a new
// `acp --harness NAME`), the TUI's handoff chooser lists it installed, its
// new-chat dialog offers it first (it is the new default) and a chat made
// there takes a prompt, and the new host heads its group in the sidebar
// without a restart. A bad edit then changes nothing anywhere: the TUI
// says why on its status line, `acp` and `prompt` on stderr, and every one
// of them goes on with the last good config.
func TestE2EConfigOneReader(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	fake := buildACPFake(t)
	acpTable := func(name string) string {
		return fmt.Sprintf("[harness.%s]\ncommand = %q\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = %q }\n", name, fake, c.dir("state-"+name))
	}
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(c.config, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := "default_harness = \"shell\"\n" + acpTable("fake")
	write(before)
	c.chat("new", "--harness", "shell", "--name", "first", "--json")

	s := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("q quit", "first")
	v := acpschema.ForTest(t)
	// A door client is connected before the edit and initializes after it,
	// naming the new harness (what `acp --harness` puts in initialize).
	early := c.openDoor(t, v)

	// The edit: a harness, made the default, and a host that does not
	// answer (ssh is not on the test's PATH).
	after := "default_harness = \"added\"\n" + acpTable("fake") + acpTable("added") + "[host.far]\nssh = \"far.invalid\"\n"
	write(after)

	// prompt: a chat of the new harness made by `new` (which writes the
	// chat file itself) takes a turn.
	cliChat := c.chat("new", "--harness", "added", "--name", "by-cli", "--json")
	if r := c.run("prompt", cliChat.ID, "from prompt"); r.code != 0 || r.stdout != "echo: from prompt\n" {
		t.Fatalf("prompt on a chat of the harness just added: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	// The door: initialize naming the new harness, then a session on it.
	if _, err := early.Initialize(doorCtx(t), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber,
		Meta: map[string]any{acp.MetaHarness: "added"}}); err != nil {
		t.Fatalf("initialize naming the harness just added: %v\nstderr: %s", err, early.stderr.String())
	}
	doorPrompt(t, c, early, "from the early door")
	// A door started now with --harness names it too.
	late := c.openDoor(t, v, "--harness", "added")
	late.initialize(t)
	doorPrompt(t, c, late, "from the late door")

	// The TUI: the new host heads its group, with no key pressed.
	s.waitText("▾ far", "▾ local")
	// The handoff chooser lists the new harness, installed.
	s.keys("h")
	s.waitFor("the handoff chooser to list added, installed", func(scr string) bool {
		return strings.Contains(scr, "hand first off to") && regexp.MustCompile(`added\s+acp · ✓ installed`).MatchString(scr)
	})
	s.keys("Escape")
	s.waitFor("the handoff chooser to close", func(scr string) bool { return !strings.Contains(scr, "hand first off to") })
	// The new-chat dialog offers it first (the new default), and the chat
	// made there takes a prompt.
	tuiPrompt(t, s, "made in the tui")

	// A bad edit (line 7: the added harness's kind).
	write(strings.Replace(after, "[harness.added]\n", "[harness.added]\nkind = \"robot\"\n", 1))
	s.waitText("config refused: line 7: harness.added.kind")
	// Everything goes on with the last good config.
	if r := c.run("prompt", cliChat.ID, "after the bad edit"); r.code != 0 || r.stdout != "echo: after the bad edit\n" ||
		!strings.Contains(r.stderr, "harness.added.kind") || !strings.Contains(r.stderr, "the last good config stays in effect") {
		t.Fatalf("prompt after a bad edit: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	doorPrompt(t, c, early, "early, after the bad edit")
	again := c.openDoor(t, v, "--harness", "added")
	again.initialize(t)
	doorPrompt(t, c, again, "a new door, after the bad edit")
	if !strings.Contains(again.stderr.String(), "harness.added.kind") {
		t.Errorf("acp after a bad edit did not say why the config was refused: stderr %q", again.stderr.String())
	}
	s.waitText("▾ far")
	tuiPrompt(t, s, "tui, after the bad edit")
	s.quit()
}

// doorPrompt opens a session on a door and runs one turn in it.
func doorPrompt(t *testing.T, c *cli, d *door, text string) {
	t.Helper()
	resp, err := d.NewSession(doorCtx(t), sdk.NewSessionRequest{Cwd: c.dir("proj"), McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v\nstderr: %s", err, d.stderr.String())
	}
	id := string(resp.SessionId)
	if _, err := d.Prompt(doorCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}}); err != nil {
		t.Fatalf("session/prompt: %v\nstderr: %s", err, d.stderr.String())
	}
	if got := d.Text(id, "agent"); !strings.Contains(got, "echo: "+text) {
		t.Fatalf("the door's turn: agent said %q, want the echo of %q", got, text)
	}
	if chat := loadChat(t, c, id); chat.Harness != "added" {
		t.Fatalf("the door's chat runs %q, want the harness just added", chat.Harness)
	}
}

// tuiPrompt makes a chat of the default harness ("added") in the TUI's
// new-chat dialog and sends it a prompt.
func tuiPrompt(t *testing.T, s *tmuxSession, text string) {
	t.Helper()
	s.keys("n")
	s.waitText("new chat", "‹ added ›")
	s.keys("C-s")
	s.waitText("Write a prompt", "harness  added · acp", "· ctrl+] leaves")
	s.text(text)
	s.keys("Enter")
	s.waitText("echo: " + text)
	s.keys("C-]")
	s.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "· ctrl+] leaves") })
}

// TestE2EConfigHostAddedWhileTUIRuns: a [host.NAME] added to the config
// while the TUI runs is dialled at once, behind the real sshd: it heads its
// chats in the sidebar, with no restart. A bad edit keeps it; taking it out
// of the config takes it and its chats out of the sidebar.
func TestE2EConfigHostAddedWhileTUIRuns(t *testing.T) {
	needTmux(t)
	r := newHostRig(t)
	host := fmt.Sprintf("[host.test]\nssh = %q\nssh_options = [\"-F\", %q]\nhome = %q\ncommand = %q\n",
		sshd.Alias, r.sshd.Config, r.remoteHome, r.command)
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(r.config, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A chat over there, made while the config names the host.
	write("default_harness = \"shell\"\n" + host)
	r.chat("new", "--host", "test", "--name", "far-away", "--json")
	write("default_harness = \"shell\"\n")
	r.chat("new", "--name", "here", "--json")

	s := startTmux(t, 160, 45, append(r.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("q quit", "here")
	if scr := s.screen(); strings.Contains(scr, "far-away") || strings.Contains(scr, "▾ local") {
		t.Fatalf("before the host is configured, the sidebar shows it:\n%s", scr)
	}

	write("default_harness = \"shell\"\n" + host)
	s.waitFor("the added host up, heading its chat", func(scr string) bool {
		return strings.Contains(scr, "▾ local") && strings.Contains(scr, "▾ test") && strings.Contains(scr, "far-away") &&
			!strings.Contains(scr, "▾ test · down")
	})

	// A bad edit keeps the host.
	write("default_harness = \"shell\"\n" + host + "budget = 1\n")
	s.waitText("config refused: line 7: host.test.budget")
	if scr := s.screen(); !strings.Contains(scr, "▾ test") || !strings.Contains(scr, "far-away") {
		t.Fatalf("a bad edit took the host out of the sidebar:\n%s", scr)
	}

	// Taken out of the config, it goes.
	write("default_harness = \"shell\"\n")
	s.waitFor("the host and its chat to leave the sidebar", func(scr string) bool {
		return !strings.Contains(scr, "▾ test") && !strings.Contains(scr, "far-away") && strings.Contains(scr, "here")
	})
	if m, _ := filepath.Glob(filepath.Join(r.remoteHome, "chats", "*.toml")); len(m) != 1 {
		t.Fatalf("the chat over there: %v, want it kept", m)
	}
	s.quit()
}
