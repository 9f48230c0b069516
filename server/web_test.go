package server

import (
	"bufio"
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/internal/testharness/doorclient"
	"github.com/acpmux/acpmux-tui/proto"
	sdk "github.com/coder/acp-go-sdk"
)

// These tests hold a web caller to its narrower rights. The connection is
// handed to the server as the web door hands over a WebSocket that passed
// its guards (package web tests those), so what is tested here is what
// the server lets such a caller do.

// webWire is a raw client on a connection of the web door.
func (r *rig) webWire() *wire {
	r.t.Helper()
	client, server := net.Pipe()
	go r.srv.admitWeb(server)
	r.t.Cleanup(func() { client.Close() })
	return &wire{t: r.t, nc: client, r: bufio.NewReaderSize(client, 1<<20)}
}

// webDoor is an ACP client on a connection of the web door.
func (r *rig) webDoor(v *acpschema.Validator) *doorclient.Client {
	r.t.Helper()
	client, server := net.Pipe()
	go r.srv.admitWeb(server)
	r.t.Cleanup(func() { client.Close() })
	return doorclient.New(client, client, v)
}

// setWebRoots puts a config with these [web] roots in effect.
func (r *rig) setWebRoots(roots ...string) {
	cfg := *r.srv.config()
	cfg.Web.Roots = roots
	r.srv.live.Store(r.srv.newLive(&cfg, r.srv.table(), r.srv.live.Load().gen+1))
}

// webFolders makes a web root with two folders and a file inside it, and
// a folder and a file outside it.
type webFolders struct {
	root, in1, in2, inFile, out, outFile, link string
}

func (r *rig) webFolders() webFolders {
	r.t.Helper()
	base, err := filepath.EvalSymlinks(r.t.TempDir())
	if err != nil {
		r.t.Fatal(err)
	}
	f := webFolders{
		root: filepath.Join(base, "root"), out: filepath.Join(base, "outside"),
	}
	f.in1, f.in2 = filepath.Join(f.root, "a"), filepath.Join(f.root, "b")
	f.inFile, f.outFile = filepath.Join(f.root, "notes.md"), filepath.Join(f.out, "secret.txt")
	f.link = filepath.Join(f.root, "leaves")
	for _, d := range []string{f.in1, f.in2, f.out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			r.t.Fatal(err)
		}
	}
	for _, p := range []string{f.inFile, f.outFile} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	// A link inside the root to a folder outside it.
	if err := os.Symlink(f.out, f.link); err != nil {
		r.t.Fatal(err)
	}
	return f
}

