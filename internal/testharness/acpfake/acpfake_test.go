package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/startrecord"
	"github.com/coder/acp-go-sdk"
)

func TestInitializeAdvertisesWhatTheEnvironmentSays(t *testing.T) {
	tests := []struct {
		name                     string
		env                      []string
		dirs, load, resume, fork bool
		authMethods              int
		rawHasDirsCapability     bool
	}{
		{name: "defaults", load: true},
		{name: "additionalDirectories", env: []string{"ACPMUX_FAKE_ADVERTISE=1"}, dirs: true, load: true, rawHasDirsCapability: true},
		{name: "no load, resume and fork", env: []string{"ACPMUX_FAKE_LOAD=0", "ACPMUX_FAKE_RESUME=1", "ACPMUX_FAKE_FORK=1"}, resume: true, fork: true},
		{name: "auth", env: []string{"ACPMUX_FAKE_AUTH=1"}, load: true, authMethods: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			f := newFiles(t)
			p := start(t, ctx, f, tt.env...)
			resp := p.initialize(ctx)
			sc := resp.AgentCapabilities.SessionCapabilities
			got := []bool{sc.AdditionalDirectories != nil, resp.AgentCapabilities.LoadSession, sc.Resume != nil, sc.Fork != nil}
			want := []bool{tt.dirs, tt.load, tt.resume, tt.fork}
			if !slices.Equal(got, want) {
				t.Errorf("additionalDirectories, loadSession, resume, fork = %v, want %v", got, want)
			}
			if len(resp.AuthMethods) != tt.authMethods {
				t.Errorf("authMethods = %+v, want %d", resp.AuthMethods, tt.authMethods)
			}
			p.stop(ctx)
			// On the wire: the capability is {} when advertised, absent otherwise.
			sent := wireLines(t, f.sent)
			if len(sent) != 1 {
				t.Fatalf("sent %d lines, want the initialize response only: %s", len(sent), sent)
			}
			if has := strings.Contains(string(sent[0]), `"additionalDirectories":{}`); has != tt.rawHasDirsCapability {
				t.Errorf("initialize result %s: has additionalDirectories {} = %v, want %v", sent[0], has, tt.rawHasDirsCapability)
			}
			if !tt.dirs && strings.Contains(string(sent[0]), "additionalDirectories") {
				t.Errorf("initialize result mentions additionalDirectories though not advertised: %s", sent[0])
			}
		})
	}
}

func TestRecordsEachStartAndLogsToStderr(t *testing.T) {
	ctx := testContext(t)
	f := newFiles(t)
	p := start(t, ctx, f, "ACPMUX_TEST_MARKER=yes")
	p.initialize(ctx)
	p.stop(ctx)

	lines := wireLines(t, f.record)
	if len(lines) != 1 {
		t.Fatalf("record has %d lines, want 1", len(lines))
	}
	var rec startrecord.Record
	if err := json.Unmarshal(lines[0], &rec); err != nil {
		t.Fatal(err)
	}
	if want := []string{fakeBin, "--flag", "arg"}; !slices.Equal(rec.Argv, want) {
		t.Errorf("argv = %q, want %q", rec.Argv, want)
	}
	wantCwd, _ := filepath.EvalSymlinks(f.dir)
	gotCwd, _ := filepath.EvalSymlinks(rec.Cwd)
	if gotCwd != wantCwd {
		t.Errorf("cwd = %q, want %q", rec.Cwd, f.dir)
	}
	if !slices.Contains(rec.Env, "ACPMUX_TEST_MARKER=yes") {
		t.Errorf("env lacks the marker: %q", rec.Env)
	}
	if rec.Pid != p.cmd.Process.Pid {
		t.Errorf("pid = %d, want %d", rec.Pid, p.cmd.Process.Pid)
	}
	if !strings.Contains(p.stderr.String(), "acpfake: starting pid") {
		t.Errorf("stderr lacks the startup log line:\n%s", p.stderr)
	}
	if strings.Contains(p.log.String(), "failed to parse") {
		t.Errorf("stdout carried something that is not protocol:\n%s", p.log)
	}
}

