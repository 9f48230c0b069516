package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/sessions"
	sdk "github.com/coder/acp-go-sdk"
)

// door measures the ACP door's added latency: the time from session/prompt
// to the first session/update, n prompts through `BIN acp` (the door, on a
// server of a fresh agent home HOME whose "fake" harness is the fake ACP
// agent FAKE) beside n sent to FAKE driven directly, a prompt of each in
// turn so that a busy moment of the machine falls on both alike. It prints
// p50, p99, mean and max of each, and the ratios of the p50s and p99s.
//
// A third side is the floor of any door with a process of its own on the
// way: FAKE behind `benchtool relay`, which only copies the lines both
// ways (the server is such a process: it reads each line from the client
// and writes it to the agent, and back).
func doorBench(binary, home, fake string, n int) error {
	env, project, err := doorHome(home, fake)
	if err != nil {
		return err
	}
	defer killServer(binary, env)

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
	self, err := os.Executable()
	if err != nil {
		return err
	}
	relayed, err := startACP(exec.Command(self, "relay", fake), os.Environ(), project)
	if err != nil {
		return fmt.Errorf("the fake agent behind a relay: %w", err)
	}
	defer relayed.close()

	peers := []*acpPeer{viaDoor, direct, relayed}
	names := []string{"through the door", "to the fake agent", "through the relay"}
	times := make([][]time.Duration, len(peers))
	for i := 0; i < n; i++ {
		text := fmt.Sprintf("prompt %d", i)
		for j, p := range peers {
			d, err := p.firstUpdate(text)
			if err != nil {
				return fmt.Errorf("prompt %d %s: %w", i, names[j], err)
			}
			times[j] = append(times[j], d)
		}
	}
	doorTimes, directTimes, relayTimes := times[0], times[1], times[2]
	emit("prompts", n)
	emitTimes("door", doorTimes)
	emitTimes("direct", directTimes)
	emitTimes("relay", relayTimes)
	emit("p50_ratio", float64(percentile(doorTimes, 0.5))/float64(percentile(directTimes, 0.5)))
	emit("p99_ratio", float64(percentile(doorTimes, 0.99))/float64(percentile(directTimes, 0.99)))
	emit("relay_p50_ratio", float64(percentile(relayTimes, 0.5))/float64(percentile(directTimes, 0.5)))
	emit("relay_p99_ratio", float64(percentile(relayTimes, 0.99))/float64(percentile(directTimes, 0.99)))
	return nil
}

// relay runs name with args, copying this process's stdin to its stdin
// and its stdout to this process's stdout as they come, until it ends.
func relay(name string, args []string) error {
	cmd := exec.Command(name, args...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() {
		_, _ = io.Copy(in, os.Stdin)
		in.Close()
	}()
	_, _ = io.Copy(os.Stdout, out)
	return cmd.Wait()
}

// doorHome makes HOME a fresh home for the door benches: a config whose
// harness "fake" is the fake ACP agent FAKE and the default of ACP chats,
// with HOME the one web root; an agent home; and a project folder. It
// returns the environment that points acpmux-tui at them, and the
// project.
func doorHome(home, fake string) (env []string, project string, err error) {
	if home, err = filepath.Abs(home); err != nil {
		return nil, "", err
	}
	if err := freshDir(home); err != nil {
		return nil, "", err
	}
	cfgPath := filepath.Join(home, "config.toml")
	cfg := fmt.Sprintf("default_acp_harness = \"fake\"\n[harness.fake]\ncommand = %q\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_ADVERTISE = \"1\" }\n[web]\nroots = [%q]\n", fake, home)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		return nil, "", fmt.Errorf("write bench config: %w", err)
	}
	if _, err := config.Load(cfgPath); err != nil {
		return nil, "", fmt.Errorf("bench config %s: %w", cfgPath, err)
	}
	project = filepath.Join(home, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		return nil, "", err
	}
	return append(os.Environ(), "ACPMUX_HOME="+filepath.Join(home, "agent"), "ACPMUX_CONFIG="+cfgPath), project, nil
}

// killServer stops the server of the agent home env names, if one runs.
func killServer(binary string, env []string) {
	kill := exec.Command(binary, "kill-server")
	kill.Env = env
	kill.Run()
}

// acpPeer is a client with one session on an ACP agent: a process on
// whose stdio it speaks (startACP), or a connection (cmd is nil; closing
// stdin ends it).
type acpPeer struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	conn    *sdk.ClientSideConnection
	session sdk.SessionId
	updates chan time.Time
	count   atomic.Int64 // updates heard
}

