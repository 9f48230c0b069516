package server

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/internal/testharness/doorclient"
	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	sdk "github.com/coder/acp-go-sdk"
)

// doorClient dials the rig's socket and speaks ACP on it with the SDK's
// client side, every message checked against the pinned schema.
func (r *rig) doorClient(v *acpschema.Validator) *doorclient.Client {
	r.t.Helper()
	nc, err := net.Dial("unix", proto.SocketPath(r.home))
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { nc.Close() })
	return doorclient.New(nc, nc, v)
}

// ctx is a context that ends with the test's hang deadline.
func hangCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
	t.Cleanup(cancel)
	return ctx
}

func initDoor(t *testing.T, c *doorclient.Client) sdk.InitializeResponse {
	t.Helper()
	resp, err := c.Initialize(hangCtx(t), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return resp
}

func TestDoorInitializeSaysWhatTheDoorDoes(t *testing.T) {
	p := newPromptRig(t)
	c := p.doorClient(acpschema.ForTest(t))
	resp := initDoor(t, c)
	caps := resp.AgentCapabilities
	sc := caps.SessionCapabilities
	if resp.ProtocolVersion != 1 || !caps.LoadSession || sc.AdditionalDirectories == nil || sc.List == nil || sc.Resume == nil || sc.Fork == nil ||
		sc.Close == nil || sc.Delete == nil {
		t.Fatalf("initialize answered %+v", resp)
	}
	if pc := caps.PromptCapabilities; pc.Image || pc.Audio || pc.EmbeddedContext {
		t.Fatalf("prompt capabilities wider than the least: %+v", pc)
	}
	if resp.AgentInfo == nil || resp.AgentInfo.Name != "acpmux-tui" {
		t.Fatalf("agentInfo %+v", resp.AgentInfo)
	}
	// Initialized, the session methods answer.
	if _, err := c.ListSessions(hangCtx(t), sdk.ListSessionsRequest{}); err != nil {
		t.Fatalf("session/list: %v", err)
	}
	if err := c.Invalid(); err != nil {
		t.Fatal(err)
	}
}

func TestDoorSessionNewRefusesBadFoldersAndWritesNothing(t *testing.T) {
	p := newPromptRig(t)
	c := p.doorClient(acpschema.ForTest(t))
	initDoor(t, c)
	dirs := p.folders(2)
	proj := p.folders(1)[0]
	before := p.chatFiles()
	cases := []struct {
		name string
		cwd  string
		dirs []string
		bad  []int // the entries named, by index; nil for a cwd refusal
	}{
		{"relative, missing, repeated and NUL at once", proj,
			[]string{"rel/dir", dirs[0], filepath.Join(proj, "missing"), dirs[0] + "/", "/tmp/a\x00b", dirs[1]}, []int{0, 2, 3, 4}},
		{"the chat's own folder", proj, []string{proj}, []int{0}},
		{"inside the agent home", proj, []string{p.home}, []int{0}},
		{"relative cwd", "proj", nil, nil},
		{"missing cwd", filepath.Join(proj, "gone"), nil, nil},
	}
	for _, tc := range cases {
		_, err := c.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: tc.cwd, McpServers: []sdk.McpServer{}, AdditionalDirectories: tc.dirs})
		code, data, ok := doorclient.AsRefusal(err)
		if !ok || code != -32602 {
			t.Fatalf("%s: got %v, want -32602", tc.name, err)
		}
		var got []int
		for _, e := range data.Entries {
			got = append(got, e.Index)
		}
		if !slices.Equal(got, tc.bad) {
			t.Fatalf("%s: refusal names entries %v, want %v (%v)", tc.name, got, tc.bad, err)
		}
	}
	many := make([]string, 65)
	for i := range many {
		d := filepath.Join(t.TempDir(), "d")
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		many[i] = d
	}
	_, err := c.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: proj, McpServers: []sdk.McpServer{}, AdditionalDirectories: many})
	if code, _, _ := doorclient.AsRefusal(err); code != -32602 {
		t.Fatalf("65 folders: got %v, want -32602", err)
	}
	if after := p.chatFiles(); !slices.Equal(before, after) {
		t.Fatalf("a refused session/new wrote chat files: %v, then %v", before, after)
	}
	if err := c.Invalid(); err != nil {
		t.Fatal(err)
	}
}