func TestSessionSetupChecksFolders(t *testing.T) {
	abs1, abs2 := t.TempDir(), t.TempDir()
	tests := []struct {
		name      string
		advertise bool
		cwd       string // "" means the test's folder
		dirs      []string
		wantCode  int
		wantMsg   string
		wantWire  string // the additionalDirectories JSON on the wire; "" for absent
	}{
		{name: "advertised, two folders", advertise: true, dirs: []string{abs1, abs2}, wantWire: mustJSON([]string{abs1, abs2})},
		{name: "advertised, empty list is left out by the SDK", advertise: true, dirs: []string{}},
		{name: "advertised, relative entry", advertise: true, dirs: []string{abs1, "rel/dir"}, wantCode: -32602, wantMsg: "additionalDirectories[1]", wantWire: mustJSON([]string{abs1, "rel/dir"})},
		{name: "withheld, field sent anyway", dirs: []string{abs1}, wantCode: -32602, wantMsg: "additionalDirectories not supported", wantWire: mustJSON([]string{abs1})},
		{name: "withheld, field absent"},
		{name: "relative cwd", cwd: "relative", wantCode: -32602, wantMsg: "cwd must be an absolute path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			f := newFiles(t)
			var env []string
			if tt.advertise {
				env = append(env, "ACPMUX_FAKE_ADVERTISE=1")
			}
			p := start(t, ctx, f, env...)
			p.initialize(ctx)
			cwd := tt.cwd
			if cwd == "" {
				cwd = f.dir
			}
			_, err := p.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}, AdditionalDirectories: tt.dirs})
			if code := requestCode(err); code != tt.wantCode {
				t.Fatalf("session/new error %v, want code %d", err, tt.wantCode)
			}
			if tt.wantMsg != "" && !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("session/new error %v, want it to say %q", err, tt.wantMsg)
			}
			p.stop(ctx)
			reqs := requestsFor(t, f.wire, acp.AgentMethodSessionNew)
			if len(reqs) != 1 {
				t.Fatalf("wire has %d session/new requests, want 1", len(reqs))
			}
			if got := string(reqs[0]["additionalDirectories"]); got != tt.wantWire {
				t.Errorf("additionalDirectories on the wire = %q, want %q", got, tt.wantWire)
			}
		})
	}
}

