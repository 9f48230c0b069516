package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// These tests run the real binary's `hook` as Claude Code and Codex run it:
// it must exit 0 and print nothing whatever happens, and the one request it
// sends must be exactly right.

// hookChat is the chat id the hooks report for.
const hookChat = "k3x9q2"

// hookEnv is what a harness of chat hookChat in agent home home gives its
// hooks (nothing more: no config, no HOME).
func hookEnv(home string) []string {
	// The hung-server marker (internal/hookearly) goes in the test's own
	// folder, not /tmp.
	return []string{harness.EnvChatID + "=" + hookChat, harness.EnvHome + "=" + home, "PATH=/usr/bin:/bin", "TMPDIR=" + home}
}

// hookRun is one run of `acpmux-tui hook` under way.
type hookRun struct {
	t              *testing.T
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{}
}

// startHook starts `acpmux-tui hook ARGS` with env and stdin.
func startHook(t *testing.T, env []string, stdin io.Reader, args ...string) *hookRun {
	t.Helper()
	h := &hookRun{t: t, cmd: exec.Command(binary, append([]string{"hook"}, args...)...), done: make(chan struct{})}
	h.cmd.Env, h.cmd.Stdin = env, stdin
	h.cmd.Stdout, h.cmd.Stderr = &h.stdout, &h.stderr
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { h.cmd.Wait(); close(h.done) }()
	t.Cleanup(func() { h.cmd.Process.Kill(); <-h.done })
	return h
}

// exited reports whether the run has ended.
func (h *hookRun) exited() bool {
	select {
	case <-h.done:
		return true
	default:
		return false
	}
}

// silent waits for the run to end and fails unless it exited 0 having
// printed nothing.
func (h *hookRun) silent() {
	h.t.Helper()
	select {
	case <-h.done:
	case <-time.After(wait.Hang):
		h.t.Fatalf("acpmux-tui %q did not exit", h.cmd.Args[1:])
	}
	if code := h.cmd.ProcessState.ExitCode(); code != 0 || h.stdout.Len() > 0 || h.stderr.Len() > 0 {
		h.t.Fatalf("acpmux-tui %q exited %d\nstdout: %q\nstderr: %q", h.cmd.Args[1:], code, h.stdout.String(), h.stderr.String())
	}
}

// hookSilent runs `acpmux-tui hook ARGS` to its end, which must be exit 0
// and nothing printed.
func hookSilent(t *testing.T, env []string, stdin io.Reader, args ...string) {
	t.Helper()
	startHook(t, env, stdin, args...).silent()
}

// hookHome returns a new agent home, with a short path as a real one has
// (a long one reaches its socket through proto.ShortAddr, on both sides).
func hookHome(t *testing.T) string {
	t.Helper()
	home, err := os.MkdirTemp("", "hook")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	return home
}

// How a hookListener answers.
const (
	answerResult = iota // {"result":{}}
	answerError         // method not found, as a server without the method
	answerNever         // reads the line, never answers
	answerHeld          // answers once release is closed
)

// hookListener stands in for the server: a plain unix listener on the
// agent home's socket that records each line it reads and answers it.
type hookListener struct {
	mode    int
	release chan struct{} // answerHeld: closed to answer
	stop    chan struct{} // closed at the test's end
	mu      sync.Mutex
	lines   []string
}

func newHookListener(t *testing.T, home string, mode int) *hookListener {
	t.Helper()
	addr, done, err := proto.ShortAddr(proto.SocketPath(home))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", addr)
	done()
	if err != nil {
		t.Fatal(err)
	}
	l := &hookListener{mode: mode, release: make(chan struct{}), stop: make(chan struct{})}
	var running sync.WaitGroup
	running.Add(1)
	go func() {
		defer running.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			running.Add(1)
			go func() { defer running.Done(); defer nc.Close(); l.serve(nc) }()
		}
	}()
	t.Cleanup(func() { close(l.stop); ln.Close(); running.Wait() })
	return l
}

