package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// remoteFakeClaude makes the far side's claude the fake harness (it
// prints "ready>" and echoes each line), recording each start in the
// file it returns.
func (r *hostRig) remoteFakeClaude() string {
	r.t.Helper()
	return r.remoteFake(buildFakeHarness(r.t))
}

// remoteFake makes the far side's claude the fake harness at fake.
func (r *hostRig) remoteFake(fake string) string {
	r.t.Helper()
	rec := filepath.Join(r.root, "fake-record.jsonl")
	cfg := fmt.Sprintf("default_harness = \"shell\"\n[harness.claude]\ncommand = %q\nenv = { ACPMUX_FAKE_RECORD = %q }\n", fake, rec)
	if err := os.WriteFile(r.remoteConfig, []byte(cfg), 0o644); err != nil {
		r.t.Fatal(err)
	}
	return rec
}

// newRouter is the TUI's mux as launch makes it for the rig: the local
// server's Remote and [host.test] over the real sshd.
func (r *hostRig) newRouter() *client.Router {
	r.t.Helper()
	for _, kv := range r.env() {
		k, v, _ := strings.Cut(kv, "=")
		r.t.Setenv(k, v)
	}
	conn, err := client.EnsureServer(r.home, binary)
	if err != nil {
		r.t.Fatal(err)
	}
	local, err := client.NewRemote(conn)
	if err != nil {
		r.t.Fatal(err)
	}
	local.Follow(r.home, binary)
	rt := client.NewRouter(local, []client.Host{r.host()}, client.LinkSSHOptions()...)
	r.t.Cleanup(rt.Close)
	return rt
}

// hostDown is why host test does not answer, as the Router says.
func hostDown(rt *client.Router) string {
	for _, h := range rt.Hosts() {
		if h.Name == "test" {
			return h.Down
		}
	}
	return "no host test"
}

