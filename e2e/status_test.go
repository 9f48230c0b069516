package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// End-to-end runs of the real binary for a chat's exact status: the fake
// claude runs its --settings hooks as Claude Code does (`hook EVENT` typed
// to it), each hook is the real `acpmux-tui hook`, and the server, the TUI
// and `ls` follow; a chat that asks while the TUI's terminal has lost focus
// is announced through [notify] command.

// hookRuns reads what the fake recorded of each hook it ran.
func hookRuns(t *testing.T, rec string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(rec + ".hooks")
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var runs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l == "" {
			continue
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("hook record %q: %v", l, err)
		}
		runs = append(runs, r)
	}
	return runs
}

// only returns the one chat listed.
func only(t *testing.T, c *cli) proto.ChatJSON {
	t.Helper()
	list := c.ls()
	if len(list) != 1 {
		t.Fatalf("ls: %+v", list)
	}
	return list[0]
}

// waitStatus waits until ls reports the one chat with status and the
// status's source.
func waitStatus(t *testing.T, c *cli, status, from string) proto.ChatJSON {
	t.Helper()
	var got proto.ChatJSON
	srvWaitFor(t, fmt.Sprintf("ls to say %s from %s", status, from), func() bool {
		got = only(t, c)
		return got.Status == status && got.StatusFrom == from
	})
	return got
}

// paneTitle is the title the program in the pane set.
func (s *tmuxSession) paneTitle() string {
	return strings.TrimSpace(s.tmux("display-message", "-p", "-t", "e2e", "#{pane_title}"))
}

// focusOut sends what a terminal sends when its window loses focus.
func (s *tmuxSession) focusOut() {
	s.t.Helper()
	s.tmux("send-keys", "-t", "e2e", "-H", "1b", "5b", "4f")
}

func TestE2EStatusFollowsClaudeHooks(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	rec := fakeClaude(t, c)
	// Claude Code runs its hooks with sh, and so does the notify command.
	if err := os.Symlink("/bin/sh", filepath.Join(c.root, "bin", "sh")); err != nil {
		t.Fatal(err)
	}
	notices := filepath.Join(c.root, "notices")
	notify := fmt.Sprintf("\n[notify]\ncommand = [\"sh\", \"-c\", \"printf '%%s|%%s|%%s|%%s\\\\n' \\\"$ACPMUX_CHAT_ID\\\" \\\"$ACPMUX_STATUS\\\" \\\"$1\\\" \\\"$2\\\" >> %s\", \"sh\"]\n", notices)
	f, err := os.OpenFile(c.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(notify)
	f.Close()
	env := append(c.env(), "TERM=xterm-256color")

	s := startTmux(t, 160, 50, env, []string{binary, "--harness", "claude", "--name", "hooked"})
	s.waitText("ready>", "keys go to claude")
	typeLine := func(line, want string) {
		t.Helper()
		s.text(line)
		s.keys("Enter")
		s.waitText(want)
	}
	// Looked at: the statuses follow the hooks, nothing is announced.
	typeLine("hook UserPromptSubmit", "hooked: UserPromptSubmit")
	waitStatus(t, c, "running", "hooks")
	typeLine("hook PreToolUse", "hooked: PreToolUse")
	// At the turn's end the server reads the context from Claude Code's
	// session log (it has the tokens, no cost) into the chat's file.
	sid := only(t, c).AgentSessionID
	logDir := filepath.Join(c.root, "user", ".claude", "projects", "-proj")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		t.Fatal(err)
	}
	logLine := `{"type":"assistant","message":{"usage":{"input_tokens":12,"cache_read_input_tokens":41000,"output_tokens":988}}}` + "\n"
	if err := os.WriteFile(filepath.Join(logDir, sid+".jsonl"), []byte(logLine), 0o600); err != nil {
		t.Fatal(err)
	}
	typeLine("hook Stop", "hooked: Stop")
	if got := waitStatus(t, c, "waiting", "hooks"); got.Unread {
		t.Fatal("a turn that ended in front of the user is unread")
	}
	srvWaitFor(t, "ls to give the session log's usage", func() bool {
		return only(t, c).Usage.Equal(&proto.Usage{Used: 42000, Size: 200000})
	})
	s.waitText("21 % of 200k")
	// The terminal loses focus: nobody looks at the chat, which asks.
	s.focusOut()
	typeLine("hook Notification permission_prompt", "hooked: Notification")
	id := waitStatus(t, c, "asking", "hooks").ID
	if !only(t, c).Unread {
		t.Fatal("a question nobody saw is not unread")
	}
	var lines []string
	srvWaitFor(t, "the notify command", func() bool {
		b, _ := os.ReadFile(notices)
		lines = strings.Split(strings.TrimSpace(string(b)), "\n")
		return len(b) > 0
	})
	if want := id + "|asking|acpmux · hooked|asks for you"; len(lines) != 1 || lines[0] != want {
		t.Fatalf("the notify command ran with %q, want only %q (nothing for the turn that ended in front of the user)", lines, want)
	}
	s.waitFor("the title to count the chat that asks", func(string) bool { return s.paneTitle() == "acpmux · 1 asking" })

	// The TUI opened again shows the question, and the chat, shown, is
	// read.
	s.keys("C-]")
	s.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to claude") })
	s.quit()
	s = startTmux(t, 160, 50, env, []string{binary})
	s.waitFor("the asking mark", func(scr string) bool { return strings.Contains(selectedLine(scr), "? ") })
	srvWaitFor(t, "the chat to be read", func() bool { return !only(t, c).Unread })

	// The server dies; the next one starts the chat again, inferred from
	// its screen until its hooks speak.
	before := only(t, c)
	if proto.LockHolder(c.home) <= 0 {
		t.Fatalf("no process to signal (pid %d): kill would reach the test's own group", proto.LockHolder(c.home))
	}
	if err := syscall.Kill(proto.LockHolder(c.home), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s.quit()
	s = startTmux(t, 160, 50, env, []string{binary})
	s.waitText("ready>")
	after := waitStatus(t, c, "waiting", "screen")
	if after.AgentSessionID != before.AgentSessionID {
		t.Fatalf("session %q after the restart, was %q", after.AgentSessionID, before.AgentSessionID)
	}
	s.keys("Enter")
	s.waitText("keys go to claude")
	typeLine("hook Notification permission_prompt", "hooked: Notification")
	waitStatus(t, c, "asking", "hooks")
	typeLine("hook PostToolUse", "hooked: PostToolUse")
	waitStatus(t, c, "running", "hooks")

	// Every hook ran silently and exited 0.
	runs := hookRuns(t, rec)
	if len(runs) != 6 {
		t.Fatalf("%d hook runs recorded, want the 6 typed", len(runs))
	}
	for _, r := range runs {
		if r["exit"] != float64(0) || r["outputBytes"] != float64(0) {
			t.Errorf("a hook run did not exit 0 silently: %v", r)
		}
	}
	s.keys("C-]")
	s.quit()
}
