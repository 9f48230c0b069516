package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
)

// signInCLI is a cli whose "fake" harness is the fake ACP agent wanting a
// sign-in of kind (ACPMUX_FAKE_AUTH), with env added to the harness's.
func signInCLI(t *testing.T, kind string, env map[string]string) *cli {
	t.Helper()
	c := newCLI(t)
	c.writeSignInConfig(buildACPFake(t), kind, env)
	return c
}

// writeSignInConfig writes the config of signInCLI, the fake at fake.
func (c *cli) writeSignInConfig(fake, kind string, env map[string]string) {
	c.t.Helper()
	var extra strings.Builder
	for k, v := range env {
		fmt.Fprintf(&extra, ", %s = %q", k, v)
	}
	config := fmt.Sprintf("[harness.fake]\ncommand = %q\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_AUTH = %q%s }\n",
		fake, kind, extra.String())
	if err := os.WriteFile(c.config, []byte(config), 0o644); err != nil {
		c.t.Fatal(err)
	}
}

// failsWantingSignIn prompts a new fake chat, which fails wanting a
// sign-in, and returns it and the offers show --json lists.
func (c *cli) failsWantingSignIn() (string, []proto.SignIn) {
	c.t.Helper()
	id := c.chat("new", "--harness", "fake", "--json").ID
	r := c.run("prompt", id, "hello")
	if r.code == 0 || !strings.Contains(r.stderr, "log in") || !strings.Contains(r.stderr, "sign-in "+id) {
		c.t.Fatalf("prompt to a chat wanting a sign-in exited %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	j := c.chat("show", id, "--json")
	if j.Status != "failed" || len(j.SignIn) == 0 {
		c.t.Fatalf("show --json: status %q, signIn %+v", j.Status, j.SignIn)
	}
	return id, j.SignIn
}

// promptWorks checks that a prompt to chat id gets the fake's echo.
func (c *cli) promptWorks(id string) {
	c.t.Helper()
	if out := c.ok("prompt", id, "hi"); !strings.Contains(out, "echo: hi") {
		c.t.Fatalf("prompt after the sign-in printed %q", out)
	}
	if j := c.chat("show", id, "--json"); j.SignIn != nil {
		c.t.Fatalf("show still offers a sign-in: %+v", j.SignIn)
	}
}

// TestCLISignInEnvVar: show names the env method's variable and where to
// set it (the harness's env in the config file); sign-in prints the same
// and changes nothing; once the variable is in the config, the chat signs
// in by itself at its next start.
func TestCLISignInEnvVar(t *testing.T) {
	c := signInCLI(t, "env", nil)
	id, offers := c.failsWantingSignIn()
	if len(offers) != 1 || offers[0].Kind != proto.SignInEnv || !slices.Equal(offers[0].Vars, []string{"ACPMUX_FAKE_KEY"}) {
		t.Fatalf("offers %+v", offers)
	}
	where := "set ACPMUX_FAKE_KEY in the env of [harness.fake] in " + c.config
	if out := c.ok("show", id); !strings.Contains(out, "fake-key: Log in: set ACPMUX_FAKE_KEY") || !strings.Contains(out, where) {
		t.Fatalf("show lists no env offer with %q:\n%s", where, out)
	}
	if out := c.ok("sign-in", id); !strings.Contains(out, where) {
		t.Fatalf("sign-in printed %q, want %q", out, where)
	}
	c.writeSignInConfig(buildACPFake(t), "env", map[string]string{"ACPMUX_FAKE_KEY": "k-1"})
	c.ok("harnesses") // the server reads its config file again
	c.promptWorks(id)
}

// TestCLISignInAgent: sign-in with the agent method restarts the chat,
// which calls authenticate, and prompts work.
func TestCLISignInAgent(t *testing.T) {
	c := signInCLI(t, "agent", nil)
	id, offers := c.failsWantingSignIn()
	if len(offers) != 1 || offers[0].Kind != proto.SignInAgent || offers[0].ID != "fake-login" {
		t.Fatalf("offers %+v", offers)
	}
	if r := c.run("sign-in", id, "no-such-method"); r.code != 2 || !strings.Contains(r.stderr, "no sign-in method") {
		t.Fatalf("sign-in with an unknown method exited %d: %s", r.code, r.stderr)
	}
	var res proto.SignInResult
	if err := json.Unmarshal([]byte(c.ok("sign-in", id, "fake-login", "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if res.Method.ID != "fake-login" || res.Terminal != "" {
		t.Fatalf("sign-in answered %+v", res)
	}
	c.promptWorks(id)
}

// TestCLISignInTerminal: sign-in with the terminal method prints the
// terminal chat it made, which runs the harness's command with the
// method's arguments in the chat's folder; when it ends the ACP chat
// starts again and works.
func TestCLISignInTerminal(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "marker")
	c := signInCLI(t, "terminal", map[string]string{"ACPMUX_FAKE_AUTH_MARKER": marker})
	id, offers := c.failsWantingSignIn()
	if len(offers) != 1 || offers[0].Kind != proto.SignInTerminal || offers[0].ID != "fake-terminal" {
		t.Fatalf("offers %+v", offers)
	}
	lines := strings.Split(strings.TrimSpace(c.ok("sign-in", id)), "\n")
	term := lines[len(lines)-1]
	if !strings.Contains(lines[0], "--fake-login") || term == id {
		t.Fatalf("sign-in printed %q", lines)
	}
	wait.Until(t, "the sign-in terminal chat "+term+" to exit", func() bool {
		return c.chat("show", term, "--json").Status == "exited"
	})
	if b, _ := os.ReadFile(marker); string(b) != "terminal" {
		t.Fatalf("the login wrote %q", b)
	}
	wait.Until(t, "chat "+id+" to start again", func() bool { return c.chat("show", id, "--json").Status == "waiting" })
	c.promptWorks(id)
}

// TestCLISignInHostileMethod: a method's hostile name and description
// (escapes, bidi, controls) reach show clean.
func TestCLISignInHostileMethod(t *testing.T) {
	c := signInCLI(t, "agent", map[string]string{"ACPMUX_FAKE_AUTH_NAME": `\x1b]0;pwned\x07Sign\u202e in\x1b[2J\r\nnow`})
	id, offers := c.failsWantingSignIn()
	out := c.ok("show", id)
	jsonOut := c.ok("show", id, "--json")
	for _, s := range []string{offers[0].Name, offers[0].Description, out, jsonOut} {
		if strings.ContainsAny(s, "\x1b\x07\r\u202e") || strings.Contains(s, `\u001b`) || strings.Contains(s, `\u202e`) {
			t.Fatalf("a hostile method name reached the user: %q", s)
		}
	}
	if !strings.Contains(out, "Sign") || !strings.Contains(out, "now") {
		t.Fatalf("show lost the method's name:\n%s", out)
	}
}

// TestE2ESignInInTheTUI: the real binary in tmux, an ACP chat of the fake
// agent wanting a sign-in by an agent method: once it has failed, the
// summary lists the offer with its key; A opens the dialog, enter signs
// in, and the chat then answers a prompt.
func TestE2ESignInInTheTUI(t *testing.T) {
	needTmux(t)
	c := signInCLI(t, "agent", nil)
	chat := c.chat("new", "--harness", "fake", "--name", "locked", "--json")
	s := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("locked", "q quit")
	s.keys("Enter")
	s.waitText("log in first")
	s.keys("C-]")
	s.waitText("sign in  A: Log in: the agent signs in (authenticate)")
	s.keys("A")
	s.waitText("sign in · locked", "› Log in: the agent signs in")
	s.keys("Enter")
	s.waitText("starts again and signs in with fake-login")
	c.promptWorks(chat.ID)
}
