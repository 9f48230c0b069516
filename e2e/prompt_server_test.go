package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/lockedbuf"
	"github.com/acpmux/acpmux-tui/internal/testharness/startrecord"
)

// End-to-end runs of `prompt` as a client of the server: the agent it
// starts stays in the server between prompts, a burst arrives whole, ctrl+c
// cancels the turn in the server, and a prompt that is killed leaves its
// turn running there.

// promptHang is how long these tests wait before calling something a hang.
const promptHang = 3 * time.Minute

// promptServerCLI is a CLI world whose "fake" harness is the fake ACP
// agent recording its starts; it returns the chat made on it and the
// records' file.
func promptServerCLI(t *testing.T) (*cli, string, string) {
	t.Helper()
	c := newCLI(t)
	rec := filepath.Join(c.root, "acp-starts.jsonl")
	config := fmt.Sprintf("[harness.fake]\ncommand = %q\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = %q, ACPMUX_FAKE_RECORD = %q }\n",
		buildACPFake(t), c.dir("agent-state"), rec)
	if err := os.WriteFile(c.config, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return c, c.chat("new", "--harness", "fake", "--json").ID, rec
}

// background is a prompt left running, its output read as it comes.
type background struct {
	cmd            *exec.Cmd
	stdout, stderr lockedbuf.Buffer
	done           chan struct{}
	code           int
}

func (c *cli) promptInBackground(args ...string) *background {
	c.t.Helper()
	b := &background{cmd: exec.Command(binary, args...), done: make(chan struct{})}
	b.cmd.Env, b.cmd.Dir = c.env(), c.root
	b.cmd.Stdout, b.cmd.Stderr = &b.stdout, &b.stderr
	if err := b.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	go func() {
		defer close(b.done)
		if err := b.cmd.Wait(); err != nil {
			b.code = -1
			if ee, ok := err.(*exec.ExitError); ok {
				b.code = ee.ExitCode()
			}
		}
	}()
	c.t.Cleanup(func() {
		b.cmd.Process.Kill()
		<-b.done
	})
	return b
}

func (b *background) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-b.done:
		return b.code
	case <-time.After(promptHang):
		t.Fatalf("prompt did not end\nstdout %q\nstderr %q", b.stdout.String(), b.stderr.String())
		return 0
	}
}

func (c *cli) promptStatus(id string) string {
	c.t.Helper()
	return c.chat("show", id, "--json").Status
}

// TestE2EPromptKeepsTheAgentInTheServer: two prompts in a row are answered
// by one agent process, which keeps running after each prompt exits.
func TestE2EPromptKeepsTheAgentInTheServer(t *testing.T) {
	c, id, rec := promptServerCLI(t)
	if out := c.ok("prompt", id, "one"); out != "echo: one\n" {
		t.Fatalf("first prompt printed %q", out)
	}
	if st := c.promptStatus(id); st != "waiting" {
		t.Fatalf("after prompt exited the chat is %q, want waiting (its agent runs in the server)", st)
	}
	r := c.run("prompt", id, "two")
	if r.code != 0 || r.stdout != "echo: two\n" {
		t.Fatalf("second prompt: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "acpfake: starting") {
		t.Fatalf("the second prompt started an agent:\n%s", r.stderr)
	}
	recs, err := startrecord.Read(rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("%d agent processes for two prompts, want 1", len(recs))
	}
	if err := syscall.Kill(recs[0].Pid, 0); err != nil {
		t.Fatalf("the agent %d is gone after prompt exited: %v", recs[0].Pid, err)
	}
}

// TestE2EPromptBurstArrivesWhole: 100,000 updates sent back to back reach
// stdout complete and in order.
func TestE2EPromptBurstArrivesWhole(t *testing.T) {
	const n = 100_000
	c, id, _ := promptServerCLI(t)
	r := c.run("prompt", id, fmt.Sprintf("burst %d", n))
	var want strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&want, "u%06d ", i)
	}
	want.WriteString("\n")
	if r.code != 0 || r.stdout != want.String() {
		i := 0
		for i < len(r.stdout) && i < want.Len() && r.stdout[i] == want.String()[i] {
			i++
		}
		t.Fatalf("exit %d, %d bytes of stdout, want %d; first difference at byte %d\nstderr %q",
			r.code, len(r.stdout), want.Len(), i, r.stderr)
	}
}

// TestE2EPromptCtrlCCancelsTheTurn: SIGINT cancels the turn in the server;
// prompt says how it ended and exits 0, and the agent takes the next one.
func TestE2EPromptCtrlCCancelsTheTurn(t *testing.T) {
	c, id, rec := promptServerCLI(t)
	b := c.promptInBackground("prompt", id, "slow")
	srvWaitFor(t, "the slow turn's first words", func() bool { return strings.Contains(b.stdout.String(), "working slowly") })
	if err := b.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := b.wait(t); code != 0 || b.stdout.String() != "working slowly\n" || !strings.Contains(b.stderr.String(), "acpmux-tui: turn ended: cancelled\n") {
		t.Fatalf("exit %d stdout %q stderr %q", code, b.stdout.String(), b.stderr.String())
	}
	if out := c.ok("prompt", id, "next"); out != "echo: next\n" {
		t.Fatalf("the prompt after the cancel printed %q", out)
	}
	if recs, err := startrecord.Read(rec); err != nil || len(recs) != 1 {
		t.Fatalf("%d agent starts (%v), want 1", len(recs), err)
	}
}

// TestE2EPromptKilledLeavesItsTurnRunning: a prompt killed mid-turn leaves
// the turn running in the server; a second prompt is told so.
func TestE2EPromptKilledLeavesItsTurnRunning(t *testing.T) {
	c, id, _ := promptServerCLI(t)
	b := c.promptInBackground("prompt", id, "slow")
	srvWaitFor(t, "the slow turn's first words", func() bool { return strings.Contains(b.stdout.String(), "working slowly") })
	if err := b.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	b.wait(t)
	if st := c.promptStatus(id); st != "running" {
		t.Fatalf("after its prompt was killed the chat is %q, want running", st)
	}
	r := c.run("prompt", id, "second")
	if r.code != 1 || !strings.Contains(r.stderr, "a turn is already running") {
		t.Fatalf("second prompt: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}