func (l *hookListener) serve(nc net.Conn) {
	go func() { <-l.stop; nc.Close() }()
	r := bufio.NewReader(nc)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		l.mu.Lock()
		l.lines = append(l.lines, strings.TrimSuffix(line, "\n"))
		l.mu.Unlock()
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal([]byte(line), &req)
		answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", req.ID)
		switch l.mode {
		case answerError:
			answer = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`+"\n", req.ID)
		case answerNever:
			continue
		case answerHeld:
			select {
			case <-l.release:
			case <-l.stop:
				return
			}
		}
		nc.Write([]byte(answer))
	}
}

func (l *hookListener) got() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

// hookLine is the request line `acpmux-tui hook` must send for params.
func hookLine(params string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"_acpmux/hook","params":` + params + `}`
}

// preToolUse is a typical PreToolUse event as Claude Code sends it.
const preToolUse = `{"session_id":"0b7c2f1e-5a4d-4c1e-9f3a-2d8e6b1c0a9f","transcript_path":"/home/u/.claude/projects/-home-u-proj/0b7c2f1e-5a4d-4c1e-9f3a-2d8e6b1c0a9f.jsonl","cwd":"/home/u/proj","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go test ./...","description":"Run the tests"},"tool_use_id":"toolu_01ABCDEF"}`

// TestHookSilentWithoutServer: with no server on the socket (none ever, or
// a stale socket file), every kind of hook exits 0 and prints nothing.
func TestHookSilentWithoutServer(t *testing.T) {
	home := hookHome(t)
	for _, stale := range []bool{false, true} {
		if stale {
			addr, done, _ := proto.ShortAddr(proto.SocketPath(home))
			ln, err := net.Listen("unix", addr)
			done()
			if err != nil {
				t.Fatal(err)
			}
			ln.(*net.UnixListener).SetUnlinkOnClose(false)
			ln.Close() // the socket file stays, with no one behind it
		}
		hookSilent(t, hookEnv(home), strings.NewReader(preToolUse), "PreToolUse")
		hookSilent(t, hookEnv(home), strings.NewReader(`{"notification_type":"permission_prompt"}`), "Notification")
		hookSilent(t, hookEnv(home), nil, harness.CodexHookEvent, `{"type":"agent-turn-complete"}`)
		hookSilent(t, hookEnv(filepath.Join(home, "missing")), strings.NewReader(preToolUse), "Stop")
	}
}

// TestHookSilentWithoutItsEnvironment: without ACPMUX_CHAT_ID or
// ACPMUX_HOME (a hook run outside acpmux-tui), or without an event, the
// hook exits 0, prints nothing and sends nothing, even with a server there.
func TestHookSilentWithoutItsEnvironment(t *testing.T) {
	home := hookHome(t)
	l := newHookListener(t, home, answerResult)
	for _, env := range [][]string{
		nil,
		{harness.EnvHome + "=" + home},
		{harness.EnvChatID + "=" + hookChat},
		{harness.EnvChatID + "=", harness.EnvHome + "=" + home},
	} {
		hookSilent(t, env, strings.NewReader(preToolUse), "PreToolUse")
		hookSilent(t, env, nil, harness.CodexHookEvent, `{"type":"agent-turn-complete"}`)
	}
	hookSilent(t, hookEnv(home), strings.NewReader(preToolUse))
	hookSilent(t, hookEnv(home), strings.NewReader(preToolUse), "")
	if got := l.got(); len(got) != 0 {
		t.Fatalf("the server got %q", got)
	}
}

// TestHookSendsExactlyTheRequest: what reaches the socket for each kind of
// event, whatever the server answers: the event from argv, a
// Notification's type and message from stdin (none from input that is not
// JSON), Codex's notification type from its last argument.
func TestHookSendsExactlyTheRequest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"pre tool use", preToolUse, []string{"PreToolUse"}, `{"id":"k3x9q2","event":"PreToolUse"}`},
		{"notification", `{"session_id":"s","hook_event_name":"Notification","message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}`,
			[]string{"Notification"}, `{"id":"k3x9q2","event":"Notification","notificationType":"permission_prompt","message":"Claude needs your permission to use Bash"}`},
		{"older notification", `{"hook_event_name":"Notification","message":"Claude is waiting for your input"}`,
			[]string{"Notification"}, `{"id":"k3x9q2","event":"Notification","message":"Claude is waiting for your input"}`},
		{"garbage", "\x00\xff{{not json", []string{"Notification"}, `{"id":"k3x9q2","event":"Notification"}`},
		{"no stdin", "", []string{"Stop"}, `{"id":"k3x9q2","event":"Stop"}`},
		{"codex", "", []string{harness.CodexHookEvent, `{"type":"agent-turn-complete","thread-id":"t","turn-id":"1","cwd":"/w","input-messages":["hi"],"last-assistant-message":"done"}`},
			`{"id":"k3x9q2","event":"codex-notify","payload":"agent-turn-complete"}`},
		{"codex garbage", "", []string{harness.CodexHookEvent, "not json"}, `{"id":"k3x9q2","event":"codex-notify"}`},
		{"codex without payload", "", []string{harness.CodexHookEvent}, `{"id":"k3x9q2","event":"codex-notify"}`},
	} {
		for _, mode := range []int{answerResult, answerError} {
			t.Run(fmt.Sprintf("%s/answer%d", tc.name, mode), func(t *testing.T) {
				home := hookHome(t)
				l := newHookListener(t, home, mode)
				hookSilent(t, hookEnv(home), strings.NewReader(tc.stdin), tc.args...)
				if got, want := l.got(), []string{hookLine(tc.want)}; !slices.Equal(got, want) {
					t.Fatalf("the server got\n%q\nwant\n%q", got, want)
				}
			})
		}
	}
}

