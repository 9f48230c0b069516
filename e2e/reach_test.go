package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/internal/testharness/doorclient"
	sdk "github.com/coder/acp-go-sdk"
)

// reachWorld is a CLI world whose chat will run in a folder that holds the
// agent home (c.root holds c.home, as ~ holds ~/.local/share/acpmux), with
// another chat's file to steal and a file of the user's beside it.
type reachWorld struct {
	*cli
	// victim is another chat's file in the agent home, and before its text.
	victim, before string
	// notes is a file of the user's in the same folder, outside the home.
	notes string
}

func newReachWorld(t *testing.T) *reachWorld {
	t.Helper()
	w := &reachWorld{cli: doorCLI(t), notes: ""}
	other := w.chat("new", "--harness", "fake", "--name", "victim", "--json")
	w.victim = filepath.Join(w.home, "chats", other.ID+".toml")
	b, err := os.ReadFile(w.victim)
	if err != nil {
		t.Fatal(err)
	}
	w.before = string(b)
	w.notes = filepath.Join(w.root, "notes.txt")
	if err := os.WriteFile(w.notes, []byte("the user's notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

// check has the chat's agent read the user's file (served), then read and
// write the other chat's file and read the lock and the server's
// environment (each refused), through say: one prompt, the agent's reply.
func (w *reachWorld) check(t *testing.T, say func(prompt string) string) {
	t.Helper()
	if got := say("read " + w.notes); !strings.Contains(got, "read: the user's notes") {
		t.Errorf("the agent could not read %s in its own folder: %q", w.notes, got)
	}
	for _, p := range []string{w.victim, filepath.Join(w.home, "acpmux.lock"), filepath.Join(w.home, "logs", "acpmux-tui.log"), "/proc/self/environ"} {
		got := say("read " + p)
		if !strings.Contains(got, "read error") || strings.Contains(got, "harness =") || strings.Contains(got, "ACPMUX_HOME") {
			t.Errorf("the agent read %s: %q", p, got)
		}
	}
	if got := say("write " + w.victim + " additional_directories = [\"/etc\"]"); !strings.Contains(got, "write error") {
		t.Errorf("the agent wrote %s: %q", w.victim, got)
	}
	if got := say("write " + filepath.Join(w.home, "chats", "planted.toml") + " version = 1"); !strings.Contains(got, "write error") {
		t.Errorf("the agent wrote a new chat file: %q", got)
	}
	if b, _ := os.ReadFile(w.victim); string(b) != w.before {
		t.Errorf("the other chat's file changed:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(w.home, "chats", "planted.toml")); err == nil {
		t.Error("a chat file was planted in the agent home")
	}
}

// TestE2EAgentHomeOutOfReachThroughAParentFolder: a chat whose own folder
// holds the agent home (as a chat run in ~ does) has its agent served the
// rest of that folder, but nothing inside the agent home nor under /proc,
// by every way such a chat comes to be: `new --cwd`, a door client's
// session/new, and an import under a root above the home.
func TestE2EAgentHomeOutOfReachThroughAParentFolder(t *testing.T) {
	t.Run("new --cwd", func(t *testing.T) {
		w := newReachWorld(t)
		id := w.chat("new", "--harness", "fake", "--cwd", w.root, "--json").ID
		w.check(t, func(prompt string) string { return w.run("prompt", id, prompt).stdout })
	})

	t.Run("the door's session/new", func(t *testing.T) {
		w := newReachWorld(t)
		d := w.openDoor(t, acpschema.ForTest(t), "--harness", "fake")
		d.initialize(t)
		for _, cwd := range []string{"/proc/self", filepath.Join(w.home, "chats")} {
			_, err := d.NewSession(doorCtx(t), sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
			if code, _, _ := doorclient.AsRefusal(err); code != -32602 {
				t.Errorf("session/new with cwd %s: %v, want -32602", cwd, err)
			}
		}
		resp, err := d.NewSession(doorCtx(t), sdk.NewSessionRequest{Cwd: w.root, McpServers: []sdk.McpServer{}})
		if err != nil {
			t.Fatalf("session/new with the folder that holds the agent home: %v", err)
		}
		w.check(t, func(prompt string) string {
			d.Forget()
			if _, err := d.Prompt(doorCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(prompt)}}); err != nil {
				t.Fatalf("session/prompt %q: %v", prompt, err)
			}
			return d.Text(string(resp.SessionId), "agent")
		})
	})

	t.Run("import --root above the home", func(t *testing.T) {
		w := newReachWorld(t)
		// The exporting side had a chat in the folder that, on this side,
		// holds the agent home; the import keeps it, under the root.
		from := doorCLI(t)
		chat := from.chat("new", "--harness", "fake", "--cwd", w.root, "--name", "imported", "--json")
		bundle := filepath.Join(from.root, "imported.acpmux.tgz")
		from.ok("export", chat.ID, "-o", bundle)
		rep := w.importJSON(bundle, "--root", w.root)
		if rep.Cwd != w.root {
			t.Fatalf("the import put the chat in %q, want %q", rep.Cwd, w.root)
		}
		w.check(t, func(prompt string) string { return w.run("prompt", rep.ID, prompt).stdout })
	})
}

// TestCLIRefusesProcAndSys: `--file /proc/self/environ` (which would be
// stored as a dead process's file), a folder under /sys and a project in
// /proc are refused with status 2, saying why, and write nothing.
func TestCLIRefusesProcAndSys(t *testing.T) {
	c := newCLI(t)
	id := c.chat("new", "--harness", "shell", "--json").ID
	for _, args := range [][]string{
		{"new", "--harness", "shell", "--file", "/proc/self/environ"},
		{"new", "--harness", "shell", "--dir", "/sys/kernel"},
		{"new", "--harness", "shell", "--cwd", "/proc/self"},
		{"add-file", id, "/proc/self/status"},
		{"add-dir", id, "/proc"},
	} {
		r := c.run(args...)
		if r.code != 2 || !strings.Contains(r.stderr, "is under /") {
			t.Errorf("acpmux-tui %s: exit %d, stderr %q; want 2 saying it is under /proc or /sys", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	if chats := c.ls(); len(chats) != 1 || len(chats[0].AdditionalFiles)+len(chats[0].AdditionalDirectories) != 0 {
		t.Fatalf("a refusal wrote: %+v", chats)
	}
}