func TestDoorChatPromptsListsAndLoads(t *testing.T) {
	p := newPromptRig(t)
	v := acpschema.ForTest(t)
	c := p.doorClient(v)
	initDoor(t, c)
	dirs := p.folders(1)
	proj := p.folders(1)[0]
	resp, err := c.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: proj, McpServers: []sdk.McpServer{}, AdditionalDirectories: dirs})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	id := string(resp.SessionId)
	m, err := p.store.Load(id)
	if err != nil {
		t.Fatalf("the session id is no chat: %v", err)
	}
	if m.Origin != sessions.OriginACP || m.Cwd != proj || !slices.Equal(m.AdditionalDirectories, dirs) || m.Harness != "fake" {
		t.Fatalf("chat file: %+v", m)
	}

	pr, err := c.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hello")}})
	if err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("session/prompt: %+v %v", pr, err)
	}
	// The fake does not advertise additionalDirectories: the folder note
	// heads the first prompt, and the echo says it back.
	if got := c.Text(id, "agent"); !strings.HasPrefix(got, "echo: ") || !strings.HasSuffix(got, "hello|") || !strings.Contains(got, dirs[0]) {
		t.Fatalf("the reply did not stream before the answer: %q", got)
	}
	if got := c.Text(id, "user"); got != "" {
		t.Fatalf("the prompting client was sent its own prompt back: %q", got)
	}

	// A pty chat is not listed; the ACP chat is, with its folders.
	var pty proto.ChatJSON
	p.dial().ok(proto.MethodNew, proto.NewParams{Harness: "shell"}, &pty)
	list, err := c.ListSessions(hangCtx(t), sdk.ListSessionsRequest{})
	if err != nil {
		t.Fatalf("session/list: %v", err)
	}
	var ids []string
	for _, s := range list.Sessions {
		ids = append(ids, string(s.SessionId))
		if string(s.SessionId) == id && (s.Cwd != proj || s.Title == nil || *s.Title != m.Name || !slices.Equal(s.AdditionalDirectories, dirs) || s.UpdatedAt == nil) {
			t.Fatalf("listed as %+v", s)
		}
	}
	if !slices.Contains(ids, id) || slices.Contains(ids, pty.ID) {
		t.Fatalf("session/list gave %v: want %s, not the pty chat %s", ids, id, pty.ID)
	}
	other := p.folders(1)[0]
	if list, err := c.ListSessions(hangCtx(t), sdk.ListSessionsRequest{Cwd: &other}); err != nil || len(list.Sessions) != 0 {
		t.Fatalf("session/list in another cwd: %+v %v", list, err)
	}

	// A second client loads the chat: the transcript first, then live.
	c2 := p.doorClient(v)
	initDoor(t, c2)
	if _, err := c2.LoadSession(hangCtx(t), sdk.LoadSessionRequest{SessionId: resp.SessionId, Cwd: proj, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load: %v", err)
	}
	if u, a := c2.Text(id, "user"), c2.Text(id, "agent"); !strings.Contains(u, "hello") || !strings.Contains(a, "hello|") {
		t.Fatalf("session/load replayed user %q, agent %q", u, a)
	}

	// A prompt from the TUI's side (_acpmux/prompt) reaches both clients.
	s := &stream{t: t, w: p.dial(), chat: id}
	s.observe()
	s.prompt("from the tui", false)
	waitFor(t, "the TUI's turn at both door clients", func() bool {
		return strings.Contains(c.Text(id, "agent"), "echo: from the tui") && strings.Contains(c2.Text(id, "agent"), "echo: from the tui") &&
			strings.Contains(c2.Text(id, "user"), "from the tui")
	})
	// And one from a door client reaches the TUI's stream.
	if _, err := c2.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("from c2")}}); err != nil {
		t.Fatalf("second client's prompt: %v", err)
	}
	s.until("c2's reply in the TUI's stream", func(e proto.ObservedEntry) bool {
		return e.Kind == proto.EntryAgent && strings.Contains(e.Text, "echo: from c2")
	})

	// A resume attaches without the replay.
	c3 := p.doorClient(v)
	initDoor(t, c3)
	if _, err := c3.ResumeSession(hangCtx(t), sdk.ResumeSessionRequest{SessionId: resp.SessionId, Cwd: proj}); err != nil {
		t.Fatalf("session/resume: %v", err)
	}
	if n := len(c3.Updates()); n != 0 {
		t.Fatalf("session/resume replayed %d updates", n)
	}
	for _, cl := range []*doorclient.Client{c, c2, c3} {
		if err := cl.Invalid(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDoorRefusesWhatItCannotDrive(t *testing.T) {
	p := newPromptRig(t)
	c := p.doorClient(acpschema.ForTest(t))
	initDoor(t, c)
	var pty proto.ChatJSON
	p.dial().ok(proto.MethodNew, proto.NewParams{Harness: "shell"}, &pty)
	proj := p.folders(1)[0]
	_, err := c.LoadSession(hangCtx(t), sdk.LoadSessionRequest{SessionId: sdk.SessionId(pty.ID), Cwd: proj, McpServers: []sdk.McpServer{}})
	if code, _, _ := doorclient.AsRefusal(err); code != -32602 {
		t.Fatalf("load of a pty chat: %v, want -32602", err)
	}
	_, err = c.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: "nosuch", Prompt: []sdk.ContentBlock{sdk.TextBlock("x")}})
	if code, _, _ := doorclient.AsRefusal(err); code != -32002 {
		t.Fatalf("prompt of no chat: %v, want -32002", err)
	}
	_, err = c.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: sdk.SessionId(p.chat), Prompt: []sdk.ContentBlock{sdk.ImageBlock("aGk=", "image/png")}})
	if code, _, _ := doorclient.AsRefusal(err); code != -32602 {
		t.Fatalf("an image prompt: %v, want -32602 (not advertised)", err)
	}
	_, err = c.SetSessionMode(hangCtx(t), sdk.SetSessionModeRequest{SessionId: sdk.SessionId(p.chat), ModeId: "x"})
	if code, _, _ := doorclient.AsRefusal(err); code != -32601 {
		t.Fatalf("session/set_mode: %v, want -32601", err)
	}
	if err := c.Invalid(); err != nil {
		t.Fatal(err)
	}
}

