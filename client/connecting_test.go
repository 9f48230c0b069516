package client

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// TestConnectingRemoteWaitsForItsServer: a Remote made before its first
// connection (the TUI that finds no server) says nothing is lost, holds
// every chat stopped, takes a Look at once, and a call made meanwhile waits and then reaches the
// server that ConnectWith started, as does the chat it asked to show: the
// screen comes without being asked. Link tells nothing of the first
// connection, and Connected says it was made.
func TestConnectingRemoteWaitsForItsServer(t *testing.T) {
	h, _ := remoteHome(t)
	r := NewConnectingRemote()
	t.Cleanup(r.Close)
	r.Follow(h, binary)
	if err := r.Lost(); err != nil {
		t.Fatalf("a connecting Remote says it lost its server: %v", err)
	}
	if st := r.State("abc"); st.Status != proto.StatusStopped {
		t.Fatalf("a chat before the first connection is %v, want stopped", st.Status)
	}
	// Which chat the TUI shows is said as it draws: it is kept for the
	// first connection, not waited on (a Look that waited would fail after
	// StartTimeout).
	if err := r.Look("abc"); err != nil {
		t.Fatalf("Look before the first connection: %v", err)
	}
	type created struct {
		meta *sessions.Meta
		err  error
	}
	made := make(chan created, 1)
	go func() {
		m, err := r.CreateAndStart(sessions.NewChat{Harness: "fake"}, 80, 24)
		made <- created{m, err}
	}()
	select {
	case c := <-made:
		t.Fatalf("a call before the first connection did not wait for it: %+v, %v", c.meta, c.err)
	case <-time.After(50 * time.Millisecond):
	}
	if c, err := Dial(h); err == nil {
		c.Close()
		t.Fatal("a server answers before ConnectWith started one")
	}
	if err := r.ConnectWith(func() (*Conn, error) { return EnsureServer(h, binary) }); err != nil {
		t.Fatal(err)
	}
	if connecting, err := r.Connected(); !connecting || err != nil {
		t.Fatalf("Connected after the first connection: %v, %v", connecting, err)
	}
	var c created
	select {
	case c = <-made:
	case <-time.After(hangDeadline):
		t.Fatalf("the call made before the first connection did not end within %v of it", hangDeadline)
	}
	if c.err != nil {
		t.Fatal(c.err)
	}
	id := c.meta.ID
	r.Show(id)
	waitRemote(t, r, "the chat running", func() bool { return r.State(id).Status.Live() })
	pid := r.State(id).Pid
	t.Cleanup(func() { killGroup(pid) })
	waitScreen(t, r, id, "ready>")
	select {
	case <-r.Link():
		t.Error("the first connection was told on Link as a connection back")
	default:
	}
}

// TestConnectingRemoteThatCannotConnect: a first connection that fails
// leaves the Remote lost, with the reason, told on Link and by Connected;
// a call then fails at once, saying why, rather than waiting.
func TestConnectingRemoteThatCannotConnect(t *testing.T) {
	r := NewConnectingRemote()
	t.Cleanup(r.Close)
	why := errors.New("start the server for /nowhere: the agent home cannot be made")
	if err := r.ConnectWith(func() (*Conn, error) { return nil, why }); !errors.Is(err, why) {
		t.Fatalf("ConnectWith = %v, want %v", err, why)
	}
	if _, err := r.Connected(); !errors.Is(err, why) {
		t.Fatalf("Connected = %v, want %v", err, why)
	}
	select {
	case <-r.Link():
	default:
		t.Fatal("the failed first connection was not told on Link")
	}
	if err := r.Lost(); !errors.Is(err, why) {
		t.Fatalf("Lost = %v, want %v", err, why)
	}
	// (A call that waited would fail after StartTimeout, saying so.)
	if err := r.Fill(); err == nil || !strings.Contains(err.Error(), "cannot be made") {
		t.Fatalf("a call after the failed first connection: %v", err)
	}
}