func TestLoadResumeAndForkAcrossProcesses(t *testing.T) {
	ctx := testContext(t)
	f := newFiles(t)
	d1, d2 := t.TempDir(), t.TempDir()
	env := []string{"ACPMUX_FAKE_ADVERTISE=1", "ACPMUX_FAKE_RESUME=1", "ACPMUX_FAKE_FORK=1"}

	p1 := start(t, ctx, f, env...)
	p1.initialize(ctx)
	sid := p1.newSession(ctx, f.dir, []string{d1})
	if stop, text := p1.prompt(ctx, sid, "hello"); stop != acp.StopReasonEndTurn || text != "echo: hello" {
		t.Fatalf("prompt hello = %s %q", stop, text)
	}
	mark := p1.client.count()
	if stop, _ := p1.prompt(ctx, sid, "first line\nthink"); stop != acp.StopReasonEndTurn {
		t.Fatalf("prompt think stop = %s", stop)
	}
	if got, want := describe(p1.client.since(mark)), []string{"thought:pondering", "agent:echo: first line\nthink"}; !slices.Equal(got, want) {
		t.Fatalf("think updates = %q, want %q", got, want)
	}
	p1.stop(ctx)

	// A second process loads the session: the history is replayed, in
	// order, before the load is answered.
	p2 := start(t, ctx, f, env...)
	p2.initialize(ctx)
	if _, err := p2.conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: sid, Cwd: f.dir,
		McpServers: []acp.McpServer{}, AdditionalDirectories: []string{d1, d2}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	want := []string{"user:hello", "agent:echo: hello", "user:first line\nthink", "agent:echo: first line\nthink"}
	if got := describe(p2.client.since(0)); !slices.Equal(got, want) {
		t.Fatalf("replay = %q, want %q", got, want)
	}
	if st := readState(t, f, sid); !slices.Equal(st.AdditionalDirectories, []string{d1, d2}) || len(st.History) != 2 {
		t.Errorf("state after load = %+v", st)
	}
	if stop, text := p2.prompt(ctx, sid, "again"); stop != acp.StopReasonEndTurn || text != "echo: again" {
		t.Fatalf("prompt after load = %s %q", stop, text)
	}

	// Resume reopens without replaying.
	mark = p2.client.count()
	if _, err := p2.conn.ResumeSession(ctx, acp.ResumeSessionRequest{SessionId: sid, Cwd: f.dir}); err != nil {
		t.Fatalf("session/resume: %v", err)
	}
	if n := p2.client.count() - mark; n != 0 {
		t.Errorf("resume sent %d updates, want none", n)
	}

	// Fork copies the history into a new session.
	fork, err := p2.conn.UnstableForkSession(ctx, acp.UnstableForkSessionRequest{SessionId: sid, Cwd: f.dir, AdditionalDirectories: []string{d2}})
	if err != nil {
		t.Fatalf("session/fork: %v", err)
	}
	if fork.SessionId == sid || fork.SessionId == "" {
		t.Fatalf("fork session id %q", fork.SessionId)
	}
	st := readState(t, f, fork.SessionId)
	if st.Parent != string(sid) || len(st.History) != 3 || !slices.Equal(st.AdditionalDirectories, []string{d2}) {
		t.Errorf("fork state = %+v", st)
	}
	if stop, text := p2.prompt(ctx, fork.SessionId, "forked"); stop != acp.StopReasonEndTurn || text != "echo: forked" {
		t.Fatalf("prompt in fork = %s %q", stop, text)
	}

	// An unknown session is refused.
	_, err = p2.conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: "fake-nosuch", Cwd: f.dir, McpServers: []acp.McpServer{}})
	if requestCode(err) != -32002 {
		t.Errorf("load of an unknown session: %v, want code -32002", err)
	}
	// So is a relative folder on load.
	_, err = p2.conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: sid, Cwd: f.dir, McpServers: []acp.McpServer{}, AdditionalDirectories: []string{"rel"}})
	if requestCode(err) != -32602 {
		t.Errorf("load with a relative folder: %v, want code -32602", err)
	}
	p2.stop(ctx)

	// Methods not advertised are not served.
	p3 := start(t, ctx, f, "ACPMUX_FAKE_LOAD=0")
	p3.initialize(ctx)
	for name, call := range map[string]func() error{
		"load": func() error {
			_, err := p3.conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: sid, Cwd: f.dir, McpServers: []acp.McpServer{}})
			return err
		},
		"resume": func() error {
			_, err := p3.conn.ResumeSession(ctx, acp.ResumeSessionRequest{SessionId: sid, Cwd: f.dir})
			return err
		},
		"fork": func() error {
			_, err := p3.conn.UnstableForkSession(ctx, acp.UnstableForkSessionRequest{SessionId: sid, Cwd: f.dir})
			return err
		},
	} {
		if err := call(); requestCode(err) != -32601 {
			t.Errorf("%s without the capability: %v, want code -32601", name, err)
		}
	}
}

