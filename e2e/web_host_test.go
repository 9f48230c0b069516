package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
)

// until reads notifications until one satisfies ok.
func (w *webCall) until(what string, ok func(json.RawMessage) bool) {
	w.t.Helper()
	if slices.ContainsFunc(w.heard, ok) {
		return
	}
	deadline := time.Now().Add(srvHang)
	for {
		b, err := w.c.Recv(deadline)
		if err != nil {
			w.t.Fatalf("waiting for %s: %v", what, err)
		}
		w.heard = append(w.heard, b)
		if ok(b) {
			return
		}
	}
}

// TestWebReachesAHostHeldToItsRoots: a page's calls reach the chats of a
// configured host (a real sshd on loopback) through this machine's server,
// which opens its own link there as a web caller's: the host lists its
// chats and starts one, tells the page of it, refuses a folder outside its
// own [web] roots and what no web caller may do, and serves on.
func TestWebReachesAHostHeldToItsRoots(t *testing.T) {
	r := newHostRig(t)
	remoteRoot, outside := r.dir("far/root"), r.dir("far/outside")
	proj := r.dir("far/root/proj")
	if err := os.WriteFile(r.remoteConfig, []byte("default_harness = \"shell\"\n[web]\nroots = [\""+remoteRoot+"\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	far := r.chat("new", "--host", "test", "--harness", "shell", "--cwd", proj, "--name", "far chat", "--json")
	w := &webRig{cli: r.cli}
	o, token := w.openWeb()
	c := dialWeb(t, o.Listen, bearer(token))

	var list proto.ListResult
	c.ok(proto.MethodHost, proto.HostCallParams{Host: "test", Method: proto.MethodList}, &list)
	if !slices.ContainsFunc(list.Chats, func(ch proto.ChatJSON) bool { return ch.ID == far.ID && ch.Name == "far chat" }) {
		t.Fatalf("the host's chats through the page's server: %+v", list.Chats)
	}
	var states proto.StatesResult
	c.ok(proto.MethodHost, proto.HostCallParams{Host: "test", Method: proto.MethodWatch, Params: mustJSON(t, proto.SizeParams{Cols: 80, Rows: 24})}, &states)
	c.ok(proto.MethodHost, proto.HostCallParams{Host: "test", Method: proto.MethodStart, Params: mustJSON(t, proto.ChatParams{ID: far.ID})}, nil)
	c.until("a notification of the host's, naming it", func(b json.RawMessage) bool {
		var n struct {
			Method string           `json:"method"`
			Params proto.HostNotice `json:"params"`
		}
		return json.Unmarshal(b, &n) == nil && n.Method == proto.NotifyHost && n.Params.Host == "test" && strings.Contains(string(n.Params.Params), far.ID)
	})

	// The host holds the page to its own roots.
	a := c.call(proto.MethodHost, proto.HostCallParams{Host: "test", Method: proto.MethodNew, Params: mustJSON(t, proto.NewParams{Cwd: outside})})
	if a.Error == nil || a.Error.Code != proto.CodeInvalidParams || !strings.Contains(a.Error.Message+string(a.Error.Data), "web roots") {
		t.Fatalf("a new chat outside the host's roots: %+v", a.Error)
	}
	var made proto.ChatJSON
	c.ok(proto.MethodHost, proto.HostCallParams{Host: "test", Method: proto.MethodNew, Params: mustJSON(t, proto.NewParams{Cwd: proj})}, &made)
	if made.Cwd != proj {
		t.Fatalf("the host made %+v", made)
	}
	for _, m := range []string{proto.MethodKill, proto.MethodRemove, proto.MethodHost} {
		if a := c.call(proto.MethodHost, proto.HostCallParams{Host: "test", Method: m, Params: mustJSON(t, proto.IDParams{ID: far.ID})}); a.Error == nil {
			t.Errorf("%s relayed to the host: %s", m, a.Result)
		}
	}
	if a := c.call(proto.MethodHost, proto.HostCallParams{Host: "nowhere", Method: proto.MethodList}); a.Error == nil || a.Error.Code != proto.CodeInvalidParams {
		t.Fatalf("an unknown host: %+v", a.Error)
	}
	if out := r.ok("ls", "--host", "test", "--json"); !strings.Contains(out, far.ID) || !strings.Contains(out, made.ID) {
		t.Fatalf("after the page's calls, ls --host test shows:\n%s", out)
	}

	// A local client may not relay: it reaches a host itself.
	conn, err := client.Dial(r.home)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), srvHang)
	defer cancel()
	var rpc *client.RPCError
	if err := conn.Call(ctx, proto.MethodHost, proto.HostCallParams{Host: "test", Method: proto.MethodList}, nil); !errors.As(err, &rpc) || rpc.Code != proto.CodeMethodNotFound || !strings.Contains(rpc.Message, "--host") {
		t.Fatalf("a local client's relay: %v", err)
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWebKeysReachAHostInOrder: keys a page sends a host's terminal chat
// one by one, without waiting for each answer, are typed there in the
// order they were sent (each relayed call runs on its own; the keys of one
// host wait in one line).
func TestWebKeysReachAHostInOrder(t *testing.T) {
	r := newHostRig(t)
	fake := buildFakeHarness(t)
	proj := r.dir("far/root/proj")
	conf := "default_harness = \"term\"\n[harness.term]\ncommand = \"" + fake + "\"\nenv = { ACPMUX_FAKE_MODE = \"echo\" }\n"
	if err := os.WriteFile(r.remoteConfig, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	far := r.chat("new", "--host", "test", "--cwd", proj, "--json")
	w := &webRig{cli: r.cli}
	o, token := w.openWeb()
	c := dialWeb(t, o.Listen, bearer(token))
	c.ok(proto.MethodHost, proto.HostCallParams{Host: "test", Method: proto.MethodStart, Params: mustJSON(t, proto.ChatParams{ID: far.ID})}, nil)
	render := func() string {
		var res proto.RenderResult
		c.ok(proto.MethodHost, proto.HostCallParams{Host: "test", Method: proto.MethodRender, Params: mustJSON(t, proto.RenderParams{ID: far.ID})}, &res)
		return res.Text
	}
	wait.Until(t, "the far harness's prompt", func() bool { return strings.Contains(render(), "ready>") })

	typed := "the quick brown fox jumps over the lazy dog 0123456789"
	first := c.next + 1
	for _, ch := range typed + "\r" {
		c.next++
		if err := c.c.Send(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": proto.MethodHost,
			"params": proto.HostCallParams{Host: "test", Method: proto.MethodWrite, Params: mustJSON(t, proto.WriteParams{ID: far.ID, Data: []byte(string(ch))})}}); err != nil {
			t.Fatal(err)
		}
	}
	answered := map[string]bool{}
	deadline := time.Now().Add(srvHang)
	for len(answered) < c.next-first+1 {
		b, err := c.c.Recv(deadline)
		if err != nil {
			t.Fatalf("waiting for the keys' answers (%d of %d): %v", len(answered), c.next-first+1, err)
		}
		var a webAnswer
		if json.Unmarshal(b, &a) == nil && a.Method == "" {
			if a.Error != nil {
				t.Fatalf("a key was refused: %+v", a.Error)
			}
			answered[string(a.ID)] = true
		}
	}
	wait.Until(t, "the far harness to echo the line as typed", func() bool { return strings.Contains(render(), "echo: "+typed) })
}