func TestAConnectionSpeaksWhatItsFirstCallSays(t *testing.T) {
	p := newPromptRig(t)
	// A connection that begins with _acpmux/hello speaks _acpmux/*: ACP's
	// methods are unknown there.
	w := p.dial()
	w.ok(proto.MethodHello, nil, nil)
	w.fails(proto.CodeMethodNotFound, "session/list", map[string]any{})
	// One that begins with initialize speaks ACP, and _acpmux/* too (a
	// page on the web door needs the list, screens and keys beside its
	// ACP sessions).
	a := p.dial()
	a.ok("initialize", map[string]any{"protocolVersion": 1}, nil)
	var list proto.ListResult
	a.ok(proto.MethodList, nil, &list)
	if len(list.Chats) != 1 {
		t.Fatalf("_acpmux/list on an ACP connection: %+v", list.Chats)
	}
	a.fails(proto.CodeMethodNotFound, "_acpmux/noSuchMethod", nil)
	// A malformed line is -32700 and the connection stays usable.
	a.send("{not json")
	if rep := a.read(); rep.Error == nil || rep.Error.Code != proto.CodeParseError {
		t.Fatalf("malformed line answered %+v", rep)
	}
	a.ok("session/list", map[string]any{}, nil)
}

// TestDoorPermissionGoesToThePromptingClient: a permission request of a
// turn a door client prompted is asked of that client, and its answer
// reaches the agent; when the TUI answers first, the TUI's answer wins and
// the client's, later, is dropped. A turn the TUI prompted asks no door
// client: its card waits for the TUI.
func TestDoorPermissionGoesToThePromptingClient(t *testing.T) {
	p := newPromptRig(t)
	v := acpschema.ForTest(t)
	c := p.doorClient(v)
	initDoor(t, c)
	proj := p.folders(1)[0]
	resp, err := c.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: proj, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	id := string(resp.SessionId)
	prompt := func(cl *doorclient.Client, text string) {
		t.Helper()
		if _, err := cl.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}}); err != nil {
			t.Fatalf("prompt %q: %v", text, err)
		}
	}
	c.Permit = func(_ context.Context, req sdk.RequestPermissionRequest) string {
		if len(req.Options) != 2 || req.ToolCall.ToolCallId == "" {
			t.Errorf("asked %+v", req)
		}
		return "allow_once"
	}
	prompt(c, "permission")
	if got := c.Text(id, "agent"); !strings.Contains(got, "permission: allow_once") {
		t.Fatalf("the agent heard %q, want the client's allow_once", got)
	}

	// The TUI answers first: the client's request is withdrawn
	// ($/cancel_request), and its answer, late, changes nothing.
	release := make(chan struct{})
	withdrawn := make(chan struct{})
	c.Permit = func(ctx context.Context, _ sdk.RequestPermissionRequest) string {
		select {
		case <-ctx.Done():
			close(withdrawn)
		case <-release:
		}
		return "allow_once"
	}
	c.Forget()
	done := make(chan struct{})
	go func() { defer close(done); prompt(c, "permission") }()
	waitFor(t, "the card in the mux", func() bool { return p.srv.opt.Mux.State(id).Permission != nil })
	waitFor(t, "the request at the door client", func() bool { return len(c.Asked()) == 2 })
	tui := p.dial()
	tui.ok(proto.MethodAnswerPermission, proto.AnswerPermissionParams{ID: id, OptionID: "reject_once"}, nil)
	<-done
	select {
	case <-withdrawn:
	case <-time.After(hangDeadline):
		t.Fatal("the door client's request was not withdrawn after the TUI answered")
	}
	close(release)
	if got := c.Text(id, "agent"); !strings.Contains(got, "permission: reject_once") {
		t.Fatalf("the agent heard %q, want the TUI's reject_once", got)
	}

	// A turn the TUI prompts: no door client is asked.
	s := &stream{t: t, w: p.dial(), chat: id}
	s.observe()
	pid := s.request(proto.MethodPrompt, proto.PromptParams{ID: id, Text: "permission"})
	waitFor(t, "the card of the TUI's turn", func() bool { return p.srv.opt.Mux.State(id).Permission != nil })
	s.call(proto.MethodAnswerPermission, proto.AnswerPermissionParams{ID: id, OptionID: "allow_once"}, nil)
	s.answer(pid)
	if n := len(c.Asked()); n != 2 {
		t.Fatalf("the door client was asked %d times, want 2 (not for the TUI's turn)", n)
	}
	if err := c.Invalid(); err != nil {
		t.Fatal(err)
	}
}

