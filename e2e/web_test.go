package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/internal/testharness/wsclient"
	"github.com/acpmux/acpmux-tui/proto"
	sdk "github.com/coder/acp-go-sdk"
)

// These tests drive the web door of the real binary from outside:
// `acpmux-tui web`, then a WebSocket client of our own that sets every
// header by hand, against the server it started.

// webRig is an agent home whose "fake" harness is the fake ACP agent
// (recording each start), with a web root holding a project and a folder,
// and a folder outside the root.
type webRig struct {
	*cli
	root, proj, lib, outside, leaves, starts string
}

func newWebRig(t *testing.T, extra string) *webRig {
	t.Helper()
	c := newCLI(t)
	w := &webRig{cli: c, root: c.dir("webroot"), proj: c.dir("webroot/proj"), lib: c.dir("webroot/lib"),
		outside: c.dir("outside"), starts: filepath.Join(c.dir("records"), "starts.jsonl")}
	w.leaves = filepath.Join(w.root, "leaves")
	if err := os.Symlink(w.outside, w.leaves); err != nil {
		t.Fatal(err)
	}
	// The fake's state and its records are its own: a chat made over the
	// web, sandboxed, may write them.
	config := fmt.Sprintf("[harness.fake]\ncommand = %q\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = %q, ACPMUX_FAKE_RECORD = %q }\nsandbox_state = [%q, %q]\n\n[web]\nroots = [%q]\n%s",
		buildACPFake(t), c.dir("agent-state"), w.starts, c.dir("agent-state")+"/", filepath.Dir(w.starts)+"/", w.root, extra)
	if err := os.WriteFile(c.config, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

// webOpened is what `web --json` prints.
type webOpened struct {
	URL       string   `json:"url"`
	Listen    string   `json:"listen"`
	TokenFile string   `json:"tokenFile"`
	Roots     []string `json:"roots"`
}

// openWeb runs `acpmux-tui web --json args...` and returns what it
// printed and the token in its URL.
func (w *webRig) openWeb(args ...string) (webOpened, string) {
	w.t.Helper()
	r := w.run(append([]string{"web", "--json"}, args...)...)
	if r.code != 0 {
		w.t.Fatalf("web: exit %d\n%s", r.code, r.stderr)
	}
	var o webOpened
	if err := json.Unmarshal([]byte(r.stdout), &o); err != nil {
		w.t.Fatalf("web --json printed %q: %v", r.stdout, err)
	}
	m := regexp.MustCompile(`^http://127\.0\.0\.1:(\d+)/#token=([0-9a-f]{64})$`).FindStringSubmatch(o.URL)
	if m == nil || o.Listen != "127.0.0.1:"+m[1] {
		w.t.Fatalf("web --json printed url %q and listen %q", o.URL, o.Listen)
	}
	return o, m[2]
}

// webCall is one JSON-RPC client on a WebSocket of the door.
type webCall struct {
	t    *testing.T
	c    *wsclient.Conn
	next int
	// heard are the notifications read while waiting for answers.
	heard []json.RawMessage
}

type webAnswer struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// dialWeb opens /acp on addr with the headers given (Host is
// 127.0.0.1:PORT), failing the test on a refusal.
func dialWeb(t *testing.T, addr string, h http.Header) *webCall {
	t.Helper()
	c, refused, err := wsclient.Dial(addr, "/acp", h, addr)
	if err != nil {
		t.Fatalf("dial /acp: %v", err)
	}
	if refused != nil {
		t.Fatalf("/acp refused: %s", refused)
	}
	t.Cleanup(func() { c.Close() })
	return &webCall{t: t, c: c}
}

func bearer(token string) http.Header { return http.Header{"Authorization": {"Bearer " + token}} }

// call sends a request and waits for its answer, keeping what it hears
// meanwhile.
func (w *webCall) call(method string, params any) webAnswer {
	w.t.Helper()
	w.next++
	if err := w.c.Send(map[string]any{"jsonrpc": "2.0", "id": w.next, "method": method, "params": params}); err != nil {
		w.t.Fatalf("send %s: %v", method, err)
	}
	deadline := time.Now().Add(srvHang)
	for {
		b, err := w.c.Recv(deadline)
		if err != nil {
			w.t.Fatalf("waiting for the answer to %s: %v", method, err)
		}
		var a webAnswer
		if err := json.Unmarshal(b, &a); err != nil {
			w.t.Fatalf("the door sent %q: %v", b, err)
		}
		if a.Method != "" {
			w.heard = append(w.heard, b)
			continue
		}
		if string(a.ID) == fmt.Sprint(w.next) {
			return a
		}
	}
}

func (w *webCall) ok(method string, params, result any) {
	w.t.Helper()
	a := w.call(method, params)
	if a.Error != nil {
		w.t.Fatalf("%s: error %d %s %s", method, a.Error.Code, a.Error.Message, a.Error.Data)
	}
	if result != nil {
		if err := json.Unmarshal(a.Result, result); err != nil {
			w.t.Fatalf("%s answered %s: %v", method, a.Result, err)
		}
	}
}

// refused calls a method that must be refused with -32602 naming each of
// names, and returns the refusal's text.
func (w *webCall) refused(method string, params any, names ...string) {
	w.t.Helper()
	a := w.call(method, params)
	if a.Error == nil || a.Error.Code != proto.CodeInvalidParams {
		w.t.Fatalf("%s %+v: answered %s %+v, want -32602", method, params, a.Result, a.Error)
	}
	text := a.Error.Message + string(a.Error.Data)
	for _, n := range names {
		if !strings.Contains(text, n) || !strings.Contains(text, "web roots") {
			w.t.Errorf("%s: refusal %q does not name %s as outside the web roots", method, text, n)
		}
	}
}

// TestWebDoorFromTheCommandLine: `acpmux-tui web` opens the door of the
// running server and prints its address with the token, which is in a
// 0600 file and nowhere else; a bearer client makes a chat inside the web
// roots that `ls` and a stdio door client see at once, prompts it, and
// calls _acpmux/* on the same connection; everything outside the roots is
// refused with the entry named and nothing written; and the guards hold
// against the real server.
func TestWebDoorFromTheCommandLine(t *testing.T) {
	w := newWebRig(t, "")
	o, token := w.openWeb("--listen", "127.0.0.1:0")
	if o.TokenFile != filepath.Join(w.home, proto.WebTokenName) || !slices.Equal(o.Roots, []string{w.root}) {
		t.Fatalf("web --json: %+v", o)
	}
	fi, err := os.Stat(o.TokenFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the token file: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(o.TokenFile); strings.TrimSpace(string(b)) != token {
		t.Fatal("the URL's token is not the token file's")
	}
	// Not on the server's command line, nor in its log.
	pid := proto.LockHolder(w.home)
	if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err != nil || strings.Contains(string(cmdline), token) {
		t.Fatalf("the server's command line %q (%v) holds the token", cmdline, err)
	}
	if log, _ := os.ReadFile(filepath.Join(w.home, "logs", "acpmux-tui.log")); strings.Contains(string(log), token) || !strings.Contains(string(log), "web listener open") {
		t.Fatalf("the log holds the token, or does not say the listener opened:\n%s", log)
	}
	// Asked again, the same door.
	if again, _ := w.openWeb(); again.URL != o.URL {
		t.Fatalf("web again printed %q, want %q", again.URL, o.URL)
	}
	if r := w.run("web", "--listen", "127.0.0.1:1"); r.code != 2 || !strings.Contains(r.stderr, "open on "+o.Listen) {
		t.Fatalf("web on another address while one is open: exit %d %q", r.code, r.stderr)
	}

	addr := o.Listen
	c := dialWeb(t, addr, bearer(token))
	c.ok("initialize", map[string]any{"protocolVersion": 1}, nil)
	var made sdk.NewSessionResponse
	c.ok("session/new", map[string]any{"cwd": w.proj, "additionalDirectories": []string{w.lib}, "mcpServers": []any{}}, &made)
	id := string(made.SessionId)
	var chat proto.ChatJSON
	for _, ch := range w.ls() {
		if ch.ID == id {
			chat = ch
		}
	}
	if chat.Cwd != w.proj || !slices.Equal(chat.AdditionalDirectories, []string{w.lib}) || chat.Origin != "acp" {
		t.Fatalf("ls shows the web's chat as %+v", chat)
	}
	d := w.openDoor(t, acpschema.ForTest(t))
	d.initialize(t)
	listed, err := d.ListSessions(doorCtx(t), sdk.ListSessionsRequest{})
	if err != nil || !slices.ContainsFunc(listed.Sessions, func(s sdk.SessionInfo) bool { return string(s.SessionId) == id }) {
		t.Fatalf("a stdio door client lists %+v (%v), without the web's chat", listed.Sessions, err)
	}
	var turn sdk.PromptResponse
	c.ok("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": "hello over the web"}}}, &turn)
	if turn.StopReason != "end_turn" || !slices.ContainsFunc(c.heard, func(b json.RawMessage) bool {
		return strings.Contains(string(b), `"echo: `) && strings.Contains(string(b), "hello over the web")
	}) {
		t.Fatalf("the turn ended %q; heard %d notifications without the agent's echo: %s", turn.StopReason, len(c.heard), c.heard)
	}
	var list proto.ListResult
	c.ok(proto.MethodList, map[string]any{}, &list)
	if !slices.ContainsFunc(list.Chats, func(ch proto.ChatJSON) bool { return ch.ID == id }) {
		t.Fatalf("_acpmux/list on the same connection: %+v", list.Chats)
	}

	// Outside the roots: refused, each entry named, nothing written.
	files := w.chatFiles()
	c.refused("session/new", map[string]any{"cwd": w.outside, "mcpServers": []any{}}, w.outside)
	c.refused("session/new", map[string]any{"cwd": w.proj, "additionalDirectories": []string{w.leaves}, "mcpServers": []any{}}, w.leaves)
	c.refused(proto.MethodNew, proto.NewParams{Cwd: w.proj, AdditionalFiles: []string{filepath.Join(w.outside)}}, w.outside)
	c.refused(proto.MethodAddFolders, proto.FoldersParams{ID: id, AdditionalDirectories: []string{w.outside}}, w.outside)
	c.refused(proto.MethodListDirectory, proto.ListDirectoryParams{Path: w.leaves}, w.leaves)
	if got := w.chatFiles(); !slices.Equal(got, files) {
		t.Fatalf("refused calls wrote chat files: %v, then %v", files, got)
	}
	if a := c.call(proto.MethodKill, map[string]any{}); a.Error == nil || a.Error.Code != proto.CodeMethodNotFound {
		t.Fatalf("kill-server over the web: %+v", a)
	}

	// The guards, against this server: each refused even with the right
	// token, and the connection above is served throughout.
	own := "http://" + addr
	for _, tc := range []struct {
		what   string
		path   string
		h      http.Header
		host   string
		status int
	}{
		{"no token", "/acp", http.Header{}, addr, 401},
		{"a wrong token", "/acp", bearer(strings.Repeat("0", 64)), addr, 401},
		{"the token in the query", "/acp?token=" + token, http.Header{}, addr, 400},
		{"an evil Origin", "/acp", withOrigin(bearer(token), "http://evil.example"), addr, 403},
		{"an Origin that only begins like ours", "/acp", withOrigin(bearer(token), own+".evil.example"), addr, 403},
		{"a rebound Host", "/acp", withOrigin(bearer(token), own), "attacker.test:" + portOf(addr), 421},
	} {
		_, refused, err := wsclient.Dial(addr, tc.path, tc.h, tc.host)
		if err != nil || refused == nil || refused.Status != tc.status {
			t.Errorf("%s: %v %v, want a refusal with %d", tc.what, refused, err, tc.status)
		}
	}
	c.ok(proto.MethodHello, map[string]any{}, nil)
}

