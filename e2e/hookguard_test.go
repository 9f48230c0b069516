package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
)

// TestHookFromOutsideTheChatIsIgnored: `acpmux-tui hook` names its chat in
// ACPMUX_CHAT_ID, which any process can set. The server takes a report
// only from the chat's own harness (its session, process group or
// descendants): the real hook run by the test itself, and one typed into a
// shell chat naming another chat, change nothing and are logged; the same
// hook run by the chat's own harness is taken.
func TestHookFromOutsideTheChatIsIgnored(t *testing.T) {
	c := newCLI(t)
	fakeClaude(t, c)
	// The fake runs its hooks with sh, as Claude Code does; "sh" is a real
	// shell chat.
	if err := os.Symlink("/bin/sh", filepath.Join(c.root, "bin", "sh")); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(c.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "\n[harness.sh]\ncommand = \"/bin/sh\"\nkind = \"plain\"\n")
	f.Close()
	startForeground(t, c)

	target := c.chat("new", "--harness", "claude", "--name", "target", "--json")
	shell := c.chat("new", "--harness", "sh", "--name", "shell", "--json")
	for _, id := range []string{target.ID, shell.ID} {
		srvCall(t, c.home, proto.MethodStart, proto.ChatParams{ID: id, Cols: 100, Rows: 30}, nil)
	}
	status := func(id string) string {
		for _, ch := range c.ls() {
			if ch.ID == id {
				return ch.Status
			}
		}
		return "(not listed)"
	}
	srvWaitFor(t, "both chats running", func() bool {
		return status(target.ID) != "stopped" && status(shell.ID) != "stopped"
	})
	input := filepath.Join(c.root, "notification.json")
	if err := os.WriteFile(input, []byte(`{"hook_event_name":"Notification","notification_type":"permission_prompt","message":"spoofed"}`), 0o644); err != nil {
		t.Fatal(err)
	}

	// From the test's own process, outside every chat.
	hook := exec.Command(binary, "hook", "Notification")
	hook.Env = []string{harness.EnvChatID + "=" + target.ID, harness.EnvHome + "=" + c.home, "PATH=/usr/bin:/bin"}
	in, err := os.Open(input)
	if err != nil {
		t.Fatal(err)
	}
	hook.Stdin = in
	if out, err := hook.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("the hook: %v %q", err, out)
	}
	in.Close()

	// From a shell in another chat, naming the target. The hook waits for
	// the server's answer, so once the marker is written the report has
	// been judged.
	marker := filepath.Join(c.root, "typed.done")
	line := fmt.Sprintf("%s=%s %s hook Notification < %s; echo $? > %s\r", harness.EnvChatID, target.ID, binary, input, marker)
	srvCall(t, c.home, proto.MethodWrite, proto.WriteParams{ID: shell.ID, Data: []byte(line)}, nil)
	srvWaitFor(t, "the hook typed into the shell chat to end", func() bool {
		b, err := os.ReadFile(marker)
		return err == nil && strings.TrimSpace(string(b)) == "0"
	})
	if got := status(target.ID); got == "asking" {
		t.Fatal("a hook from outside the chat's harness set it asking")
	}
	logged := func() int {
		b, _ := os.ReadFile(filepath.Join(c.home, "logs", "acpmux-tui.log"))
		return strings.Count(string(b), "ignored a status report from outside the chat's harness")
	}
	if n := logged(); n != 2 {
		t.Fatalf("%d ignored reports logged, want 2", n)
	}

	// The chat's own harness runs the same hook: taken.
	srvCall(t, c.home, proto.MethodWrite, proto.WriteParams{ID: target.ID, Data: []byte("hook Notification permission_prompt\r")}, nil)
	srvWaitFor(t, "the target's own hook to set it asking", func() bool { return status(target.ID) == "asking" })
	if n := logged(); n != 2 {
		t.Fatalf("%d ignored reports logged after the chat's own, want still 2", n)
	}
}