// TestHookHugeStdin: a PostToolUse whose input is 20 MB (a tool's whole
// output) is read to its end and reported, with a server and without.
func TestHookHugeStdin(t *testing.T) {
	huge := []byte(`{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":{"stdout":"` + strings.Repeat("x", 20<<20) + `"}}`)
	home := hookHome(t)
	hookSilent(t, hookEnv(home), bytes.NewReader(huge), "PostToolUse")
	l := newHookListener(t, home, answerResult)
	hookSilent(t, hookEnv(home), bytes.NewReader(huge), "PostToolUse")
	hookSilent(t, hookEnv(home), bytes.NewReader(huge), "Notification")
	want := []string{hookLine(`{"id":"k3x9q2","event":"PostToolUse"}`), hookLine(`{"id":"k3x9q2","event":"Notification"}`)}
	if got := l.got(); !slices.Equal(got, want) {
		t.Fatalf("the server got %q, want %q", got, want)
	}
}

// TestHookStdinLeftOpen: stdin that is never closed, as a terminal's. Codex's
// notify program never reads it (what waits in it is still there after);
// a Claude Code hook whose stdin never ends still reports and exits.
func TestHookStdinLeftOpen(t *testing.T) {
	home := hookHome(t)
	l := newHookListener(t, home, answerResult)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := w.WriteString("typed"); err != nil {
		t.Fatal(err)
	}
	hookSilent(t, hookEnv(home), r, harness.CodexHookEvent, `{"type":"agent-turn-complete"}`)
	hookSilent(t, hookEnv(filepath.Join(home, "missing")), r, harness.CodexHookEvent, `{"type":"agent-turn-complete"}`)
	w.WriteString(" more")
	w.Close()
	left, err := io.ReadAll(r)
	if err != nil || string(left) != "typed more" {
		t.Fatalf("the terminal's input after codex-notify: %q, %v; want it untouched", left, err)
	}

	r2, w2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	defer w2.Close()
	w2.WriteString(`{"hook_event_name":"Notification","notification_type":"permission_prompt"}`)
	hookSilent(t, hookEnv(home), r2, "Stop")
	hookSilent(t, hookEnv(home), r2, "Notification")
	want := []string{
		hookLine(`{"id":"k3x9q2","event":"codex-notify","payload":"agent-turn-complete"}`),
		hookLine(`{"id":"k3x9q2","event":"Stop"}`),
		hookLine(`{"id":"k3x9q2","event":"Notification"}`),
	}
	if got := l.got(); !slices.Equal(got, want) {
		t.Fatalf("the server got %q, want %q", got, want)
	}
}