func withOrigin(h http.Header, origin string) http.Header {
	h = h.Clone()
	h.Set("Origin", origin)
	return h
}

func portOf(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return port
}

// TestWebRootsThatGiveEverythingAreDropped: /, $HOME and a folder that
// holds $HOME are dropped from [web] roots, each with a warning on stderr
// and in the log, and the door opens with the roots that are left.
func TestWebRootsThatGiveEverythingAreDropped(t *testing.T) {
	c := newCLI(t)
	user := filepath.Join(c.root, "user")
	src := c.dir("user/src")
	config := fmt.Sprintf("[web]\nroots = [\"/\", %q, %q, %q]\n", user, c.root, src)
	if err := os.WriteFile(c.config, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	r := c.run("web", "--json")
	if r.code != 0 {
		t.Fatalf("web: exit %d %q", r.code, r.stderr)
	}
	var o webOpened
	if err := json.Unmarshal([]byte(r.stdout), &o); err != nil || !slices.Equal(o.Roots, []string{src}) {
		t.Fatalf("web --json printed %q (%v), want the roots [%s]", r.stdout, err, src)
	}
	if n := strings.Count(r.stderr, "holds $HOME"); n != 3 {
		t.Fatalf("stderr has %d warnings of a root that gives everything, want 3:\n%s", n, r.stderr)
	}
	log, _ := os.ReadFile(filepath.Join(c.home, "logs", "acpmux-tui.log"))
	if strings.Count(string(log), "holds $HOME") < 3 {
		t.Fatalf("the log does not warn of the dropped roots:\n%s", log)
	}
}

// TestWebDoorSurvivesAKilledServer: with [web] listen in the config, a
// page signed in (the cookie of POST /session) makes a chat and prompts
// it; the server is killed with SIGKILL, its agent dies with it, and the
// next server opens the same door by itself: the same cookie is let in,
// and the chat is there, started again.
func TestWebDoorSurvivesAKilledServer(t *testing.T) {
	addr := closedPort(t)
	w := newWebRig(t, fmt.Sprintf("listen = %q\n", addr))
	o, token := w.openWeb()
	if o.Listen != addr {
		t.Fatalf("the door opened on %s, not [web] listen %s", o.Listen, addr)
	}
	own := "http://" + addr
	status, h, body, err := wsclient.Do(addr, "POST", "/session", http.Header{"Origin": {own}, "Content-Type": {"application/json"}}, addr, `{"token":"`+token+`"}`)
	if err != nil || status != 204 {
		t.Fatalf("POST /session: %d %q %v", status, body, err)
	}
	cookie, err := http.ParseSetCookie(h.Get("Set-Cookie"))
	if err != nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/" {
		t.Fatalf("the session cookie %q: %v", h.Get("Set-Cookie"), err)
	}
	page := http.Header{"Origin": {own}, "Cookie": {cookie.Name + "=" + cookie.Value}}
	if _, refused, _ := wsclient.Dial(addr, "/acp", http.Header{"Cookie": page["Cookie"]}, addr); refused == nil || refused.Status != 403 {
		t.Fatalf("the cookie without an Origin: %v, want 403", refused)
	}
	c := dialWeb(t, addr, page)
	c.ok("initialize", map[string]any{"protocolVersion": 1}, nil)
	var made sdk.NewSessionResponse
	c.ok("session/new", map[string]any{"cwd": w.proj, "mcpServers": []any{}}, &made)
	id := string(made.SessionId)
	c.ok("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": "before the crash"}}}, nil)
	agent := surviveWaitStarts(t, w.starts, id, 1)[0]

	server := proto.LockHolder(w.home)
	if err := syscall.Kill(server, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	srvWaitFor(t, "the killed server and its agent to be gone", func() bool {
		return !srvProcessAlive(server) && !srvProcessAlive(agent.Pid)
	})
	if _, err := c.c.Recv(time.Now().Add(srvHang)); err == nil {
		t.Fatal("the killed server's WebSocket still answers")
	}

	// The next server (here started by `web`, as any client starts one)
	// opens the door of [web] listen itself, with the same token.
	if again, _ := w.openWeb(); again.URL != o.URL {
		t.Fatalf("after the crash the door is %q, want %q", again.URL, o.URL)
	}
	c2 := dialWeb(t, addr, page)
	var list proto.ListResult
	c2.ok(proto.MethodList, map[string]any{}, &list)
	if !slices.ContainsFunc(list.Chats, func(ch proto.ChatJSON) bool { return ch.ID == id }) {
		t.Fatalf("after the crash the chat is gone: %+v", list.Chats)
	}
	again := surviveWaitStarts(t, w.starts, id, 2)[1]
	if again.Cwd != w.proj {
		t.Fatalf("the chat started again in %q, want %q", again.Cwd, w.proj)
	}
	if r := w.run("kill-server"); r.code != 0 {
		t.Fatalf("kill-server: %d %q", r.code, r.stderr)
	}
	srvWaitFor(t, "the agent to end with kill-server", func() bool { return !srvProcessAlive(again.Pid) })
}
