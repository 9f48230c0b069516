package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// optionsCLI is a cli whose "fake" harness is the fake ACP agent with its
// modes and "model" option, and the mode and model it refuses
// (ACPMUX_FAKE_REFUSE), keeping its sessions in the folder it returns.
func optionsCLI(t *testing.T) (*cli, string) {
	t.Helper()
	c := newCLI(t)
	state := c.dir("state")
	config := fmt.Sprintf("[harness.fake]\ncommand = %q\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = %q, ACPMUX_FAKE_MODES = \"1\", ACPMUX_FAKE_REFUSE = \"1\" }\n",
		buildACPFake(t), state)
	if err := os.WriteFile(c.config, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return c, state
}

// fakeSession is the fake agent's own record of a chat's session: its mode
// and model as the agent set them.
func fakeSession(t *testing.T, c *cli, state, id string) (mode, model string) {
	t.Helper()
	sid := c.chat("show", id, "--json").AgentSessionID
	b, err := os.ReadFile(filepath.Join(state, sid+".json"))
	if err != nil {
		t.Fatalf("the fake's record of chat %s (session %q): %v", id, sid, err)
	}
	var s struct{ Mode, Model string }
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s.Mode, s.Model
}

// TestCLISetModeAndModel: `set ID` starts a stopped ACP chat and lists its
// mode and options, the current values marked; `set ID OPTION VALUE`
// changes the mode and the model through the agent (its own record says
// so), matching ids and names without regard to case; an unknown option
// or value exits 2 naming the choices; the agent's refusal exits 1 with
// its message, cleaned, and changes nothing; a terminal chat is refused.
func TestCLISetModeAndModel(t *testing.T) {
	c, state := optionsCLI(t)
	chat := c.chat("new", "--harness", "fake", "--json")

	out := c.ok("set", chat.ID)
	for _, want := range []string{"Mode (mode): Ask\n", "  * ask   Ask · Asks before it edits\n", "    code  Code\n", "Model (model): Fast\n", "  * fast   Fast\n", "    slow   Slow\n"} {
		if !strings.Contains(out, want) {
			t.Fatalf("set %s lists no %q:\n%s", chat.ID, want, out)
		}
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Fatalf("set %s printed an escape of the agent's: %q", chat.ID, out)
	}

	if out := c.ok("set", chat.ID, "MODE", "code"); out != "Mode: Code\n" {
		t.Fatalf("set mode printed %q", out)
	}
	if out := c.ok("set", chat.ID, "Model", "SMART"); out != "Model: Smart\n" {
		t.Fatalf("set model printed %q", out)
	}
	if mode, model := fakeSession(t, c, state, chat.ID); mode != "code" || model != "smart" {
		t.Fatalf("the fake's record: mode %q model %q, want code and smart", mode, model)
	}
	var j struct {
		ID      string             `json:"id"`
		Running bool               `json:"running"`
		Options []proto.ChatOption `json:"options"`
	}
	if err := json.Unmarshal([]byte(c.ok("set", chat.ID, "mode", "Ask", "--json")), &j); err != nil {
		t.Fatal(err)
	}
	if j.ID != chat.ID || !j.Running || len(j.Options) != 2 || j.Options[0].Current != "ask" || j.Options[1].Current != "smart" || len(j.Options[1].Values) != 3 {
		t.Fatalf("set --json: %+v", j)
	}

	// Unknown: exit 2, naming the choices; nothing reaches the agent.
	r := c.run("set", chat.ID, "model", "huge")
	if r.code != 2 || !strings.Contains(r.stderr, `no value "huge"`) || !strings.Contains(r.stderr, "its values are fast, smart, slow") {
		t.Fatalf("an unknown value: exit %d\n%s", r.code, r.stderr)
	}
	r = c.run("set", chat.ID, "colour", "red")
	if r.code != 2 || !strings.Contains(r.stderr, `no option "colour": the options are mode, model`) {
		t.Fatalf("an unknown option: exit %d\n%s", r.code, r.stderr)
	}

	// The agent refuses: exit 1 with its message, cleaned.
	r = c.run("set", chat.ID, "model", "slow")
	if r.code != 1 || !strings.Contains(r.stderr, "slow is not on your plan") || strings.Contains(r.stderr, "pwned") || strings.ContainsAny(r.stderr, "\x1b\x07") {
		t.Fatalf("a refused model: exit %d\n%q", r.code, r.stderr)
	}
	r = c.run("set", chat.ID, "mode", "yolo")
	if r.code != 1 || !strings.Contains(r.stderr, "yolo mode is off by policy") || strings.ContainsAny(r.stderr, "\x1b") {
		t.Fatalf("a refused mode: exit %d\n%q", r.code, r.stderr)
	}
	if mode, model := fakeSession(t, c, state, chat.ID); mode != "ask" || model != "smart" {
		t.Fatalf("the fake's record after its refusals: mode %q model %q, want ask and smart", mode, model)
	}

	// A chat stopped (the server gone) is started again, its session
	// loaded with the mode and model it had.
	c.ok("kill-server")
	if out := c.ok("set", chat.ID, "model", "fast"); out != "Model: Fast\n" {
		t.Fatalf("set on a stopped chat printed %q", out)
	}
	if mode, model := fakeSession(t, c, state, chat.ID); mode != "ask" || model != "fast" {
		t.Fatalf("the fake's record after a restart: mode %q model %q", mode, model)
	}

	shell := c.chat("new", "--harness", "shell", "--json")
	r = c.run("set", shell.ID, "mode", "code")
	if r.code != 2 || !strings.Contains(r.stderr, "does not speak ACP") {
		t.Fatalf("set on a terminal chat: exit %d\n%s", r.code, r.stderr)
	}
}

// TestE2EOptionsChooserInTheTUI: the real binary in tmux, an ACP chat of
// the fake agent: once started, the summary shows its mode and model; o
// opens the chooser, which sets the mode and the model through the agent
// (its own record says so, the summary shows the new values) and shows
// the agent's refusal of a model, cleaned, in the box.
func TestE2EOptionsChooserInTheTUI(t *testing.T) {
	needTmux(t)
	c, state := optionsCLI(t)
	chat := c.chat("new", "--harness", "fake", "--name", "modal", "--json")
	s := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("modal", "q quit")
	s.keys("Enter")
	s.waitText("Write a prompt")
	s.keys("C-]")
	s.waitText("mode     Ask", "model    Fast")

	s.keys("o")
	s.waitText("mode and options", "● Ask", "○ Code", "● Fast", "○ Slow")
	s.keys("Down", "Enter")
	s.waitText("Mode is Code now", "mode     Code")

	s.keys("o")
	s.waitText("● Code")
	s.keys("Down", "Down", "Down", "Down", "Enter") // Yolo, Fast, Smart, Slow
	scr := s.waitText("slow is not on your plan")
	if strings.Contains(scr, "pwned") || !strings.Contains(scr, "mode and options") {
		t.Fatalf("the refusal on screen:\n%s", scr)
	}
	s.keys("Up", "Enter")
	s.waitText("Model is Smart now", "model    Smart", "mode     Code")
	if mode, model := fakeSession(t, c, state, chat.ID); mode != "code" || model != "smart" {
		t.Fatalf("the fake's record: mode %q model %q, want code and smart", mode, model)
	}
}

// TestHostSet: set --host lists and sets a host's ACP chat's mode and
// model through that host's server; its refusals exit as here (2 for an
// unknown value, 1 with the agent's message, cleaned).
func TestHostSet(t *testing.T) {
	r := newHostRig(t)
	state := r.dir("remote-agent-state")
	cfg := fmt.Sprintf("default_harness = \"shell\"\n[harness.fake]\ncommand = %q\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = %q, ACPMUX_FAKE_MODES = \"1\", ACPMUX_FAKE_REFUSE = \"1\" }\n", buildACPFake(t), state)
	if err := os.WriteFile(r.remoteConfig, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	chat := r.chat("new", "--host", "test", "--harness", "fake", "--json")
	if out := r.ok("set", chat.ID, "--host", "test"); !strings.Contains(out, "Mode (mode): Ask\n") || !strings.Contains(out, "    slow   Slow\n") {
		t.Fatalf("set --host lists:\n%s", out)
	}
	if out := r.ok("set", "--host", "test", chat.ID, "model", "smart"); out != "Model: Smart\n" {
		t.Fatalf("set --host printed %q", out)
	}
	if res := r.run("set", "--host", "test", chat.ID, "model", "huge"); res.code != 2 || !strings.Contains(res.stderr, "its values are fast, smart, slow") {
		t.Fatalf("an unknown value on the host: exit %d\n%s", res.code, res.stderr)
	}
	if res := r.run("set", "--host", "test", chat.ID, "mode", "yolo"); res.code != 1 || !strings.Contains(res.stderr, "yolo mode is off by policy") || strings.Contains(res.stderr, "\x1b") {
		t.Fatalf("a refusal on the host: exit %d\n%q", res.code, res.stderr)
	}
	var shown proto.ChatJSON
	if err := json.Unmarshal([]byte(r.ok("show", chat.ID, "--host", "test", "--json")), &shown); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(state, shown.AgentSessionID+".json"))
	var rec struct{ Model string }
	if err != nil || json.Unmarshal(b, &rec) != nil || rec.Model != "smart" {
		t.Fatalf("the host's fake agent's record (%v): %s", err, b)
	}
}
