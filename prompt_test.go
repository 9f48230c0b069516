package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	acpFakeOnce sync.Once
	acpFakeBin  string
	acpFakeErr  error
)

// buildACPFake builds the fake ACP agent once for the tests of this package.
func buildACPFake(t *testing.T) string {
	t.Helper()
	acpFakeOnce.Do(func() {
		acpFakeBin = filepath.Join(filepath.Dir(binary), "acpfake")
		out, err := exec.Command("go", "build", "-o", acpFakeBin, "./internal/testharness/acpfake").CombinedOutput()
		if err != nil {
			acpFakeErr = err
			t.Logf("%s", out)
		}
	})
	if acpFakeErr != nil {
		t.Fatalf("build acpfake: %v", acpFakeErr)
	}
	return acpFakeBin
}

func TestCLIPromptStreamsTheReplyAndRefusesPermissions(t *testing.T) {
	c := newCLI(t)
	state := c.dir("agent-state")
	config := "[harness.fake]\ncommand = \"" + buildACPFake(t) + "\"\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = \"" + state + "\" }\n"
	if err := os.WriteFile(c.config, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := c.dir("lib")
	chat := c.chat("new", "--harness", "fake", "--dir", lib, "--json")
	if chat.FoldersVia != "note" {
		t.Fatalf("foldersVia %q for an ACP harness not known to advertise the field", chat.FoldersVia)
	}

	out := c.ok("prompt", chat.ID, "hello there")
	if !strings.HasPrefix(out, "echo: ") || !strings.HasSuffix(out, "hello there\n") || !strings.Contains(out, lib) {
		t.Fatalf("first prompt printed %q: want the echo of the folder note and the text", out)
	}
	shown := c.chat("show", chat.ID, "--json")
	if shown.AgentSessionID == "" {
		t.Fatal("the session id was not stored")
	}

	// A second run loads the same session; the note is not sent again.
	if out := c.ok("prompt", chat.ID, "again"); out != "echo: again\n" {
		t.Fatalf("second prompt printed %q", out)
	}

	r := c.run("prompt", chat.ID, "permission")
	if r.code != 0 || r.stdout != "permission: reject_once\n" || !strings.Contains(r.stderr, "refused permission") {
		t.Fatalf("permission prompt: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}

	shell := c.chat("new", "--harness", "shell", "--json")
	if r := c.run("prompt", shell.ID, "hi"); r.code != 2 || !strings.Contains(r.stderr, "does not speak ACP") {
		t.Fatalf("prompt to a pty chat: exit %d stderr %q", r.code, r.stderr)
	}
}