func startACP(cmd *exec.Cmd, env []string, cwd string) (*acpPeer, error) {
	p := &acpPeer{cmd: cmd}
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
	if err := p.connect(stdout, cwd); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// connect runs the client on p.stdin and r: initialize, then session/new
// in cwd.
func (p *acpPeer) connect(r io.Reader, cwd string) error {
	p.updates = make(chan time.Time, 1024)
	p.conn = sdk.NewClientSideConnection(benchClient{p}, p.stdin, r)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := p.conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	resp, err := p.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		return fmt.Errorf("session/new: %w", err)
	}
	p.session = resp.SessionId
	return nil
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
	if p.cmd == nil {
		return
	}
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
	c.p.count.Add(1)
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

// doorReplayBench measures session/load of a chat whose transcript has
// entries entries (a user prompt and an agent reply a turn): a chat of a
// fresh agent home HOME on the fake ACP agent FAKE, whose stored session
// holds those turns, loaded through `BIN acp`. The server's mux loads the
// agent's session (the agent replays it), then the door replays the
// transcript to the client. It prints the time from session/load to its
// answer, the updates the client got (the mux keeps a chat's latest 5,000
// entries, so a longer conversation replays its end), and the server's peak resident
// memory (VmHWM) before and after.
func doorReplayBench(binary, home, fake string, entries int) error {
	if err := freshDir(home); err != nil {
		return err
	}
	state := filepath.Join(home, "agent-state")
	project := filepath.Join(home, "project")
	for _, d := range []string{state, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	cfgPath := filepath.Join(home, "config.toml")
	cfg := fmt.Sprintf("[harness.fake]\ncommand = %q\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = %q }\n", fake, state)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		return fmt.Errorf("write bench config: %w", err)
	}
	// The agent's stored session: entries/2 turns.
	type turn struct {
		User  string `json:"user"`
		Agent string `json:"agent"`
	}
	sid := "fake-replaybench"
	hist := make([]turn, entries/2)
	for i := range hist {
		hist[i] = turn{User: fmt.Sprintf("prompt %d: what does this line of the log say?", i), Agent: fmt.Sprintf("echo: prompt %d: it says what it said, at some length to be a reply", i)}
	}
	data, err := json.Marshal(map[string]any{"sessionId": sid, "cwd": project, "additionalDirectories": nil, "history": hist})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(state, sid+".json"), data, 0o600); err != nil {
		return err
	}
	agentHome := filepath.Join(home, "agent")
	store, err := sessions.OpenStore(agentHome)
	if err != nil {
		return err
	}
	m, err := store.Create(sessions.NewChat{Harness: "fake", Cwd: project, AgentSessionID: sid, Origin: sessions.OriginACP})
	if err != nil {
		return err
	}
	env := append(os.Environ(), "ACPMUX_HOME="+agentHome, "ACPMUX_CONFIG="+cfgPath)
	defer func() {
		kill := exec.Command(binary, "kill-server")
		kill.Env = env
		kill.Run()
	}()
	// A raw client: the SDK's client side closes a connection whose
	// notifications queue past 1024 before its handler takes them, which a
	// replay this long does.
	cmd := exec.Command(binary, "acp", "--harness", "fake")
	cmd.Env, cmd.Dir = env, project
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 64<<20)
	// until reads lines until the answer to id, counting session/updates.
	until := func(id int) (int, error) {
		updates := 0
		for lines.Scan() {
			var msg struct {
				ID     *int            `json:"id"`
				Method string          `json:"method"`
				Error  json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(lines.Bytes(), &msg); err != nil {
				return updates, fmt.Errorf("the door wrote a line that is not JSON: %w", err)
			}
			switch {
			case msg.Method == sdk.ClientMethodSessionUpdate:
				updates++
			case msg.Method == "" && msg.ID != nil && *msg.ID == id:
				if msg.Error != nil {
					return updates, fmt.Errorf("error: %s", msg.Error)
				}
				return updates, nil
			}
		}
		return updates, fmt.Errorf("the door ended: %v", lines.Err())
	}
	fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\n")
	if _, err := until(1); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	conn, err := client.Dial(agentHome)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	hello, err := conn.Hello(ctx)
	conn.Close()
	if err != nil {
		return err
	}
	before := peakKB(hello.Pid)
	load, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": sdk.AgentMethodSessionLoad,
		"params": sdk.LoadSessionRequest{SessionId: sdk.SessionId(m.ID), Cwd: project, McpServers: []sdk.McpServer{}}})
	start := time.Now()
	fmt.Fprintf(stdin, "%s\n", load)
	got, err := until(2)
	took := time.Since(start)
	if err != nil {
		return fmt.Errorf("session/load: %w", err)
	}
	// The mux keeps an ACP chat's latest entries (5,000): a longer
	// conversation replays its end.
	if got == 0 {
		return fmt.Errorf("session/load replayed nothing of %d entries", entries)
	}
	emit("entries", entries)
	emit("updates", got)
	emit("load_ms", ms(took))
	emit("server_vmhwm_before_kb", before)
	emit("server_vmhwm_after_kb", peakKB(hello.Pid))
	return nil
}

// peakKB is a process's peak resident set in kB (0 when unknown).
func peakKB(pid int) int64 { return vmHWM(fmt.Sprintf("/proc/%d/status", pid)) / 1024 }