func readState(t *testing.T, f files, id acp.SessionId) session {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(f.state, string(id)+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var s session
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPermissionRoundTrip(t *testing.T) {
	tests := []struct {
		name       string
		outcome    acp.RequestPermissionOutcome
		wantText   string
		wantStatus string
	}{
		{"allow", acp.NewRequestPermissionOutcomeSelected("allow_once"), "permission: allow_once", "completed"},
		{"reject", acp.NewRequestPermissionOutcomeSelected("reject_once"), "permission: reject_once", "failed"},
		{"cancelled", acp.NewRequestPermissionOutcomeCancelled(), "permission: cancelled", "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			f := newFiles(t)
			p := start(t, ctx, f)
			p.client.setAnswer(tt.outcome)
			p.initialize(ctx)
			sid := p.newSession(ctx, f.dir, nil)
			mark := p.client.count()
			stop, text := p.prompt(ctx, sid, "please\npermission")
			if stop != acp.StopReasonEndTurn || text != tt.wantText {
				t.Fatalf("prompt = %s %q, want end_turn %q", stop, text, tt.wantText)
			}
			want := []string{"tool_call:Fake tool:pending", "tool_call_update:" + tt.wantStatus, "agent:" + tt.wantText}
			if got := describe(p.client.since(mark)); !slices.Equal(got, want) {
				t.Errorf("updates = %q, want %q", got, want)
			}
			asked := p.client.permissionRequests()
			if len(asked) != 1 {
				t.Fatalf("asked %d times", len(asked))
			}
			var opts []string
			for _, o := range asked[0].Options {
				opts = append(opts, string(o.OptionId)+"/"+string(o.Kind)+"/"+o.Name)
			}
			if want := []string{"allow_once/allow_once/Allow", "reject_once/reject_once/Reject"}; !slices.Equal(opts, want) {
				t.Errorf("options = %q, want %q", opts, want)
			}
		})
	}
}

func TestFsRequests(t *testing.T) {
	ctx := testContext(t)
	f := newFiles(t)
	p := start(t, ctx, f)
	inside := filepath.Join(f.dir, "notes.txt")
	p.client.serve(inside, "hello file")
	p.initialize(ctx)
	sid := p.newSession(ctx, f.dir, nil)

	if _, text := p.prompt(ctx, sid, "read "+inside); text != "read: hello file" {
		t.Errorf("read inside = %q", text)
	}
	if _, text := p.prompt(ctx, sid, "read /etc/elsewhere"); text != "read error: outside the chat's folders: /etc/elsewhere" {
		t.Errorf("read outside = %q", text)
	}
	target := filepath.Join(f.dir, "out.txt")
	if _, text := p.prompt(ctx, sid, "write "+target+" some new content"); text != "wrote" {
		t.Errorf("write = %q", text)
	}
	if got := p.client.writtenTo(target); got != "some new content" {
		t.Errorf("client received write of %q", got)
	}
}

func TestToolPlanAndThink(t *testing.T) {
	ctx := testContext(t)
	f := newFiles(t)
	p := start(t, ctx, f)
	p.initialize(ctx)
	sid := p.newSession(ctx, f.dir, nil)
	for _, tt := range []struct {
		prompt string
		want   []string
	}{
		{"tool", []string{"tool_call:Fake tool:pending", "tool_call_update:in_progress", "tool_call_update:completed"}},
		{"plan", []string{"plan:2"}},
		{"think", []string{"thought:pondering", "agent:echo: think"}},
	} {
		mark := p.client.count()
		if stop, _ := p.prompt(ctx, sid, tt.prompt); stop != acp.StopReasonEndTurn {
			t.Errorf("%s: stop = %s", tt.prompt, stop)
		}
		if got := describe(p.client.since(mark)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: updates = %q, want %q", tt.prompt, got, tt.want)
		}
	}
}

func TestSlowTurnEndsOnCancel(t *testing.T) {
	ctx := testContext(t)
	f := newFiles(t)
	p := start(t, ctx, f)
	p.initialize(ctx)
	sid := p.newSession(ctx, f.dir, nil)
	type result struct {
		resp acp.PromptResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := p.conn.Prompt(ctx, acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("slow")}})
		done <- result{resp, err}
	}()
	if err := p.client.waitFor(ctx, func(u []acp.SessionNotification) bool { return agentText(u) == "working slowly" }); err != nil {
		t.Fatal(err)
	}
	if err := p.conn.Cancel(ctx, acp.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err != nil || r.resp.StopReason != acp.StopReasonCancelled {
			t.Fatalf("slow prompt = %+v, %v; want stopReason cancelled", r.resp, r.err)
		}
	case <-ctx.Done():
		t.Fatal("slow prompt did not end after session/cancel")
	}
}