// TestWebCallerIsHeldToTheRoots: a web caller names folders and files
// inside the web roots only (a symbolic link that leaves a root is
// outside), or starts a chat in the folder of one that exists; each
// refusal is -32602 naming the entry, and nothing is written.
func TestWebCallerIsHeldToTheRoots(t *testing.T) {
	r := newRig(t, rigOpt{})
	f := r.webFolders()
	r.setWebRoots(f.root)
	w := r.webWire()

	var c proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Cwd: f.in1, AdditionalDirectories: []string{f.in2}, AdditionalFiles: []string{f.inFile}}, &c)
	if c.Cwd != f.in1 || !slices.Equal(c.AdditionalDirectories, []string{f.in2}) {
		t.Fatalf("the web caller's chat: %+v", c)
	}
	before := r.chatFiles()

	refusals := []struct {
		what   string
		method string
		params any
		names  string
	}{
		{"a cwd outside", proto.MethodNew, proto.NewParams{Cwd: f.out}, f.out},
		{"a folder outside", proto.MethodNew, proto.NewParams{Cwd: f.in1, AdditionalDirectories: []string{f.in2, f.out}}, f.out},
		{"a link that leaves the root", proto.MethodNew, proto.NewParams{Cwd: f.in1, AdditionalDirectories: []string{f.link}}, f.link},
		{"a file outside", proto.MethodNew, proto.NewParams{Cwd: f.in1, AdditionalFiles: []string{f.outFile}}, f.outFile},
		{"a folder added outside", proto.MethodAddFolders, proto.FoldersParams{ID: c.ID, AdditionalDirectories: []string{f.out}}, f.out},
		{"folders set outside", proto.MethodSetDirectories, map[string]any{"id": c.ID, "additionalDirectories": []string{f.out}}, f.out},
		{"files set outside", proto.MethodSetFiles, map[string]any{"id": c.ID, "additionalFiles": []string{f.outFile}}, f.outFile},
		{"a listing outside", proto.MethodListDirectory, proto.ListDirectoryParams{Path: f.out}, f.out},
		{"a listing through the link", proto.MethodListDirectory, proto.ListDirectoryParams{Path: f.link}, f.link},
		{"a fork moved outside", proto.MethodDerive, proto.DeriveParams{ID: c.ID, Origin: "fork", Cwd: f.out}, f.out},
	}
	for _, tc := range refusals {
		e := w.fails(proto.CodeInvalidParams, tc.method, tc.params)
		if !strings.Contains(string(e.Data)+e.Message, tc.names) || !strings.Contains(string(e.Data)+e.Message, "web roots") {
			t.Errorf("%s: refused with %q %s, which does not name %s as outside the web roots", tc.what, e.Message, e.Data, tc.names)
		}
	}
	if after := r.chatFiles(); !slices.Equal(after, before) {
		t.Fatalf("refusals wrote chat files: %v, then %v", before, after)
	}
	var got proto.ChatJSON
	w.ok(proto.MethodChat, proto.IDParams{ID: c.ID}, &got)
	if !slices.Equal(got.AdditionalDirectories, []string{f.in2}) || !slices.Equal(got.AdditionalFiles, []string{f.inFile}) {
		t.Fatalf("refusals changed the chat: %+v", got)
	}

	// Inside the root: a listing, a folder added.
	var l proto.ListDirectoryResult
	w.ok(proto.MethodListDirectory, proto.ListDirectoryParams{Path: f.root}, &l)
	w.ok(proto.MethodAddFolders, proto.FoldersParams{ID: c.ID, AdditionalDirectories: []string{f.root}}, nil)

	// A chat's folder outside the roots is one a web caller may start
	// another chat in; a local client made it.
	var local proto.ChatJSON
	r.dial().ok(proto.MethodNew, proto.NewParams{Cwd: f.out}, &local)
	w.ok(proto.MethodNew, proto.NewParams{Cwd: f.out}, nil)
}

// TestWebCallerWithNoRootsUsesTheChatsThatExist: with no [web] roots (the
// default) a web caller lists and drives the chats there are but names
// no folder, and is told why.
func TestWebCallerWithNoRootsUsesTheChatsThatExist(t *testing.T) {
	r := newRig(t, rigOpt{})
	f := r.webFolders()
	var c proto.ChatJSON
	r.dial().ok(proto.MethodNew, proto.NewParams{Cwd: f.in1}, &c)
	w := r.webWire()
	var list proto.ListResult
	w.ok(proto.MethodList, nil, &list)
	if len(list.Chats) != 1 || list.Chats[0].ID != c.ID {
		t.Fatalf("the web caller lists %+v", list.Chats)
	}
	e := w.fails(proto.CodeInvalidParams, proto.MethodAddFolders, proto.FoldersParams{ID: c.ID, AdditionalDirectories: []string{f.in2}})
	if !strings.Contains(string(e.Data), "until [web] roots is set") {
		t.Fatalf("the refusal does not say how to allow it: %s %s", e.Message, e.Data)
	}
	w.fails(proto.CodeInvalidParams, proto.MethodListDirectory, proto.ListDirectoryParams{Path: f.root})
}

