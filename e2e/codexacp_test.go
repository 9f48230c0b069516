package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/internal/testharness/doorclient"
	"github.com/acpmux/acpmux-tui/internal/testharness/lockedbuf"
	"github.com/acpmux/acpmux-tui/proto"
)

// End-to-end runs of the real codex-acp 0.16.0 (Zed's ACP adapter for
// Codex, pinned with the peers) as a chat of the real binary. It cannot
// reach OpenAI here: it is given an unused API key, and a model provider
// of the test's own, a local server that speaks OpenAI's Responses API
// and keeps what Codex sends it, which says what Codex's sandbox is.

// codexACPHang is how long these tests wait for codex-acp, or the chat
// running it, before calling something a hang.
const codexACPHang = 3 * time.Minute

// unusedAPIKey is the OpenAI API key codex-acp is given: never sent
// anywhere but the test's own model server.
const unusedAPIKey = "sk-unused"

// realCodexACP returns the real codex-acp installed by scripts/test in
// .peers/: the native binary its npm package ships for this platform
// (@zed-industries/codex-acp-<platform>), which the package's bin script
// runs with node. It skips (fails under ACPMUX_REQUIRE_PEERS=1) when it is
// not there.
func realCodexACP(t *testing.T) string {
	t.Helper()
	native, _ := filepath.Glob(filepath.Join(moduleRoot, ".peers", "node_modules", "@zed-industries", "codex-acp-*", "bin", "codex-acp"))
	for _, bin := range native {
		if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return bin
		}
	}
	acpschema.SkipUnlessPeers(t, "the real codex-acp is not installed in .peers/ (scripts/test installs @zed-industries/codex-acp@0.16.0, whose optional dependency brings the binary for this platform)")
	return ""
}

// responsesServer is a model provider for Codex: every POST to
// /v1/responses is kept and answered with one assistant message, "ok".
type responsesServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []responsesRequest
}