// TestHookWaitsForTheAnswer: the hook exits only once the server has
// answered (so the next hook's report comes after), and gives up, still
// silent, on a server that never answers.
func TestHookWaitsForTheAnswer(t *testing.T) {
	home := hookHome(t)
	l := newHookListener(t, home, answerHeld)
	h := startHook(t, hookEnv(home), strings.NewReader(preToolUse), "PreToolUse")
	wait.Until(t, "the request to arrive", func() bool { return len(l.got()) == 1 })
	if h.exited() {
		t.Fatal("the hook exited before the server answered")
	}
	close(l.release)
	h.silent()

	mute := hookHome(t)
	m := newHookListener(t, mute, answerNever)
	hookSilent(t, hookEnv(mute), strings.NewReader(preToolUse), "PreToolUse")
	if len(m.got()) != 1 {
		t.Fatalf("the mute server got %q", m.got())
	}
}

// TestHookAgainstTheServer: the real server, whatever it answers, and a
// chat it does not know: silent, exit 0, and the server still serves.
func TestHookAgainstTheServer(t *testing.T) {
	c := newCLI(t)
	startForeground(t, c)
	hookSilent(t, hookEnv(c.home), strings.NewReader(preToolUse), "PreToolUse")
	hookSilent(t, hookEnv(c.home), nil, harness.CodexHookEvent, `{"type":"agent-turn-complete"}`)
	var h proto.HelloResult
	srvCall(t, c.home, proto.MethodHello, nil, &h)
}

