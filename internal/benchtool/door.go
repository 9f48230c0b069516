package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	sdk "github.com/coder/acp-go-sdk"
)

// door measures the ACP door's added latency: the time from session/prompt
// to the first session/update, n prompts through `BIN acp` (the door, on a
// server of a fresh agent home HOME whose "fake" harness is the fake ACP
// agent FAKE) beside n sent to FAKE driven directly, a prompt of each in
// turn so that a busy moment of the machine falls on both alike. It prints
// p50, p99, mean and max of each, and the ratios of the p50s and p99s.
func doorBench(binary, home, fake string, n int) error {
	if err := freshDir(home); err != nil {
		return err
	}
	cfgPath := filepath.Join(home, "config.toml")
	cfg := fmt.Sprintf("[harness.fake]\ncommand = %q\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_ADVERTISE = \"1\" }\n", fake)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		return fmt.Errorf("write bench config: %w", err)
	}
	if _, err := config.Load(cfgPath); err != nil {
		return fmt.Errorf("bench config %s: %w", cfgPath, err)
	}
	agentHome := filepath.Join(home, "agent")
	project := filepath.Join(home, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		return err
	}
	env := append(os.Environ(), "ACPMUX_HOME="+agentHome, "ACPMUX_CONFIG="+cfgPath)
	defer func() {
		kill := exec.Command(binary, "kill-server")
		kill.Env = env
		kill.Run()
	}()

	viaDoor, err := startACP(exec.Command(binary, "acp", "--harness", "fake"), env, project)
	if err != nil {
		return fmt.Errorf("the door: %w", err)
	}
	defer viaDoor.close()
	direct, err := startACP(exec.Command(fake), os.Environ(), project)
	if err != nil {
		return fmt.Errorf("the fake agent: %w", err)
	}
	defer direct.close()

	var doorTimes, directTimes []time.Duration
	for i := 0; i < n; i++ {
		text := fmt.Sprintf("prompt %d", i)
		d, err := viaDoor.firstUpdate(text)
		if err != nil {
			return fmt.Errorf("prompt %d through the door: %w", i, err)
		}
		doorTimes = append(doorTimes, d)
		if d, err = direct.firstUpdate(text); err != nil {
			return fmt.Errorf("prompt %d to the fake agent: %w", i, err)
		}
		directTimes = append(directTimes, d)
	}
	emit("prompts", n)
	emitTimes("door", doorTimes)
	emitTimes("direct", directTimes)
	emit("p50_ratio", float64(percentile(doorTimes, 0.5))/float64(percentile(directTimes, 0.5)))
	emit("p99_ratio", float64(percentile(doorTimes, 0.99))/float64(percentile(directTimes, 0.99)))
	return nil
}

// acpPeer is an ACP agent process and a client on its stdio, with one
// session.
type acpPeer struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	conn    *sdk.ClientSideConnection
	session sdk.SessionId
	updates chan time.Time
}

func startACP(cmd *exec.Cmd, env []string, cwd string) (*acpPeer, error) {
	p := &acpPeer{cmd: cmd, updates: make(chan time.Time, 1024)}
	cmd.Env, cmd.Dir = env, cwd
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p.conn = sdk.NewClientSideConnection(benchClient{p}, p.stdin, stdout)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := p.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		p.close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	resp, err := p.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		p.close()
		return nil, fmt.Errorf("session/new: %w", err)
	}
	p.session = resp.SessionId
	return p, nil
}

// firstUpdate sends one prompt and returns the time until its first
// session/update arrived, once the turn has ended.
func (p *acpPeer) firstUpdate(text string) (time.Duration, error) {
	for len(p.updates) > 0 {
		<-p.updates
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	if _, err := p.conn.Prompt(ctx, sdk.PromptRequest{SessionId: p.session, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}}); err != nil {
		return 0, err
	}
	select {
	case at := <-p.updates:
		return at.Sub(start), nil
	default:
		return 0, errors.New("the turn ended without an update")
	}
}

func (p *acpPeer) close() {
	p.stdin.Close()
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// benchClient is the client side: it notes when each update arrives.
type benchClient struct{ p *acpPeer }

func (c benchClient) SessionUpdate(context.Context, sdk.SessionNotification) error {
	select {
	case c.p.updates <- time.Now():
	default:
	}
	return nil
}

func (benchClient) RequestPermission(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
}

var errNotOffered = errors.New("not offered")

func (benchClient) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errNotOffered
}

func (benchClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errNotOffered
}

func (benchClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errNotOffered
}

func (benchClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errNotOffered
}

func (benchClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errNotOffered
}

func (benchClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errNotOffered
}

func (benchClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errNotOffered
}