// TestWebCallerIsRefusedWhatOnlyALocalClientDoes: kill-server, remove,
// export, import, a hook and an attach are -32601 to the web, and the
// server goes on.
func TestWebCallerIsRefusedWhatOnlyALocalClientDoes(t *testing.T) {
	r := newRig(t, rigOpt{})
	var c proto.ChatJSON
	r.dial().ok(proto.MethodNew, proto.NewParams{}, &c)
	w := r.webWire()
	for _, m := range []string{proto.MethodKill, proto.MethodRemove, proto.MethodExport, proto.MethodImport, proto.MethodHook, proto.MethodAttach, proto.MethodWeb, "_acpmux/noSuchMethod"} {
		e := w.fails(proto.CodeMethodNotFound, m, proto.IDParams{ID: c.ID})
		if !strings.Contains(e.Message, "not for web callers") {
			t.Errorf("%s: %q", m, e.Message)
		}
	}
	if _, err := os.Stat(r.store.ChatPath(c.ID)); err != nil {
		t.Fatalf("the chat is gone after a web caller's remove: %v", err)
	}
	var h proto.HelloResult
	r.dial().ok(proto.MethodHello, nil, &h) // the server serves on
}

// TestWebDoorIsHeldToTheRoots: over ACP too, session/new's cwd and folders
// must be inside the roots, an MCP server with an environment is refused,
// and the chat made inside them is the same chat every client sees.
func TestWebDoorIsHeldToTheRoots(t *testing.T) {
	p := newPromptRig(t)
	f := p.webFolders()
	p.setWebRoots(f.root)
	d := p.webDoor(acpschema.ForTest(t))
	initDoor(t, d)
	before := p.chatFiles()
	for _, req := range []sdk.NewSessionRequest{
		{Cwd: f.out, McpServers: []sdk.McpServer{}},
		{Cwd: f.in1, AdditionalDirectories: []string{f.link}, McpServers: []sdk.McpServer{}},
		{Cwd: f.in1, McpServers: []sdk.McpServer{{Stdio: &sdk.McpServerStdio{Name: "tool", Command: "/bin/true", Args: []string{}, Env: []sdk.EnvVariable{{Name: "TOKEN", Value: "x"}}}}}},
	} {
		_, err := d.NewSession(hangCtx(t), req)
		if err == nil || !strings.Contains(err.Error(), "-32602") && !strings.Contains(err.Error(), "Invalid params") {
			t.Errorf("session/new %+v: %v, want -32602", req, err)
		}
	}
	if after := p.chatFiles(); !slices.Equal(after, before) {
		t.Fatalf("refused sessions wrote chat files: %v, then %v", before, after)
	}
	resp, err := d.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: f.in1, AdditionalDirectories: []string{f.in2}, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new inside the roots: %v", err)
	}
	var c proto.ChatJSON
	p.dial().ok(proto.MethodChat, proto.IDParams{ID: string(resp.SessionId)}, &c)
	if c.Cwd != f.in1 || !slices.Equal(c.AdditionalDirectories, []string{f.in2}) || c.Origin != "acp" {
		t.Fatalf("the web's chat as a local client sees it: %+v", c)
	}
}

