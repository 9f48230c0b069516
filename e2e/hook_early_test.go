package e2e

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
)

// TestHookRunsBeforeSlowInits: `acpmux-tui hook` is done before any
// slow package (bubbletea and net, and what they bring) is initialized:
// internal/hookearly's init runs it and exits. A new import there that is
// initialized later would undo it. (go-runewidth was one until v0.0.31,
// which builds its width table at first use: its init is now some 20 µs,
// and it may come first.)
func TestHookRunsBeforeSlowInits(t *testing.T) {
	cmd := exec.Command(binary, "hook", "Stop")
	cmd.Env = append(hookEnv(hookHome(t)), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	trace := string(out)
	if !strings.Contains(trace, "init runtime") {
		t.Fatalf("no init trace:\n%s", trace)
	}
	for _, slow := range []string{"github.com/charmbracelet/bubbletea ", "net "} {
		if strings.Contains(trace, "init "+slow) {
			t.Errorf("%s was initialized before the hook ran:\n%s", strings.TrimSpace(slow), trace)
		}
	}
}

// TestHookEarlyAgreesWithTheContract: hookearly's copies of the names it
// cannot import.
func TestHookEarlyAgreesWithTheContract(t *testing.T) {
	// hookearly's constants are unexported; this compares what reaches the
	// wire instead: TestHookSendsExactlyTheRequest's lines use
	// proto.MethodHook's name, and the harness's env and command names are
	// those the tests run the hook with.
	if harness.HookCommand != "hook" || harness.CodexHookEvent != "codex-notify" ||
		harness.EnvChatID != "ACPMUX_CHAT_ID" || harness.EnvHome != "ACPMUX_HOME" ||
		proto.MethodHook != "_acpmux/hook" || proto.SocketName != "acpmux.sock" {
		t.Fatal("the hook contract changed: update internal/hookearly's constants")
	}
}
