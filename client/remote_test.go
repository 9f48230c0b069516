package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/internal/testharness/startrecord"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// fakeBuild builds one of the fake harnesses once for the package's tests,
// beside the acpmux-tui TestMain built (removed with it).
type fakeBuild struct {
	once sync.Once
	path string
	err  error
}

var ptyfake, acpfake fakeBuild

func (b *fakeBuild) get(t *testing.T, name string) string {
	t.Helper()
	b.once.Do(func() {
		b.path = filepath.Join(filepath.Dir(binary), name)
		if out, err := exec.Command("go", "build", "-o", b.path, "../internal/testharness/"+name).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("build %s: %v\n%s", name, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// remoteHome is an agent home whose config has a harness "fake" (the pty
// fake in echo mode) and "acp" (the ACP fake), with a server killed at the
// test's end; it returns the home and the file the pty fake records its
// starts to.
func remoteHome(t *testing.T) (string, string) {
	t.Helper()
	h := home(t)
	rec := filepath.Join(filepath.Dir(h), "starts.jsonl")
	cfg := fmt.Sprintf("default_harness = \"fake\"\n[harness.fake]\ncommand = %q\nenv = { ACPMUX_FAKE_RECORD = %q }\n"+
		"[harness.acp]\ncommand = %q\ntransport = \"acp\"\n",
		ptyfake.get(t, "ptyfake"), rec, acpfake.get(t, "acpfake"))
	if err := os.WriteFile(os.Getenv("ACPMUX_CONFIG"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	killAtEnd(t, h)
	return h, rec
}

func openRemote(t *testing.T, h string) *Remote {
	t.Helper()
	c, err := EnsureServer(h, binary)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRemote(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// waitRemote waits until cond holds, looking again at each change notice
// (cond reads the chat, which lets the next notice come).
func waitRemote(t *testing.T, r *Remote, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(hangDeadline)
	defer deadline.Stop()
	// Changes wakes the wait at once; the tick looks again now and then,
	// so a condition that holds without a notice of its own (a chat the
	// server revives while this client reconnects) is seen too.
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-r.Changes():
		case <-tick.C:
		case <-deadline.C:
			t.Fatalf("timed out after %v waiting for %s (lost: %v; chats: %s)", hangDeadline, what, r.Lost(), r.describeChats())
		}
	}
}

// describeChats says each chat's status, pid and reason as the Remote
// holds them, for a wait that timed out.
func (r *Remote) describeChats() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for id, ch := range r.chats {
		st := ch.view.State
		fmt.Fprintf(&b, "%s %s pid %d %q; ", id, st.Status, st.Pid, st.Reason)
	}
	return b.String()
}

func waitScreen(t *testing.T, r *Remote, id, text string) {
	t.Helper()
	waitRemote(t, r, fmt.Sprintf("%q on the screen", text), func() bool {
		r.State(id)
		return strings.Contains(r.Render(id, 0), text)
	})
}

// killGroup kills the process group pid leads. A pid not known (0) is
// left alone: kill(0) would kill the test's own group, go test with it.
func killGroup(pid int) {
	if pid > 0 {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
}

func alive(pid int) bool { return pid > 0 && syscall.Kill(pid, 0) == nil }

// TestRemoteTwoClientsOneChat: a chat made through one Remote is seen by a
// second one with the same screen; both type into it; the pty takes the
// size of the one that typed last; closing both leaves the harness running.
func TestRemoteTwoClientsOneChat(t *testing.T) {
	h, rec := remoteHome(t)
	a := openRemote(t, h)
	a.ResizeAll(100, 30)
	meta, err := a.CreateAndStart(sessions.NewChat{Harness: "fake", Name: "shared"}, 100, 30)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Name != "shared" || meta.Harness != "fake" || !sessions.ValidID(meta.ID) {
		t.Fatalf("created %+v", meta)
	}
	id := meta.ID
	waitRemote(t, a, "the chat running", func() bool { return a.State(id).Status.Live() })
	waitScreen(t, a, id, "ready>")
	pid := a.State(id).Pid
	if recs, err := startrecord.Read(rec); err != nil || len(recs) != 1 || recs[0].Pid != pid {
		t.Fatalf("starts %+v (%v), chat pid %d", recs, err, pid)
	}
	if term := a.Terminal(id); term.Cols != 100 || term.Rows != 30 {
		t.Fatalf("terminal %+v, want 100x30", term)
	}

	b := openRemote(t, h)
	// The second client is told of the chat at once, as it is.
	waitRemote(t, b, "the chat in the second client", func() bool { return b.State(id).Pid == pid })
	if sa, sb := a.Render(id, 0), b.Render(id, 0); sa != sb || !strings.Contains(sb, "ready>") {
		t.Fatalf("two screens:\n%s\n---\n%s", sa, sb)
	}

	if err := b.Write(id, []byte("from b\r")); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, a, id, "echo: from b")
	waitScreen(t, b, id, "echo: from b")

	// The resize is told though the harness prints nothing: it waits.
	waitRemote(t, a, "the chat waiting for input", func() bool { return a.State(id).Status == proto.StatusWaiting })
	b.ResizeAll(90, 20)
	waitRemote(t, a, "the first client told of the resize", func() bool {
		a.State(id)
		term := a.Terminal(id)
		return term.Cols == 90 && term.Rows == 20
	})
	if err := a.Write(id, []byte("from a\r")); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, b, id, "echo: from a")
	waitRemote(t, b, "the pty back at the typist's size", func() bool {
		b.State(id)
		term := b.Terminal(id)
		return term.Cols == 100 && term.Rows == 30
	})
	if got := b.Transcript(id); len(got) != 0 {
		t.Fatalf("a pty chat's transcript: %+v", got)
	}

	a.Close()
	b.Close()
	if !alive(pid) {
		t.Fatal("closing the clients stopped the harness")
	}
	if st := StatusOf(LiveStatuses(h), id); st != "running" && st != "waiting" {
		t.Fatalf("after both clients left the chat is %q", st)
	}
}

// TestRemoteErrorsKeepTheirType: the errors the TUI looks into arrive as
// the embedded mux returns them.
func TestRemoteErrorsKeepTheirType(t *testing.T) {
	h, _ := remoteHome(t)
	r := openRemote(t, h)
	r.ResizeAll(80, 24)

	lib := filepath.Join(t.TempDir(), "lib")
	if err := os.Mkdir(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	lib, _ = filepath.EvalSymlinks(lib)
	_, err := r.CreateAndStart(sessions.NewChat{Harness: "fake", AdditionalDirectories: []string{"relative", lib, "/no/such"}}, 80, 24)
	fe, ok := sessions.AsFolderError(err)
	if !ok || len(fe.Problems) != 2 || fe.Problems[0].Path != "relative" || fe.Problems[1].Path != "/no/such" {
		t.Fatalf("folder refusal: %#v", err)
	}
	if !strings.Contains(err.Error(), "[0] ") || !strings.Contains(err.Error(), "/no/such") {
		t.Fatalf("refusal text: %q", err)
	}

	meta, err := r.CreateAndStart(sessions.NewChat{Harness: "fake", AdditionalDirectories: []string{lib}}, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	waitRemote(t, r, "the chat running", func() bool { return r.State(meta.ID).Status.Live() })
	pid := r.State(meta.ID).Pid
	if err := os.Remove(lib); err != nil {
		t.Fatal(err)
	}
	var gone *proto.FoldersGoneError
	if err := r.Restart(meta.ID, 80, 24); !errors.As(err, &gone) || !gone.Running || len(gone.Problems) != 1 || gone.Problems[0].Path != lib {
		t.Fatalf("restart with a folder gone: %#v", err)
	}
	if !alive(pid) || r.State(meta.ID).Pid != pid {
		t.Fatal("a refused restart stopped the harness")
	}
	r.Stop(meta.ID)
	waitRemote(t, r, "the chat stopped", func() bool { return r.State(meta.ID).Status == proto.StatusStopped })
	if err := r.Start(meta.ID, 80, 24); !errors.As(err, &gone) || gone.Running {
		t.Fatalf("start with a folder gone: %#v", err)
	}
	if err := r.Start("nosuchchat", 80, 24); !errors.Is(err, sessions.ErrNotFound) {
		t.Fatalf("start of no chat: %#v", err)
	}
	if err := r.Write("nosuchchat", []byte("x")); err == nil {
		t.Fatal("a write to no chat succeeded")
	}
	if _, err := r.CreateAndStart(sessions.NewChat{Harness: "fake", Parent: meta.ID}, 80, 24); err == nil {
		t.Fatal("a parent was dropped on the way to the server")
	}
	r.Forget(meta.ID)
	if st := r.State(meta.ID); st.Status != proto.StatusStopped {
		t.Fatalf("a forgotten chat: %+v", st)
	}
}

// TestRemoteServerGone: when the server dies (kill -9), a running chat is
// shown failed with the reason, its last screen stays, and calls fail at
// once instead of waiting.
func TestRemoteServerGone(t *testing.T) {
	h, _ := remoteHome(t)
	r := openRemote(t, h)
	meta, err := r.CreateAndStart(sessions.NewChat{Harness: "fake"}, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	id := meta.ID
	// The screen can reach the client before the state that says the chat
	// runs; a chat not yet seen running is not one the loss fails.
	waitRemote(t, r, "the chat running", func() bool { return r.State(id).Status.Live() })
	waitScreen(t, r, id, "ready>")
	harness := r.State(id).Pid
	// Whatever the server leaves of its harness goes with the test.
	t.Cleanup(func() { killGroup(harness) })
	ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
	defer cancel()
	hello, err := r.c.Hello(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if hello.Pid <= 0 {
		t.Fatalf("no process to signal (pid %d): kill would reach the test's own group", hello.Pid)
	}
	if err := syscall.Kill(hello.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitRemote(t, r, "the chat shown failed", func() bool {
		st := r.State(id)
		return st.Status == proto.StatusFailed && strings.Contains(st.Reason, "lost the connection to the server")
	})
	if !strings.Contains(r.Render(id, 0), "ready>") {
		t.Fatal("the last screen is not kept")
	}
	if err := r.Write(id, []byte("x")); err == nil || !strings.Contains(err.Error(), "lost the connection") {
		t.Fatalf("a write after the server went: %v", err)
	}
	if err := r.Start(id, 80, 24); err == nil {
		t.Fatal("a start after the server went succeeded")
	}
}

// remoteACPChat is a Remote on a fresh home's server with an ACP chat of
// the fake agent started, its home, and a context the test's calls share.
func remoteACPChat(t *testing.T) (home string, r *Remote, id string, ctx context.Context) {
	t.Helper()
	h, _ := remoteHome(t)
	r = openRemote(t, h)
	meta, err := r.CreateAndStart(sessions.NewChat{Harness: "acp"}, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
	t.Cleanup(cancel)
	return h, r, meta.ID, ctx
}

// TestRemoteACPTurn: a prompt through the Remote runs a turn in the server
// and answers its stop reason; the transcript is pulled from the server.
func TestRemoteACPTurn(t *testing.T) {
	_, r, id, ctx := remoteACPChat(t)
	reason, err := r.Prompt(ctx, id, "hello there")
	if err != nil || reason != "end_turn" {
		t.Fatalf("prompt: %q %v", reason, err)
	}
	waitRemote(t, r, "the reply in the transcript", func() bool {
		r.State(id)
		for _, e := range r.Transcript(id) {
			if e.Kind == proto.EntryAgent && strings.Contains(e.Text, "echo: hello there") {
				return true
			}
		}
		return false
	})
	waitRemote(t, r, "the turn over", func() bool { return !r.State(id).TurnActive })
	if err := r.AnswerPermission(id, "allow"); err == nil {
		t.Fatal("an answer with no request pending was taken")
	}
	if st := r.State(id); st.Transport != "acp" || !st.Status.Live() {
		t.Fatalf("state %+v", st)
	}
}

// TestRemotePermissionOutlivesTheClient: a client that closes while its
// turn waits on a permission request leaves the turn waiting in the
// server; a client that opens later finds the request and the transcript,
// answers it, and the turn ends.
func TestRemotePermissionOutlivesTheClient(t *testing.T) {
	h, _ := remoteHome(t)
	first := openRemote(t, h)
	meta, err := first.CreateAndStart(sessions.NewChat{Harness: "acp"}, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	id := meta.ID
	asked := make(chan error, 1)
	go func() {
		_, err := first.Prompt(context.Background(), id, "permission")
		asked <- err
	}()
	waitRemote(t, first, "the permission request", func() bool { return first.State(id).Permission != nil })
	first.Close()
	if err := <-asked; err == nil {
		t.Fatal("the prompt of a closed client answered")
	}

	second := openRemote(t, h)
	waitRemote(t, second, "the permission request, seen again", func() bool {
		p := second.State(id).Permission
		return p != nil && strings.Contains(p.Title, "Fake tool") && second.State(id).TurnActive
	})
	asked2 := false
	for _, e := range second.Transcript(id) {
		asked2 = asked2 || (e.Kind == proto.EntryUser && strings.Contains(e.Text, "permission"))
	}
	if !asked2 {
		t.Fatalf("the transcript lost the prompt: %+v", second.Transcript(id))
	}
	if err := second.AnswerPermission(id, "allow_once"); err != nil {
		t.Fatal(err)
	}
	waitRemote(t, second, "the turn to end", func() bool {
		st := second.State(id)
		if st.TurnActive || st.Permission != nil {
			return false
		}
		for _, e := range second.Transcript(id) {
			if e.Kind == proto.EntryAgent && strings.Contains(e.Text, "permission: allow_once") {
				return true
			}
		}
		return false
	})
}