// responsesRequest is the part of a Responses API request the tests read.
type responsesRequest struct {
	Input []struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"input"`
}

// texts returns the text of every input item of role, in order.
func (r responsesRequest) texts(role string) []string {
	var out []string
	for _, it := range r.Input {
		if it.Role != role {
			continue
		}
		for _, c := range it.Content {
			out = append(out, c.Text)
		}
	}
	return out
}

func startResponsesServer(t *testing.T) *responsesServer {
	t.Helper()
	s := &responsesServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" {
			http.NotFound(w, r)
			return
		}
		var req responsesRequest
		if err := json.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.bodies = append(s.bodies, req)
		n := len(s.bodies)
		s.mu.Unlock()
		id := fmt.Sprintf("resp_%d", n)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range []map[string]any{
			{"type": "response.created", "response": map[string]any{"id": id}},
			{"type": "response.output_item.done", "item": map[string]any{
				"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_%d", n),
				"content": []any{map[string]any{"type": "output_text", "text": "ok"}},
			}},
			{"type": "response.completed", "response": map[string]any{"id": id, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}},
		} {
			b, _ := json.Marshal(ev)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], b)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// requestWith returns the last request whose user input holds text.
func (s *responsesServer) requestWith(t *testing.T, text string) responsesRequest {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.bodies) - 1; i >= 0; i-- {
		for _, u := range s.bodies[i].texts("user") {
			if strings.Contains(u, text) {
				return s.bodies[i]
			}
		}
	}
	t.Fatalf("no request to the model carries the prompt %q (%d requests)", text, len(s.bodies))
	return responsesRequest{}
}

// providerArgs are the codex-acp options that make s its model provider.
func (s *responsesServer) providerArgs() []string {
	return []string{
		"-c", `model_provider="acpmux-test"`,
		"-c", fmt.Sprintf(`model_providers.acpmux-test={name="acpmux test", base_url=%q, wire_api="responses", env_key="OPENAI_API_KEY"}`, s.URL+"/v1"),
	}
}

// writeEntry is one folder Codex's permission profile lets it write, as
// its environment context names it to the model.
var writeEntry = regexp.MustCompile(`<entry access="write"><path>([^<]*)</path></entry>`)

// writableNow returns the folders Codex's sandbox lets it write as of the
// request's last environment context.
func writableNow(t *testing.T, r responsesRequest) []string {
	t.Helper()
	var last string
	for _, u := range r.texts("user") {
		if strings.Contains(u, "<environment_context>") {
			last = u
		}
	}
	if last == "" {
		t.Fatalf("the request to the model has no environment context: %+v", r)
	}
	var out []string
	for _, m := range writeEntry.FindAllStringSubmatch(last, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

// codexACPProcess is a codex-acp run by the test itself, spoken to over
// its stdio.
type codexACPProcess struct {
	*doorclient.Client
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr lockedbuf.Buffer
	exited chan struct{}
}

// runCodexACP starts argv (argv[0] the program) in dir with env, in a
// process group of its own. At the end of the test it is stopped as the
// mux stops an agent: its stdin closes and its group gets SIGTERM
// (codex-acp 0.16.0 does not exit at the end of its input), and it must
// exit, else it is killed.
func runCodexACP(t *testing.T, argv, env []string, dir string) *codexACPProcess {
	t.Helper()
	p := &codexACPProcess{cmd: exec.Command(argv[0], argv[1:]...), exited: make(chan struct{})}
	p.cmd.Env, p.cmd.Dir = env, dir
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.cmd.Stderr = &p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.stdin.Close()
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-p.exited:
		case <-time.After(codexACPHang):
			syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			<-p.exited
			t.Errorf("codex-acp did not exit within %v of SIGTERM", codexACPHang)
		}
	})
	p.Client = doorclient.New(p.stdin, stdout, nil)
	return p
}

// call runs one request of p with a deadline, failing the test with what
// was asked and codex-acp's stderr when it fails.
func (p *codexACPProcess) call(t *testing.T, what string, f func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), codexACPHang)
	defer cancel()
	if err := f(ctx); err != nil {
		if ctx.Err() != nil {
			t.Fatalf("codex-acp did not answer %s within %v\nstderr: %s", what, codexACPHang, p.stderr.String())
		}
		t.Fatalf("codex-acp %s: %v\nstderr: %s", what, err, p.stderr.String())
	}
}

// authenticate sends initialize, then authenticate with the unused API
// key in its environment: codex-acp stores the key in $CODEX_HOME, and
// session/new succeeds from then on, in this process and in later ones.
func (p *codexACPProcess) authenticate(t *testing.T) {
	t.Helper()
	var init sdk.InitializeResponse
	p.call(t, "initialize", func(ctx context.Context) (err error) {
		init, err = p.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
		return err
	})
	// What the harness table expects of it: no additionalDirectories.
	if init.AgentCapabilities.SessionCapabilities.AdditionalDirectories != nil {
		t.Errorf("codex-acp now advertises sessionCapabilities.additionalDirectories: the table's codex-acp row expects it not to")
	}
	p.call(t, "authenticate (openai-api-key)", func(ctx context.Context) error {
		_, err := p.Authenticate(ctx, sdk.AuthenticateRequest{MethodId: "openai-api-key"})
		return err
	})
}

// harnessArgv returns the argv of the chat's harness process, a child of
// the server of home with the chat's id in its environment.
func harnessArgv(t *testing.T, home, id string) []string {
	t.Helper()
	server := proto.LockHolder(home)
	if server == 0 {
		t.Fatalf("no server holds %s", home)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range procs {
		pid, _ := strconv.Atoi(filepath.Base(dir))
		if ppid(pid) != server {
			continue
		}
		env, err := os.ReadFile(filepath.Join(dir, "environ"))
		if err != nil || !slices.Contains(strings.Split(string(env), "\x00"), "ACPMUX_CHAT_ID="+id) {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if err != nil {
			t.Fatalf("read the command line of chat %s's harness (pid %d): %v", id, pid, err)
		}
		return strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")
	}
	t.Fatalf("no child of the server (pid %d) runs chat %s", server, id)
	return nil
}

// ppid returns the parent of process pid, 0 when it cannot be read.
func ppid(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// pid (comm) state ppid …: comm may hold blanks and parentheses.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(fields[1])
	return n
}

// TestE2ECodexACPFoldersAreWritableRoots: a chat of the real codex-acp with
// two folders (names a TOML string must escape) starts with them as Codex's
// writable roots on its command line, in the workspace-write sandbox, and
// Codex's own sandbox then lets it write there; the note still heads the
// first prompt. With an unused API key the real agent answers authenticate
// and session/new, with that command line too, and a change of mode away
// and back keeps the roots.
func TestE2ECodexACPFoldersAreWritableRoots(t *testing.T) {
	bin := realCodexACP(t)
	c := newCLI(t)
	model := startResponsesServer(t)
	proj := c.dir("app")
	lib, notes := c.dir(`lib "quoted"`), c.dir(`back\slash ünï ✓`)
	env := []string{"HOME=" + filepath.Join(c.root, "user"), "OPENAI_API_KEY=" + unusedAPIKey, "PATH=/usr/bin:/bin"}

	// codex-acp wants authenticate before session/new; acpmux-tui's mux
	// does not send it, so the key is stored first, as a user logs in once.
	first := runCodexACP(t, []string{bin}, env, proj)
	first.authenticate(t)
	first.call(t, "session/new", func(ctx context.Context) error {
		_, err := first.NewSession(ctx, sdk.NewSessionRequest{Cwd: proj, McpServers: []sdk.McpServer{}})
		return err
	})

	cfg := fmt.Sprintf("[harness.codex-acp]\ncommand = %q\nargs = %s\nenv = { OPENAI_API_KEY = %q }\n", bin, tomlStrings(model.providerArgs()), unusedAPIKey)
	if err := os.WriteFile(c.config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	id := c.chat("new", "--harness", "codex-acp", "--cwd", proj, "--dir", lib, "--dir", notes, "--json").ID
	p := c.promptInBackground("prompt", id, "hello from the chat")
	select {
	case <-p.done:
	case <-time.After(codexACPHang):
		t.Fatalf("the chat's first prompt did not end within %v\nstdout %q\nstderr %q", codexACPHang, p.stdout.String(), p.stderr.String())
	}
	if p.code != 0 || !strings.Contains(p.stdout.String(), "ok") {
		t.Fatalf("prompt: exit %d\nstdout %q\nstderr %q", p.code, p.stdout.String(), p.stderr.String())
	}
	if j := c.chat("show", id, "--json"); j.AgentSessionID == "" || j.FoldersVia != "note" || j.FoldersViaExpected {
		t.Fatalf("after its first start the chat has session %q, folders via %q (expected %v); want a session and note", j.AgentSessionID, j.FoldersVia, j.FoldersViaExpected)
	}

	// The command line: the folders as writable roots, each a TOML
	// string, in the sandbox that takes them.
	argv := harnessArgv(t, c.home, id)
	wantTail := []string{
		"-c", `sandbox_mode="workspace-write"`,
		"-c", `sandbox_workspace_write.writable_roots=["` + c.root + `/lib \"quoted\"", "` + c.root + `/back\\slash ünï ✓"]`,
	}
	if want := append(append([]string{bin}, model.providerArgs()...), wantTail...); !slices.Equal(argv, want) {
		t.Fatalf("codex-acp's command line\n got %q\nwant %q", argv, want)
	}
	// What Codex made of it: its sandbox lets it write the chat's folder
	// and both folders, and the model was told of them in the note too.
	req := model.requestWith(t, "hello from the chat")
	if w := writableNow(t, req); !slices.Contains(w, proj) || !slices.Contains(w, lib) || !slices.Contains(w, notes) {
		t.Fatalf("Codex's sandbox lets it write %q; want %s, %s and %s among them", w, proj, lib, notes)
	}
	note := strings.Join(req.texts("user"), "\n")
	if !strings.Contains(note, "[acpmux-tui] Besides the working folder") || !strings.Contains(note, lib) || !strings.Contains(note, notes) {
		t.Fatalf("the first prompt lacks the folders' note:\n%s", note)
	}
	c.ok("kill-server")

	// The same command line, run here: it answers authenticate and
	// session/new in the mode whose sandbox takes the roots ("auto"), and
	// a change of mode to read-only and back has the roots again.
	again := runCodexACP(t, argv, env, proj)
	again.authenticate(t)
	var sess sdk.NewSessionResponse
	again.call(t, "session/new", func(ctx context.Context) (err error) {
		sess, err = again.NewSession(ctx, sdk.NewSessionRequest{Cwd: proj, McpServers: []sdk.McpServer{}})
		return err
	})
	if sess.Modes == nil || sess.Modes.CurrentModeId != "auto" {
		t.Fatalf("session/new's mode %+v, want auto (workspace-write)", sess.Modes)
	}
	// Each mode's sandbox shows in the environment context of the turn
	// after it: none of the folders in read-only, both again in auto.
	for _, step := range []struct {
		mode     sdk.SessionModeId
		prompt   string
		writable bool
	}{{"read-only", "in read-only", false}, {"auto", "after read-only and back", true}} {
		again.call(t, "session/set_mode "+string(step.mode), func(ctx context.Context) error {
			_, err := again.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: step.mode})
			return err
		})
		again.call(t, "session/prompt in "+string(step.mode), func(ctx context.Context) error {
			_, err := again.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(step.prompt)}})
			return err
		})
		w := writableNow(t, model.requestWith(t, step.prompt))
		if slices.Contains(w, lib) != step.writable || slices.Contains(w, notes) != step.writable {
			want := map[bool]string{true: "both", false: "neither"}[step.writable]
			t.Fatalf("in mode %s Codex's sandbox lets it write %q; want %s of %s and %s", step.mode, w, want, lib, notes)
		}
	}
}

// realCodexCLI returns the native binary of the real Codex CLI installed by
// scripts/test in .peers/ (@openai/codex's optional dependency for this
// platform), or skips (fails under ACPMUX_REQUIRE_PEERS=1).
func realCodexCLI(t *testing.T) string {
	t.Helper()
	native, _ := filepath.Glob(filepath.Join(moduleRoot, ".peers", "node_modules", "@openai", "codex-*", "vendor", "*", "bin", "codex"))
	for _, bin := range native {
		if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return bin
		}
	}
	acpschema.SkipUnlessPeers(t, "the real Codex CLI is not installed in .peers/ (scripts/test installs @openai/codex@0.169.0, whose optional dependency brings the binary for this platform)")
	return ""
}

// TestE2ECodexAddDirIsWritableRoots: the folders a Codex chat in a
// terminal gets, --add-dir in the workspace-write sandbox, are Codex's
// writable roots, besides those of the user's own config. (`codex exec`
// takes the options the terminal's `codex` does, and prints its answer.)
func TestE2ECodexAddDirIsWritableRoots(t *testing.T) {
	bin := realCodexCLI(t)
	c := newCLI(t)
	model := startResponsesServer(t)
	proj := c.dir("app")
	lib, notes, cache := c.dir(`lib "quoted"`), c.dir(`back\slash ünï ✓`), c.dir("cache")
	home := filepath.Join(c.root, "user")
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	own := fmt.Sprintf("[sandbox_workspace_write]\nwritable_roots = [%q]\n", cache)
	if err := os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte(own), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"exec", "--skip-git-repo-check", "--sandbox", "workspace-write", "--add-dir", lib, "--add-dir", notes}, model.providerArgs()...)
	ctx, cancel := context.WithTimeout(context.Background(), codexACPHang)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, "hello from codex exec")...)
	cmd.Env = []string{"HOME=" + home, "OPENAI_API_KEY=" + unusedAPIKey, "PATH=/usr/bin:/bin"}
	cmd.Dir = proj
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("codex exec did not end within %v\n%s", codexACPHang, out)
	}
	if err != nil {
		t.Fatalf("codex exec: %v\n%s", err, out)
	}
	w := writableNow(t, model.requestWith(t, "hello from codex exec"))
	for _, d := range []string{proj, lib, notes, cache} {
		if !slices.Contains(w, d) {
			t.Fatalf("Codex's sandbox lets it write %q; want %s among them", w, d)
		}
	}
}