// TestWebCallerGrantsNothingLasting: a web door client is offered allow
// once and reject once, never allow always; answered through
// _acpmux/answerPermission, allow always is refused to a web caller.
func TestWebCallerGrantsNothingLasting(t *testing.T) {
	p := newPromptRig(t)
	// A web door client that prompts is asked with the options that grant
	// nothing lasting; its answer (allow_always, were it offered) is left
	// to the others.
	d := p.webDoor(acpschema.ForTest(t))
	d.Permit = func(context.Context, sdk.RequestPermissionRequest) string { return "allow_always" }
	initDoor(t, d)
	var c proto.ChatJSON
	p.dial().ok(proto.MethodChat, proto.IDParams{ID: p.chat}, &c)
	if _, err := d.ResumeSession(hangCtx(t), sdk.ResumeSessionRequest{SessionId: sdk.SessionId(p.chat), Cwd: c.Cwd, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/resume over the web: %v", err)
	}
	turn := make(chan error, 1)
	go func() {
		_, err := d.Prompt(hangCtx(t), sdk.PromptRequest{SessionId: sdk.SessionId(p.chat), Prompt: []sdk.ContentBlock{sdk.TextBlock("permission always")}})
		turn <- err
	}()
	waitFor(t, "the agent's permission request", func() bool { return p.srv.opt.Mux.State(p.chat).Permission != nil })
	if n := len(p.srv.opt.Mux.State(p.chat).Permission.Options); n != 3 {
		t.Fatalf("the fake agent offered %d options, want 3 (allow_always among them)", n)
	}
	waitFor(t, "the web door client to be asked", func() bool { return len(d.Asked()) > 0 })
	var kinds []string
	for _, o := range d.Asked()[0].Options {
		kinds = append(kinds, string(o.Kind))
	}
	if !slices.Equal(kinds, []string{"allow_once", "reject_once"}) {
		t.Fatalf("the web door client was offered %q, want allow_once and reject_once only", kinds)
	}

	// Through _acpmux/answerPermission, allow always is refused to a web
	// caller; allow once is taken.
	w := p.webWire()
	e := w.fails(proto.CodeInvalidParams, proto.MethodAnswerPermission, proto.AnswerPermissionParams{ID: p.chat, OptionID: "allow_always"})
	if !strings.Contains(e.Message, "allow once or reject once") {
		t.Fatalf("refusal %q", e.Message)
	}
	if p.srv.opt.Mux.State(p.chat).Permission == nil {
		t.Fatal("a refused answer released the agent")
	}
	w.ok(proto.MethodAnswerPermission, proto.AnswerPermissionParams{ID: p.chat, OptionID: "allow_once"}, nil)
	if err := <-turn; err != nil {
		t.Fatalf("the web client's turn: %v", err)
	}
	if got := d.Text(p.chat, "agent"); !strings.Contains(got, "permission: allow_once") {
		t.Fatalf("the agent heard %q, want allow_once", got)
	}
}

// TestWebRootsDropWhatWouldGiveEverything: /, $HOME and a folder that
// holds $HOME are dropped with a warning each; so is a root that does
// not exist; a root reached through a link is kept in its canonical form.
func TestWebRootsDropWhatWouldGiveEverything(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "users", "me")
	src := filepath.Join(home, "src")
	other := filepath.Join(base, "srv")
	for _, d := range []string{src, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	roots, warnings := webRootsOf(config.WebConfig{Roots: []string{"/", home, filepath.Join(base, "users"), base, src, link, filepath.Join(base, "missing")}}, home)
	if !slices.Equal(roots, []string{src, other}) {
		t.Fatalf("roots kept: %q, want %q", roots, []string{src, other})
	}
	if len(warnings) != 5 {
		t.Fatalf("warnings: %q, want one for each of /, $HOME, its two ancestors and the missing root", warnings)
	}
	for _, w := range warnings[:4] {
		if !strings.Contains(w, "holds $HOME") {
			t.Errorf("warning %q does not say why", w)
		}
	}
}

// TestWebACPConnectionSpeaksOurMethodsToo: a web connection that began
// with initialize makes _acpmux/* calls on the same connection (the page
// needs the list, screens and keys), under the same rules.
func TestWebACPConnectionSpeaksOurMethodsToo(t *testing.T) {
	r := newPromptRig(t)
	w := r.webWire()
	var init struct {
		ProtocolVersion int `json:"protocolVersion"`
	}
	w.ok("initialize", map[string]any{"protocolVersion": 1}, &init)
	if init.ProtocolVersion != 1 {
		t.Fatalf("initialize answered protocol %d", init.ProtocolVersion)
	}
	var list proto.ListResult
	w.ok(proto.MethodList, nil, &list)
	w.fails(proto.CodeMethodNotFound, proto.MethodKill, nil)
	var h proto.HelloResult
	r.dial().ok(proto.MethodHello, nil, &h)
}

// TestWebCallerOnlyNarrows: a local connection that says it speaks for a
// web caller (as a server relaying a page's calls does on its link) is
// held to the web's rights from then on; nothing makes a web connection a
// local one again.
func TestWebCallerOnlyNarrows(t *testing.T) {
	r := newRig(t, rigOpt{})
	f := r.webFolders()
	r.setWebRoots(f.root)
	w := r.dial()
	w.ok(proto.MethodNew, proto.NewParams{Cwd: f.in1, AdditionalDirectories: []string{f.out}}, nil) // a local client's right
	w.ok(proto.MethodWebCaller, nil, nil)
	w.fails(proto.CodeInvalidParams, proto.MethodNew, proto.NewParams{Cwd: f.in1, AdditionalDirectories: []string{f.out}})
	w.fails(proto.CodeMethodNotFound, proto.MethodKill, nil)
	w.ok(proto.MethodNew, proto.NewParams{Cwd: f.in1}, nil)
}

// TestWebChatsAreSandboxed: a chat a web caller makes — new, create and
// start, a fork, the door's session/new — is sandboxed while [web]
// sandbox is on (the default), and the web cannot turn that off; a local
// client's chats are as it asks; with [web] sandbox = false the web's are
// as asked too. The door's chat runs, inside its bound.
func TestWebChatsAreSandboxed(t *testing.T) {
	p := newPromptRig(t)
	f := p.webFolders()
	p.setWebRoots(f.root)
	w := p.webWire()

	var made, started, fork proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Harness: "fake", Cwd: f.in1}, &made)
	w.ok(proto.MethodCreateAndStart, proto.CreateAndStartParams{NewParams: proto.NewParams{Harness: "shell", Cwd: f.in1}, Cols: 80, Rows: 24}, &started)
	var local proto.ChatJSON
	p.dial().ok(proto.MethodNew, proto.NewParams{Harness: "fake", Cwd: f.in2}, &local)
	w.ok(proto.MethodDerive, proto.DeriveParams{ID: local.ID, Origin: "fork"}, &fork)
	for _, c := range []proto.ChatJSON{made, started, fork} {
		if c.Sandbox == nil || c.Sandbox.Refused != "" || !slices.Contains(c.Sandbox.Writable, c.Cwd) {
			t.Errorf("the web's chat %s: sandbox %+v, want one that writes in %s", c.ID, c.Sandbox, c.Cwd)
		}
	}
	if local.Sandbox != nil {
		t.Errorf("a local client's chat is sandboxed: %+v", local.Sandbox)
	}
	off := false
	before := p.chatFiles()
	for _, req := range []struct {
		method string
		params any
	}{
		{proto.MethodNew, proto.NewParams{Cwd: f.in1, Sandbox: &off}},
		{proto.MethodCreateAndStart, proto.CreateAndStartParams{NewParams: proto.NewParams{Cwd: f.in1, Sandbox: &off}, Cols: 80, Rows: 24}},
		{proto.MethodDerive, proto.DeriveParams{ID: local.ID, Origin: "fork", Sandbox: &off}},
	} {
		if e := w.fails(proto.CodeInvalidParams, req.method, req.params); !strings.Contains(e.Message, "[web] sandbox") {
			t.Errorf("%s with sandbox off: %q, want the reason", req.method, e.Message)
		}
	}
	if after := p.chatFiles(); !slices.Equal(after, before) {
		t.Fatalf("refusals wrote chat files: %v, then %v", before, after)
	}

	d := p.webDoor(acpschema.ForTest(t))
	initDoor(t, d)
	resp, err := d.NewSession(hangCtx(t), sdk.NewSessionRequest{Cwd: f.in1, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("the web door's session/new, sandboxed: %v", err)
	}
	var c proto.ChatJSON
	p.dial().ok(proto.MethodChat, proto.IDParams{ID: string(resp.SessionId)}, &c)
	if c.Sandbox == nil {
		t.Fatalf("the web door's chat is not sandboxed: %+v", c)
	}
	if st := p.srv.opt.Mux.State(c.ID); !strings.HasPrefix(st.Bound, "landlock · writes: folder") {
		t.Fatalf("the running door chat's bound: %q (%s)", st.Bound, st.LastError)
	}

	cfg := *p.srv.config()
	no := false
	cfg.Web.Sandbox = &no
	p.srv.live.Store(p.srv.newLive(&cfg, p.srv.table(), p.srv.live.Load().gen+1))
	var asked proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Harness: "fake", Cwd: f.in1}, &asked)
	if asked.Sandbox != nil {
		t.Fatalf("with [web] sandbox = false the web's chat is sandboxed: %+v", asked.Sandbox)
	}
}