// TestHostRouterRoutesAndReconnects: the Router lists the local chats
// (ids as they are) and the remote's ("test:ID"), routes Write and Render
// of a remote chat over ssh, and when the ssh process is killed says the
// link is down, refuses keys, dials again by itself and shows the chat,
// still running over there, as it is.
func TestHostRouterRoutesAndReconnects(t *testing.T) {
	r := newHostRig(t)
	rec := r.remoteFakeClaude()
	here := r.chat("new", "--name", "here", "--json")
	far := r.chat("new", "--host", "test", "--harness", "claude", "--name", "far", "--json")
	rt := r.newRouter()
	wait.UntilShow(t, "host test to answer", func() bool { return hostDown(rt) == "" }, func() string { return hostDown(rt) })
	if hs := rt.Hosts(); len(hs) != 2 || hs[0].Name != "local" || hs[0].Remote || hs[1].Name != "test" || !hs[1].Remote {
		t.Fatalf("hosts %+v", hs)
	}

	list, err := rt.List()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range list {
		ids = append(ids, e.ID)
	}
	id := "test" + client.HostSep + far.ID
	if !slices.Equal(ids, []string{here.ID, id}) {
		t.Fatalf("listed %v, want the local chat, then test's: %v", ids, []string{here.ID, id})
	}
	if e, err := rt.Chat(id); err != nil || e.Meta == nil || e.Meta.Name != "far" || e.ID != id {
		t.Fatalf("Chat(%s) = %+v, %v", id, e, err)
	}

	// The folder picker of a remote chat browses through the host's
	// server; the remote home is left out there.
	sub := r.dir("far-project/only-sub")
	res, err := rt.ListDirectory("test", filepath.Dir(sub))
	if err != nil || len(res.Entries) != 1 || res.Entries[0].Name != "only-sub" || !res.Entries[0].Dir {
		t.Fatalf("ListDirectory on test = %+v, %v", res, err)
	}

	rt.ResizeAll(80, 24)
	rt.Show(id)
	if err := rt.Start(id, 80, 24); err != nil {
		t.Fatalf("start the remote chat through the router: %v", err)
	}
	screen := func() string { return rt.Render(id, 0) }
	wait.UntilShow(t, "the remote chat's prompt through the router", func() bool { return strings.Contains(screen(), "ready>") }, screen)
	if err := rt.Write(id, []byte("via router\r")); err != nil {
		t.Fatal(err)
	}
	wait.UntilShow(t, "the echo of keys written through the router", func() bool { return strings.Contains(screen(), "echo: via router") }, screen)

	// A handoff of the remote chat gets the capsule its host's server
	// writes (for claude, from its session log there); of a local chat,
	// the local server writes it.
	hand := sessions.Derivation{Origin: sessions.OriginHandoff, Harness: "shell"}
	title := fmt.Sprintf("Handoff from chat \"far\" (%s, claude)", far.ID)
	text, err := rt.Capsule(id, hand)
	if err != nil || !strings.Contains(text, title) {
		t.Fatalf("Capsule(%s) = %v:\n%s", id, err, text)
	}
	hereTitle := fmt.Sprintf("Handoff from chat \"here\" (%s, shell)", here.ID)
	if text, err := rt.Capsule(here.ID, sessions.Derivation{Origin: sessions.OriginHandoff, Harness: "claude"}); err != nil || !strings.Contains(text, hereTitle) {
		t.Fatalf("Capsule(%s), a local chat = %v:\n%s", here.ID, err, text)
	}
	m, err := rt.Derive(id, hand)
	if err != nil || !strings.HasPrefix(m.ID, "test"+client.HostSep) {
		t.Fatalf("Derive of the remote chat = %+v, %v", m, err)
	}
	farStore, err := sessions.OpenStore(r.remoteHome)
	if err != nil {
		t.Fatal(err)
	}
	if text, _, err := farStore.Capsule(strings.TrimPrefix(m.ID, "test"+client.HostSep)); err != nil || !strings.Contains(text, title) {
		t.Fatalf("the handoff on the host has no capsule of the conversation (%v):\n%s", err, text)
	}

	// Its review is computed by its host's server, where its folder is:
	// a file written there since its start is listed (by mtime, as the
	// folder is no repository).
	if err := os.WriteFile(filepath.Join(far.Cwd, "written-there.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sections, err := rt.Review(id, proto.ReviewSide{})
	if err != nil || len(sections) == 0 || sections[0].Folder != far.Cwd || !slices.ContainsFunc(sections[0].Files, func(f proto.ReviewFile) bool { return f.Path == "written-there.txt" }) {
		t.Fatalf("Review(%s) = %+v, %v; want %s with written-there.txt", id, sections, err, far.Cwd)
	}
	if d, err := rt.ReviewDiff(id, sections[0], proto.ReviewFile{Path: "written-there.txt"}); err != nil || !d.NotDiffed {
		t.Fatalf("ReviewDiff on the host = %+v, %v", d, err)
	}

	pid := rt.LinkPid("test")
	if pid <= 0 {
		t.Fatalf("no ssh pid for host test (%d)", pid)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wait.UntilShow(t, "the router to say the link is down", func() bool {
		return strings.Contains(hostDown(rt), "the link to host test is down: ssh was killed")
	}, func() string { return hostDown(rt) })
	// It runs on over there: its state stays as the link left it.
	if st := rt.State(id); !st.Status.Live() {
		t.Fatalf("the remote chat's state while the link is down: %+v", st)
	}
	if err := rt.Write(id, []byte("lost keys\r")); err == nil || !strings.Contains(err.Error(), "link to host test is down") {
		// The link may already be back; then the keys went over it.
		if hostDown(rt) != "" {
			t.Fatalf("Write while the link is down: %v", err)
		}
	}
	wait.UntilShow(t, "the router to dial host test again", func() bool { return hostDown(rt) == "" }, func() string { return hostDown(rt) })
	if p := rt.LinkPid("test"); p == pid || p <= 0 {
		t.Fatalf("the link after the reconnect runs ssh %d (was %d)", p, pid)
	}
	wait.UntilShow(t, "the remote chat running again after the reconnect", func() bool { return rt.State(id).Status.Live() }, func() string { return fmt.Sprint(rt.State(id)) })
	wait.UntilShow(t, "the remote chat's screen as it is after the reconnect", func() bool { return strings.Contains(screen(), "echo: via router") }, screen)
	if err := rt.Write(id, []byte("after\r")); err != nil {
		t.Fatal(err)
	}
	wait.UntilShow(t, "the echo of keys written after the reconnect", func() bool { return strings.Contains(screen(), "echo: after") }, screen)
	if recs := readRecords(t, rec); len(recs) != 1 || syscall.Kill(recs[0].Pid, 0) != nil {
		t.Fatalf("the harness did not keep running over there: %+v", recs)
	}
	// The local chat is the local server's, as ever.
	if e, err := rt.Chat(here.ID); err != nil || e.ID != here.ID {
		t.Fatalf("Chat(%s) = %+v, %v", here.ID, e, err)
	}
}

// TestHostRouterHostThatRefuses: a host ssh cannot reach is listed with
// ssh's reason, and nothing of it is listed; the local chats are.
func TestHostRouterHostThatRefuses(t *testing.T) {
	r := newHostRig(t)
	here := r.chat("new", "--name", "here", "--json")
	h := r.host()
	h.SSHOptions = append(h.SSHOptions, "-o", "Port=1")
	for _, kv := range r.env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	conn, err := client.EnsureServer(r.home, binary)
	if err != nil {
		t.Fatal(err)
	}
	local, err := client.NewRemote(conn)
	if err != nil {
		t.Fatal(err)
	}
	rt := client.NewRouter(local, []client.Host{h}, client.LinkSSHOptions()...)
	defer rt.Close()
	wait.UntilShow(t, "host test said down with ssh's reason", func() bool {
		d := hostDown(rt)
		return strings.Contains(d, "ssh to host test (test) failed:") && strings.Contains(d, "refused")
	}, func() string { return hostDown(rt) })
	list, err := rt.List()
	if err != nil || len(list) != 1 || list[0].ID != here.ID {
		t.Fatalf("List = %v, %v; want the local chat alone", list, err)
	}
	if err := rt.Write("test"+client.HostSep+"abc", []byte("x")); err == nil || !strings.Contains(err.Error(), "host test does not answer") {
		t.Fatalf("Write to a chat of a host down: %v", err)
	}
}
