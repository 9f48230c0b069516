package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EHostileFieldsNeverReachTheTerminal: an ACP agent that answers
// session/new with "../../../outside/stolen" and an OSC 0 that would set
// the window title, and a chat file written by hand with the same OSC in
// its cwd and a folder and a hostile agent_session_id. `prompt` and `show`
// print the refusal with the escape quoted; the TUI, in a real terminal
// (tmux), shows the chats and the refusal, and tmux never sees the OSC: the
// pane's title stays its own.
func TestE2EHostileFieldsNeverReachTheTerminal(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	state := c.dir("agent-state")
	cfg := "[harness.fake]\ncommand = \"" + buildACPFake(t) + "\"\ntransport = \"acp\"\n" +
		"env = { ACPMUX_FAKE_STATE = \"" + state + "\", ACPMUX_FAKE_SESSION_ID = \"../../../outside/stolen\\u001b]0;PWNED\\u0007\" }\n"
	if err := os.WriteFile(c.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	id := c.chat("new", "--harness", "fake", "--name", "hostile agent", "--json").ID

	r := c.run("prompt", id, "hello")
	if r.code == 0 {
		t.Fatalf("prompt went through on a refused session id:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, `agent answered with an unusable session id "../../../outside/stolen\x1b]0;PWNED\a"`) {
		t.Errorf("prompt's error does not show the refusal: %q", r.stderr)
	}
	for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "show": c.ok("show", id), "ls": c.ok("ls")} {
		if ctl := firstControl(out); ctl != "" {
			t.Errorf("%s carries control %q: %q", name, ctl, out)
		}
	}
	if j := c.chat("show", id, "--json"); j.AgentSessionID != "" {
		t.Errorf("the chat stored agent session id %q", j.AgentSessionID)
	}
	if _, err := os.Stat(filepath.Join(c.root, "outside")); !os.IsNotExist(err) {
		t.Errorf("a folder was made from the session id: %v", err)
	}

	chats := filepath.Join(c.home, "chats")
	files := map[string]string{
		"handmade": "version = 1\nid = \"handmade\"\nname = \"handmade\"\nharness = \"shell\"\n" +
			"cwd = \"/tmp/x\\u001b]0;PWNED\\u0007y\"\nadditional_directories = [\"/tmp/f\\u001b]0;PWNED\\u0007g\"]\n" +
			"created = 2026-01-01T00:00:00Z\n",
		"stolen": "version = 1\nid = \"stolen\"\nname = \"stolen\"\nharness = \"fake\"\ncwd = \"/tmp\"\n" +
			"agent_session_id = \"../../../outside/stolen\\u001b]0;PWNED\\u0007\"\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(chats, name+".toml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	s := startTmux(t, 160, 40, append(c.env(), "TERM=xterm-256color"), []string{binary})
	title := func() string {
		return strings.TrimSpace(s.tmux("display-message", "-p", "-t", "e2e", "#{pane_title}"))
	}
	// The list is in creation order, the broken file last. Each chat in
	// turn: its summary, with the failed start of the hostile agent's chat.
	selected := func(name string, texts ...string) func(string) bool {
		return func(scr string) bool {
			for _, l := range strings.Split(scr, "\n") {
				if strings.Contains(l, "▌") && !strings.Contains(l, name) {
					return false
				}
			}
			for _, text := range texts {
				if !strings.Contains(scr, text) {
					return false
				}
			}
			return true
		}
	}
	s.waitFor("the hand-made chat's summary, its escapes gone", selected("handmade", "hostile agent", "stolen (broken file)", "cwd      /tmp/xy", "/tmp/fg"))
	before := title() // the TUI's own
	s.keys("j")
	s.waitFor("the hostile agent's chat selected", selected("hostile agent", "hostile agent  "+id))
	s.keys("r") // start it: the refusal shows in the summary
	s.waitFor("the refusal in the summary", selected("hostile agent", `error    session/new: agent answered with an unusable session id "../../../outside/stolen\x1b]0;PWNED\a"`))
	s.keys("j")
	s.waitFor("the broken chat's reason", selected("stolen", `agent_session_id "../../../outside/stolen\x1b]0;PWNED\a" has a character`))
	if got := title(); got != before || strings.Contains(got, "PWNED") {
		t.Errorf("the pane's title is %q (the TUI set %q): an OSC from a chat reached the terminal", got, before)
	}
	s.keys("q")
	s.waitFor("the TUI to exit", func(string) bool {
		return exec.Command("tmux", "-S", s.sock, "has-session", "-t", "e2e").Run() != nil
	})
}
