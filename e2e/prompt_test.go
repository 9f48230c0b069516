package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
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
		out, err := exec.Command("go", "build", "-o", acpFakeBin, "github.com/acpmux/acpmux-tui/internal/testharness/acpfake").CombinedOutput()
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

	// --link sends a file as a resource_link after the text; one that is
	// not there is refused before anything is sent.
	note := filepath.Join(lib, "notes.md")
	if err := os.WriteFile(note, []byte("# notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := c.ok("prompt", chat.ID, "links", "--link", note); !strings.Contains(out, "file://"+note) {
		t.Fatalf("a prompt with --link printed %q: want the agent to have %s as a link", out, note)
	}
	if r := c.run("prompt", chat.ID, "links", "--link", filepath.Join(lib, "nope.md")); r.code != 2 || !strings.Contains(r.stderr, "nope.md") || r.stdout != "" {
		t.Fatalf("--link to a missing file: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
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

// TestCLIFoldersViaIsWhatHappened: before its first start a chat's
// foldersVia is the table's expectation, marked so; after it, the way the
// folders really went, kept in the chat file, even where the agent
// advertised what the table did not expect.
func TestCLIFoldersViaIsWhatHappened(t *testing.T) {
	c := newCLI(t)
	state := c.dir("agent-state")
	config := "[harness.fake]\ncommand = \"" + buildACPFake(t) + "\"\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = \"" + state + "\", ACPMUX_FAKE_ADVERTISE = \"1\" }\n"
	if err := os.WriteFile(c.config, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	chat := c.chat("new", "--harness", "fake", "--dir", c.dir("lib"), "--json")
	if chat.FoldersVia != "note" || !chat.FoldersViaExpected {
		t.Fatalf("before the first start: foldersVia %q, expected %v", chat.FoldersVia, chat.FoldersViaExpected)
	}
	if out := c.ok("show", chat.ID); !strings.Contains(out, "note (expected: not started yet)") {
		t.Fatalf("show before the first start:\n%s", out)
	}
	c.ok("prompt", chat.ID, "hello")
	c.ok("kill-server") // what follows reads the chat file alone
	shown := c.chat("show", chat.ID, "--json")
	if shown.FoldersVia != "acp" || shown.FoldersViaExpected {
		t.Fatalf("after a start: foldersVia %q, expected %v", shown.FoldersVia, shown.FoldersViaExpected)
	}
	var listed []proto.ChatJSON
	if err := json.Unmarshal([]byte(c.ok("ls", "--json")), &listed); err != nil || len(listed) != 1 || listed[0].FoldersVia != "acp" {
		t.Fatalf("ls --json: %v %+v", err, listed)
	}
	if b, err := os.ReadFile(filepath.Join(c.home, "chats", chat.ID+".toml")); err != nil || !strings.Contains(string(b), `folders_via = "acp"`) {
		t.Fatalf("the chat file: %v\n%s", err, b)
	}
}