func TestCrashMidTurn(t *testing.T) {
	ctx := testContext(t)
	f := newFiles(t)
	p := start(t, ctx, f)
	p.initialize(ctx)
	sid := p.newSession(ctx, f.dir, nil)
	_, err := p.conn.Prompt(ctx, acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("crash")}})
	if err == nil {
		t.Fatal("prompt crash returned no error")
	}
	if err := p.client.waitFor(ctx, func(u []acp.SessionNotification) bool { return agentText(u) == "about to crash" }); err != nil {
		t.Fatal(err)
	}
	werr := p.wait(ctx)
	if p.cmd.ProcessState.ExitCode() != 3 {
		t.Fatalf("exit = %v, want status 3", werr)
	}
}

func TestGarbageLineIsSkippedByTheSDK(t *testing.T) {
	ctx := testContext(t)
	f := newFiles(t)
	p := start(t, ctx, f)
	p.initialize(ctx)
	sid := p.newSession(ctx, f.dir, nil)
	if stop, text := p.prompt(ctx, sid, "garbage"); stop != acp.StopReasonEndTurn || text != "echo: garbage" {
		t.Fatalf("prompt garbage = %s %q", stop, text)
	}
	if !strings.Contains(p.log.String(), "failed to parse incoming message") {
		t.Errorf("the SDK client did not log the malformed line:\n%s", p.log)
	}
}

func TestHugeLineEndsTheSDKConnection(t *testing.T) {
	ctx := testContext(t)
	f := newFiles(t)
	p := start(t, ctx, f)
	p.initialize(ctx)
	sid := p.newSession(ctx, f.dir, nil)
	_, err := p.conn.Prompt(ctx, acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock("huge")}})
	if err == nil {
		t.Fatal("prompt huge returned no error")
	}
	select {
	case <-p.conn.Done():
	case <-ctx.Done():
		t.Fatal("the SDK connection survived a 20 MiB line")
	}
}

func TestAuthRequired(t *testing.T) {
	ctx := testContext(t)
	f := newFiles(t)
	p := start(t, ctx, f, "ACPMUX_FAKE_AUTH=1")
	resp := p.initialize(ctx)
	if len(resp.AuthMethods) != 1 || resp.AuthMethods[0].Agent == nil {
		t.Fatalf("authMethods = %+v", resp.AuthMethods)
	}
	m := resp.AuthMethods[0].Agent
	if m.Id != "fake-login" || m.Name != "Log in" || m.Description == nil || *m.Description != "Run `fake login` in a terminal" {
		t.Errorf("auth method = %+v", m)
	}
	_, err := p.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: f.dir, McpServers: []acp.McpServer{}})
	if requestCode(err) != -32000 {
		t.Fatalf("session/new before login: %v, want auth_required -32000", err)
	}
	_, err = p.conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: "fake-x", Cwd: f.dir, McpServers: []acp.McpServer{}})
	if requestCode(err) != -32000 {
		t.Fatalf("session/load before login: %v, want auth_required -32000", err)
	}
	if _, err := p.conn.Authenticate(ctx, acp.AuthenticateRequest{MethodId: "fake-login"}); err != nil {
		t.Fatalf("authenticate: %v", err)
	}
	p.newSession(ctx, f.dir, nil)
}