// newDoorRig is a server whose "fake" harness is the fake ACP agent with
// env added (ACPMUX_FAKE_STATE is set).
func newDoorRig(t *testing.T, env map[string]string) *rig {
	t.Helper()
	return newDoorRigWith(t, env, nil)
}

// newDoorRigWith is newDoorRig with more of the server's options set by
// more (when not nil).
func newDoorRigWith(t *testing.T, env map[string]string, more func(*Options)) *rig {
	t.Helper()
	fake := buildACPFake(t)
	state := t.TempDir()
	return newRig(t, rigOpt{opt: func(o *Options) {
		cfg := config.Defaults()
		e := map[string]string{"ACPMUX_FAKE_STATE": state}
		for k, v := range env {
			e[k] = v
		}
		cfg.DefaultACPHarness = "fake"
		cfg.Harness = map[string]config.HarnessConfig{"fake": {Command: fake, Transport: harness.TransportACP, Env: e}}
		table, err := harness.NewTable(cfg)
		if err != nil {
			t.Fatal(err)
		}
		o.Config, o.Table = cfg, table
		o.Mux = mux.New(mux.Options{Store: o.Store, Table: table, Config: cfg, Grace: 2 * time.Second, BackoffBase: time.Millisecond})
		o.WriteTimeout = hangDeadline
		if more != nil {
			more(o)
		}
	}})
}

