package client

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// waitLink waits until cond holds, looking again at each signal of Link.
func waitLink(t *testing.T, r *Remote, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(hangDeadline)
	defer deadline.Stop()
	for !cond() {
		select {
		case <-r.Link():
		case <-deadline.C:
			t.Fatalf("timed out after %v waiting for %s (lost: %v)", hangDeadline, what, r.Lost())
		}
	}
}

// waitRecorded waits until the home's server has recorded that chat id's
// harness runs with pid, as the next server reads it after a crash.
func waitRecorded(t *testing.T, home, id string, pid int) {
	t.Helper()
	path := filepath.Join(home, proto.RunningDir, id+".json")
	deadline := time.NewTimer(hangDeadline)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var rec struct {
			Pid int `json:"pid"`
		}
		if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &rec) == nil && rec.Pid == pid {
			return
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			t.Fatalf("the server has not recorded chat %s's harness %d in %s within %v", id, pid, path, hangDeadline)
		}
	}
}

// TestRemoteFollowsTheServer: a Remote that follows its agent home's
// server says when the server has gone, and connects by itself to the next
// one, whoever starts it: after a crash the chat that ran is back with its
// screen and takes keys; after kill-server StartServer starts one, and the
// chat can be started again.
func TestRemoteFollowsTheServer(t *testing.T) {
	h, _ := remoteHome(t)
	r := openRemote(t, h)
	r.Follow(h, binary)
	meta, err := r.CreateAndStart(sessions.NewChat{Harness: "fake"}, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	id := meta.ID
	r.Show(id)
	// The screen can come before the state that says the chat runs.
	waitRemote(t, r, "the chat running", func() bool { return r.State(id).Status.Live() })
	waitScreen(t, r, id, "ready>")
	first := r.State(id).Pid
	t.Cleanup(func() { killGroup(first) })

	// A crash, once the server has recorded the harness (it writes its
	// records off the start's path): what a crash before that loses is
	// the next server's to not know of.
	waitRecorded(t, h, id, first)
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
	waitLink(t, r, "the connection lost", func() bool { return r.Lost() != nil })
	if st := r.State(id); st.Status != proto.StatusFailed || !strings.Contains(st.Reason, "reconnecting when one is back") {
		t.Errorf("while the server is gone the chat is %v: %q", st.Status, st.Reason)
	}
	if err := r.Write(id, []byte("x")); err == nil {
		t.Error("a write while the server is gone succeeded")
	}

	// Another client starts the next server: the Remote finds it.
	c, err := EnsureServer(h, binary)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	waitLink(t, r, "the connection back", func() bool { return r.Lost() == nil })
	// The next server starts again the chat that ran; its screen comes
	// back to this client and it takes keys.
	waitRemote(t, r, "the chat running in the new server", func() bool {
		st := r.State(id)
		return st.Status.Live() && st.Pid != 0 && st.Pid != first
	})
	second := r.State(id).Pid
	t.Cleanup(func() { killGroup(second) })
	waitScreen(t, r, id, "ready>")
	if err := r.Write(id, []byte("after the crash\r")); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, r, id, "echo: after the crash")

	// kill-server: nothing is started again; StartServer starts a server,
	// the Remote connects at once, and the chat starts on request.
	if _, err := KillServer(ctx, h); err != nil {
		t.Fatal(err)
	}
	waitLink(t, r, "the connection lost after kill-server", func() bool { return r.Lost() != nil })
	if err := r.StartServer(); err != nil {
		t.Fatal(err)
	}
	waitLink(t, r, "the connection back after StartServer", func() bool { return r.Lost() == nil })
	waitRemote(t, r, "the chat stopped in the new server", func() bool { return r.State(id).Status == proto.StatusStopped })
	if err := r.Start(id, 80, 24); err != nil {
		t.Fatal(err)
	}
	waitRemote(t, r, "the chat started again in the server StartServer started", func() bool {
		st := r.State(id)
		return st.Status.Live() && st.Pid != 0 && st.Pid != second
	})
	third := r.State(id).Pid
	t.Cleanup(func() { killGroup(third) })
	waitScreen(t, r, id, "ready>")
}
