package client

import (
	"context"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/lockedbuf"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
)

// TestAttachFollowDialsAgain: the relay attach --host uses where ssh
// cannot be handed the terminal follows its connection: cut under it, the
// link is said down, dialed again, and the chat typed into again; ctrl+]
// ends it with the terminal as it was.
func TestAttachFollowDialsAgain(t *testing.T) {
	h, id, _ := attachChat(t)
	tt := newTestTerminal(t, 90, 20)
	first, err := dialHello(ctx(t), h)
	if err != nil {
		t.Fatal(err)
	}
	var said lockedbuf.Buffer
	notice := func(line string) { _, _ = said.Write([]byte(line + "\n")) }
	dial := func(ctx context.Context) (*Conn, error) { return dialHello(ctx, h) }
	run := &attachRun{done: make(chan struct{})}
	go func() {
		defer close(run.done)
		run.how, run.err = AttachFollow(first, dial, id, tt.tty, tt.tty, notice)
	}()
	tt.waitText("ready>")
	tt.typeIn("one\r")
	tt.waitText("echo: one")

	first.Close() // the link drops
	wait.UntilShow(t, "the link said down, then back", func() bool {
		return strings.Contains(said.String(), "reconnecting") && strings.Contains(said.String(), "the link is back: "+id)
	}, said.String)
	tt.typeIn("two\r")
	tt.waitText("echo: two")
	tt.typeIn("\x1d")
	if how, err := run.wait(t); how != "detached" || err != nil {
		t.Fatalf("AttachFollow ended %q, %v; want detached", how, err)
	}
	tt.restored()
}
