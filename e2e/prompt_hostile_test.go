package e2e

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// firstControl returns the first control character in s but newline and tab
// (C0, DEL, C1, or a byte that is not UTF-8), or "" when there is none.
func firstControl(s string) string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return s[i : i+1]
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			return string(r)
		}
		i += size
	}
	return ""
}

// promptCLI is a CLI world whose "fake" harness is the fake ACP agent.
func promptCLI(t *testing.T) (*cli, string) {
	t.Helper()
	c := newCLI(t)
	state := c.dir("agent-state")
	config := "[harness.fake]\ncommand = \"" + buildACPFake(t) + "\"\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = \"" + state + "\" }\n"
	if err := os.WriteFile(c.config, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return c, c.chat("new", "--harness", "fake", "--json").ID
}

func TestCLIPromptPrintsNoControlSequences(t *testing.T) {
	c, id := promptCLI(t)
	r := c.run("prompt", id, "osc")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
	}
	for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		if ctl := firstControl(out); ctl != "" {
			t.Errorf("%s carries control %q: %q", name, ctl, out)
		}
	}
	for _, want := range []string{"before ", " middle ", " after\n", "osc: reject_once\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout %q lost %q", r.stdout, want)
		}
	}
	for _, want := range []string{
		"acpmux-tui: refused permission for Edit main.go second line\n",
		"agent: acpfake: osc on stderr",
		"agent: acpfake: session/prompt",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q lacks %q", r.stderr, want)
		}
	}
}

func TestCLIPromptShowsEveryRefusalOfConcurrentPermissions(t *testing.T) {
	c, id := promptCLI(t)
	r := c.run("prompt", id, "perms 5")
	want := "perms: Tool 1=reject_once; Tool 2=reject_once; Tool 3=reject_once; Tool 4=reject_once; Tool 5=reject_once\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(r.stderr, "acpmux-tui: refused permission for Tool "); n != 5 {
		t.Fatalf("%d refusals printed, want 5:\n%s", n, r.stderr)
	}
}
