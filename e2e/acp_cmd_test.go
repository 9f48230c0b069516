package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/internal/testharness/doorclient"
	"github.com/acpmux/acpmux-tui/internal/testharness/lockedbuf"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	sdk "github.com/coder/acp-go-sdk"
)

// doorHang is how long these tests wait before calling something a hang.
const doorHang = 3 * time.Minute

// door is one `acpmux-tui acp` process and the SDK client on its stdio.
type door struct {
	*doorclient.Client
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr lockedbuf.Buffer
	exited chan struct{}
	err    error
}

// doorCLI is a CLI world whose "fake" harness is the fake ACP agent,
// keeping its sessions so that a later process can load them.
func doorCLI(t *testing.T) *cli {
	t.Helper()
	c := newCLI(t)
	// Its state is its own, which a sandboxed chat (one made over the
	// web door) may write.
	config := fmt.Sprintf("[harness.fake]\ncommand = %q\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = %q, ACPMUX_FAKE_ADVERTISE = \"1\" }\nsandbox_state = [%q]\n",
		buildACPFake(t), c.dir("agent-state"), c.dir("agent-state")+"/")
	if err := os.WriteFile(c.config, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return c
}

// openDoor starts `acpmux-tui acp args...` and connects a client to it.
func (c *cli) openDoor(t *testing.T, v *acpschema.Validator, args ...string) *door {
	t.Helper()
	d := &door{cmd: exec.Command(binary, append([]string{"acp"}, args...)...), exited: make(chan struct{})}
	d.cmd.Env, d.cmd.Dir = c.env(), c.root
	d.cmd.Stderr = &d.stderr
	var err error
	if d.stdin, err = d.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := d.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { d.err = d.cmd.Wait(); close(d.exited) }()
	t.Cleanup(func() {
		d.stdin.Close()
		select {
		case <-d.exited:
		case <-time.After(doorHang):
			d.cmd.Process.Kill()
			t.Errorf("acpmux-tui acp did not end when its stdin closed")
		}
	})
	d.Client = doorclient.New(d.stdin, stdout, v)
	return d
}

func doorCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), doorHang)
	t.Cleanup(cancel)
	return ctx
}

func (d *door) initialize(t *testing.T) {
	t.Helper()
	if _, err := d.Initialize(doorCtx(t), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize: %v\nstderr: %s", err, d.stderr.String())
	}
}

// TestACPDoorOnStdio: `acpmux-tui acp` starts the server, refuses bad
// folders with -32602 naming each and writing nothing, makes a chat on the
// harness of --harness that `ls` shows with origin acp, and streams a
// prompt's reply. Killed with SIGKILL under the open door, the server
// leaves the client an error for its open prompt, not a wait, and the door
// ends; a new door loads the chat with its transcript.
func TestACPDoorOnStdio(t *testing.T) {
	c := doorCLI(t)
	v := acpschema.ForTest(t)
	d := c.openDoor(t, v, "--harness", "fake")
	d.initialize(t)
	proj, lib := c.dir("proj"), c.dir("lib")

	_, err := d.NewSession(doorCtx(t), sdk.NewSessionRequest{Cwd: proj, McpServers: []sdk.McpServer{},
		AdditionalDirectories: []string{"lib", lib, lib + "/.", c.dir("x") + "/missing"}})
	code, data, _ := doorclient.AsRefusal(err)
	if code != -32602 || len(data.Entries) != 3 || data.Entries[0].Index != 0 || data.Entries[1].Index != 2 || data.Entries[2].Index != 3 {
		t.Fatalf("bad folders on stdio: %v (entries %+v), want -32602 naming entries 0, 2 and 3", err, data.Entries)
	}
	if n := len(c.ls()); n != 0 {
		t.Fatalf("a refused session/new left %d chats", n)
	}

	resp, err := d.NewSession(doorCtx(t), sdk.NewSessionRequest{Cwd: proj, McpServers: []sdk.McpServer{}, AdditionalDirectories: []string{lib}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	id := string(resp.SessionId)
	var chat proto.ChatJSON
	for _, ch := range c.ls() {
		if ch.ID == id {
			chat = ch
		}
	}
	if chat.Origin != sessions.OriginACP || chat.Harness != "fake" || chat.Cwd != proj || len(chat.AdditionalDirectories) != 1 || chat.AdditionalDirectories[0] != lib {
		t.Fatalf("ls shows the door's chat as %+v", chat)
	}
	if _, err := d.Prompt(doorCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hello")}}); err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	if got := d.Text(id, "agent"); got != "echo: hello|" {
		t.Fatalf("reply %q", got)
	}

	var hello proto.HelloResult
	srvCall(t, c.home, proto.MethodHello, nil, &hello)
	prompted := make(chan error, 1)
	go func() {
		_, err := d.Prompt(context.Background(), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("slow")}})
		prompted <- err
	}()
	srvWaitFor(t, "the slow turn's first chunk", func() bool { return strings.Count(d.Text(id, "agent"), "|") >= 2 })
	if hello.Pid <= 0 {
		t.Fatalf("no process to signal (pid %d): kill would reach the test's own group", hello.Pid)
	}
	if err := syscall.Kill(hello.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-prompted:
		if code, _, ok := doorclient.AsRefusal(err); !ok || code != -32603 || !strings.Contains(err.Error(), "went away") {
			t.Fatalf("the open prompt ended with %v, want the door's -32603", err)
		}
	case <-time.After(doorHang):
		t.Fatal("the open prompt still waits after the server was killed")
	}
	select {
	case <-d.exited:
		if d.cmd.ProcessState.ExitCode() != 1 {
			t.Fatalf("the door exited %d after the server went away, want 1", d.cmd.ProcessState.ExitCode())
		}
	case <-time.After(doorHang):
		t.Fatal("the door still runs after the server went away")
	}
	if err := d.Invalid(); err != nil {
		t.Fatal(err)
	}

	d2 := c.openDoor(t, v)
	d2.initialize(t)
	if _, err := d2.LoadSession(doorCtx(t), sdk.LoadSessionRequest{SessionId: resp.SessionId, Cwd: proj, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load after the crash: %v\nstderr: %s", err, d2.stderr.String())
	}
	if u, a := d2.Text(id, "user"), d2.Text(id, "agent"); !strings.HasPrefix(u, "hello|") || !strings.HasPrefix(a, "echo: hello|") {
		t.Fatalf("the new door replayed user %q, agent %q", u, a)
	}
	if err := d2.Invalid(); err != nil {
		t.Fatal(err)
	}
}

// TestACPDoorHarnessFlag: --harness must name an ACP harness; the refusal
// is on stderr with status 2 and nothing on stdout.
func TestACPDoorHarnessFlag(t *testing.T) {
	c := doorCLI(t)
	for _, name := range []string{"nosuch", "shell"} {
		r := c.run("acp", "--harness", name)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, name) {
			t.Fatalf("acp --harness %s: exit %d, stdout %q, stderr %q", name, r.code, r.stdout, r.stderr)
		}
	}
}