// TestHookThroughFakeHarnesses: the fake harnesses started with the argv
// and environment BuildLaunch gives a claude and a codex chat run the hook
// as Claude Code and Codex would: every event reaches the server in order,
// and every hook run exits 0 with no output. The user's own hook keeps
// running beside ours.
func TestHookThroughFakeHarnesses(t *testing.T) {
	fake := buildFakeHarness(t)
	root := t.TempDir()
	bin, user, proj := filepath.Join(root, "bin"), filepath.Join(root, "user"), filepath.Join(root, "proj")
	for _, d := range []string{bin, filepath.Join(user, ".claude"), proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"claude", "codex"} {
		if err := os.Symlink(fake, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	userHook := filepath.Join(root, "user-hook-ran")
	settings := fmt.Sprintf(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo ran >> %s"}]}],`+
		`"Notification":[{"matcher":"idle_prompt","hooks":[{"type":"command","command":"echo idle >> %s"}]}]}}`, userHook, userHook)
	if err := os.WriteFile(filepath.Join(user, ".claude", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	home := hookHome(t)
	l := newHookListener(t, home, answerResult)
	path := bin + ":/usr/bin:/bin"
	launch := func(kind string) harness.Launch {
		i := slices.IndexFunc(harness.Builtins(), func(s harness.Spec) bool { return s.Name == kind })
		spec := harness.Builtins()[i]
		l, err := spec.BuildLaunch(&sessions.Meta{ID: hookChat, Cwd: proj}, harness.LaunchOptions{
			Getenv:       func(k string) string { return map[string]string{"PATH": path, "HOME": user}[k] },
			Environ:      []string{"PATH=" + path, "HOME=" + user},
			NewSessionID: func() string { return "0b7c2f1e-5a4d-4c1e-9f3a-2d8e6b1c0a9f" },
			Self:         binary, Home: home,
		})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	runFake := func(l harness.Launch, rec, input string) string {
		cmd := exec.Command(l.Path, l.Argv[1:]...)
		cmd.Args[0] = l.Argv[0]
		cmd.Env, cmd.Dir = append(l.Env, "ACPMUX_FAKE_RECORD="+rec), l.Dir
		cmd.Stdin = strings.NewReader(input)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", l, err, out)
		}
		return string(out)
	}

	events := []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "Notification permission_prompt", "PostToolUse", "Stop", "SessionEnd"}
	var input strings.Builder
	for _, ev := range events {
		input.WriteString("hook " + ev + "\n")
	}
	rec := filepath.Join(root, "claude.jsonl")
	if out := runFake(launch("claude"), rec, input.String()); !strings.Contains(out, "hooked: SessionEnd") {
		t.Fatalf("the fake claude printed %q", out)
	}
	out := runFake(launch("codex"), filepath.Join(root, "codex.jsonl"), "notify agent-turn-complete\n")
	if !strings.Contains(out, "notified: agent-turn-complete") {
		t.Fatalf("the fake codex printed %q", out)
	}

	var want []string
	for _, ev := range strings.Fields(strings.Join(events, " ")) {
		switch ev {
		case "permission_prompt":
		case "Notification":
			want = append(want, hookLine(`{"id":"k3x9q2","event":"Notification","notificationType":"permission_prompt","message":"Claude needs your permission to use Bash"}`))
		default:
			want = append(want, hookLine(`{"id":"k3x9q2","event":"`+ev+`"}`))
		}
	}
	want = append(want, hookLine(`{"id":"k3x9q2","event":"codex-notify","payload":"agent-turn-complete"}`))
	if got := l.got(); !slices.Equal(got, want) {
		t.Fatalf("the server got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	runs := fakeHookRuns(t, rec+".hooks")
	runs = append(runs, fakeHookRuns(t, filepath.Join(root, "codex.jsonl.hooks"))...)
	if len(runs) != len(events)+2 { // ours for each event, the user's PreToolUse, the notify program
		t.Fatalf("%d hook runs recorded, want %d: %+v", len(runs), len(events)+2, runs)
	}
	for _, r := range runs {
		if r.Exit != 0 || r.OutputBytes != 0 || r.Err != "" {
			t.Errorf("hook run %+v: want exit 0 and no output", r)
		}
	}
	if b, err := os.ReadFile(userHook); err != nil || string(b) != "ran\n" {
		t.Fatalf("the user's own hooks: %q, %v; want one PreToolUse run", b, err)
	}
}

// fakeHookRun is a line of the fake harness's hook record.
type fakeHookRun struct {
	Event       string `json:"event"`
	Command     string `json:"command"`
	Exit        int    `json:"exit"`
	Err         string `json:"err"`
	OutputBytes int    `json:"outputBytes"`
	Output      string `json:"output"`
}

func fakeHookRuns(t *testing.T, path string) []fakeHookRun {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var runs []fakeHookRun
	for line := range strings.Lines(string(b)) {
		var r fakeHookRun
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		runs = append(runs, r)
	}
	return runs
}

// TestHookPassesCodexNotifyOn: a Codex chat's hook runs the notify program
// of the user's own Codex config, which `-c notify=` replaced, with the
// notification as its last argument, and is still silent.
func TestHookPassesCodexNotifyOn(t *testing.T) {
	home := hookHome(t)
	l := newHookListener(t, home, answerResult)
	out := filepath.Join(t.TempDir(), "theirs")
	own, err := json.Marshal([]string{"/bin/sh", "-c", `printf '%s' "$1" > "$0.tmp" && mv "$0.tmp" "$0"`, out})
	if err != nil {
		t.Fatal(err)
	}
	note := `{"type":"agent-turn-complete","turn-id":"7"}`
	hookSilent(t, append(hookEnv(home), harness.EnvCodexNotify+"="+string(own)), nil, harness.CodexHookEvent, note)
	var got []byte
	wait.Until(t, "the user's notify program", func() bool { got, err = os.ReadFile(out); return err == nil })
	if string(got) != note {
		t.Fatalf("the user's notify program got %q, want %q", got, note)
	}
	if want := []string{hookLine(`{"id":"k3x9q2","event":"codex-notify","payload":"agent-turn-complete"}`)}; !slices.Equal(l.got(), want) {
		t.Fatalf("the server got %q, want %q", l.got(), want)
	}
}