// TestDoorForkAndMcpServers: session/new hands the client's mcpServers to
// the agent's session/new; session/fork is the TUI's fork (the parent's
// folders, origin fork) and the agent's own session/fork, whose history the
// fork's load replays.
func TestDoorForkAndMcpServers(t *testing.T) {
	wire := filepath.Join(t.TempDir(), "wire.jsonl")
	r := newDoorRig(t, map[string]string{"ACPMUX_FAKE_FORK": "1", "ACPMUX_FAKE_ADVERTISE": "1", "ACPMUX_FAKE_WIRE": wire})
	v := acpschema.ForTest(t)
	c := r.doorClient(v)
	initDoor(t, c)
	proj, dirs := r.folders(1)[0], r.folders(2)
	mcp := []sdk.McpServer{{Stdio: &sdk.McpServerStdio{Name: "notes", Command: "/bin/true", Args: []string{"--x"}, Env: []sdk.EnvVariable{}}}}
	resp, err := c.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: proj, McpServers: mcp, AdditionalDirectories: dirs})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("first")}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(wire)
	if err != nil {
		t.Fatal(err)
	}
	var sent bool
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, `"session/new"`) {
			sent = strings.Contains(line, `"mcpServers":[{`) && strings.Contains(line, `"name":"notes"`) && strings.Contains(line, `"/bin/true"`)
		}
	}
	if !sent {
		t.Fatalf("the agent's session/new did not carry the client's mcpServers:\n%s", b)
	}

	fork, err := c.UnstableForkSession(hangCtx(t), sdk.UnstableForkSessionRequest{SessionId: resp.SessionId, Cwd: proj})
	if err != nil {
		t.Fatalf("session/fork: %v", err)
	}
	m, err := r.store.Load(string(fork.SessionId))
	if err != nil {
		t.Fatal(err)
	}
	if m.Origin != sessions.OriginFork || m.Parent != string(resp.SessionId) || !slices.Equal(m.AdditionalDirectories, dirs) {
		t.Fatalf("the fork's chat file: %+v", m)
	}
	// The agent branched the parent's own session (session/fork with its
	// session id), and the fork answers prompts as a chat of its own.
	parent, err := r.store.Load(string(resp.SessionId))
	if err != nil {
		t.Fatal(err)
	}
	c2 := r.doorClient(v)
	initDoor(t, c2)
	if _, err := c2.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: fork.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("in the fork")}}); err != nil {
		t.Fatalf("prompt the fork: %v", err)
	}
	if got := c2.Text(string(fork.SessionId), "agent"); !strings.Contains(got, "echo: in the fork") {
		t.Fatalf("the fork's reply: %q", got)
	}
	b, err = os.ReadFile(wire)
	if err != nil {
		t.Fatal(err)
	}
	forked := false
	for _, line := range strings.Split(string(b), "\n") {
		forked = forked || strings.Contains(line, `"session/fork"`) && strings.Contains(line, `"`+parent.AgentSessionID+`"`)
	}
	if !forked {
		t.Fatalf("no session/fork of the parent's session %s reached the agent:\n%s", parent.AgentSessionID, b)
	}
	for _, cl := range []*doorclient.Client{c, c2} {
		if err := cl.Invalid(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDoorToolCallLocations: the places an agent gives its tool calls
// (ACP's locations, a path and a line) reach every client in the one entry
// shape: a door client gets them in its session/update (tool_call, then
// the update that moves them), the _acpmux/* stream carries them, and the
// transcript the server keeps holds the call's latest.
func TestDoorToolCallLocations(t *testing.T) {
	p := newPromptRig(t)
	c := p.doorClient(acpschema.ForTest(t))
	initDoor(t, c)
	proj := p.folders(1)[0]
	resp, err := c.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: proj, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	id := string(resp.SessionId)
	s := &stream{t: t, w: p.dial(), chat: id}
	s.observe()
	target := filepath.Join(proj, "main.go")
	if _, err := c.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: resp.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("tool-at " + target + " 41")}}); err != nil {
		t.Fatalf("session/prompt: %v", err)
	}
	at := func(line int) string { return fmt.Sprintf("%s:%d", target, line) }
	places := func(locs []sdk.ToolCallLocation) []string {
		var out []string
		for _, l := range locs {
			if l.Line == nil {
				out = append(out, l.Path)
				continue
			}
			out = append(out, fmt.Sprintf("%s:%d", l.Path, *l.Line))
		}
		return out
	}
	var started, updated []string
	for _, n := range c.Updates() {
		switch u := n.Update; {
		case u.ToolCall != nil:
			started = places(u.ToolCall.Locations)
		case u.ToolCallUpdate != nil:
			updated = places(u.ToolCallUpdate.Locations)
		}
	}
	if !slices.Equal(started, []string{at(41)}) || !slices.Equal(updated, []string{at(42)}) {
		t.Fatalf("the door client's tool_call had locations %v and its update %v; want [%s] then [%s]", started, updated, at(41), at(42))
	}

	entryPlaces := func(e proto.Entry) []string {
		var out []string
		for _, l := range e.Locations {
			if l.Line == nil {
				out = append(out, l.Path)
				continue
			}
			out = append(out, fmt.Sprintf("%s:%d", l.Path, *l.Line))
		}
		return out
	}
	s.until("the tool call's update in the _acpmux/* stream", func(e proto.ObservedEntry) bool {
		return e.Kind == proto.EntryTool && slices.Equal(entryPlaces(e.Entry), []string{at(42)})
	})
	var tr proto.TranscriptResult
	p.dial().ok(proto.MethodTranscript, proto.TranscriptParams{ID: id}, &tr)
	var tool *proto.Entry
	for i := range tr.Entries {
		if tr.Entries[i].Kind == proto.EntryTool {
			tool = &tr.Entries[i]
		}
	}
	if tool == nil || tool.ToolStatus != "completed" || !slices.Equal(entryPlaces(*tool), []string{at(42)}) || !slices.Equal(tool.Paths, []string{target}) {
		t.Fatalf("the transcript's tool call: %+v", tool)
	}
	if err := c.Invalid(); err != nil {
		t.Fatal(err)
	}
}
