package client

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
)

var (
	promptFakeOnce sync.Once
	promptFake     string
	promptFakeErr  error
)

// promptACPFake builds the fake ACP agent once, beside the binary (in the
// folder TestMain removes).
func promptACPFake(t *testing.T) string {
	t.Helper()
	promptFakeOnce.Do(func() {
		promptFake = filepath.Join(filepath.Dir(binary), "acpfake")
		if out, err := exec.Command("go", "build", "-o", promptFake, "../internal/testharness/acpfake").CombinedOutput(); err != nil {
			promptFakeErr = fmt.Errorf("build acpfake: %v\n%s", err, out)
		}
	})
	if promptFakeErr != nil {
		t.Fatal(promptFakeErr)
	}
	return promptFake
}

// promptChat starts a server for a fresh home whose "fake" harness is the
// fake ACP agent (with env added), makes a chat on it, and returns a
// connection, the chat's id and the home. The server is killed at the
// test's end.
func promptChat(t *testing.T, env string) (*Conn, string, string) {
	t.Helper()
	h := home(t)
	cfg := fmt.Sprintf("[harness.fake]\ncommand = %q\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = %q%s }\n",
		promptACPFake(t), t.TempDir(), env)
	if err := os.WriteFile(os.Getenv("ACPMUX_CONFIG"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	killAtEnd(t, h)
	c, err := EnsureServer(h, binary)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var chat proto.ChatJSON
	if err := c.Call(ctx(t), proto.MethodNew, proto.NewParams{Harness: "fake"}, &chat); err != nil {
		t.Fatal(err)
	}
	return c, chat.ID, h
}

// collected is what an observer's function has been handed.
type collected struct {
	mu      sync.Mutex
	entries []proto.ObservedEntry
	heard   chan struct{} // a signal per entry
}

func newCollected() *collected { return &collected{heard: make(chan struct{}, 1)} }

func (c *collected) add(e proto.ObservedEntry) {
	c.mu.Lock()
	c.entries = append(c.entries, e)
	c.mu.Unlock()
	select {
	case c.heard <- struct{}{}:
	default:
	}
}

// reply is the agent's text between this client's turn marks, and the
// kinds of what came in them (stderr left out).
func (c *collected) reply() (text, kinds string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	var k []string
	in := false
	for _, e := range c.entries {
		switch {
		case e.Kind == proto.EntryTurnStarted:
			in, b, k = e.Own, strings.Builder{}, nil
		case !in || e.Kind == proto.EntryStderr:
			continue
		case e.Kind == proto.EntryAgent:
			b.WriteString(e.Text)
		}
		k = append(k, e.Kind.String())
		if e.Kind == proto.EntryTurnEnded {
			in = false
		}
	}
	return b.String(), strings.Join(k, " ")
}

// wait waits until cond holds of what was handed over.
func (c *collected) wait(t *testing.T, what string, cond func([]proto.ObservedEntry) bool) {
	t.Helper()
	deadline := time.NewTimer(hangDeadline)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		ok := cond(c.entries)
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-c.heard:
		case <-deadline.C:
			c.mu.Lock()
			seen := fmt.Sprintf("%+v", c.entries)
			c.mu.Unlock()
			t.Fatalf("timed out after %v waiting for %s; saw %s", hangDeadline, what, seen)
		}
	}
}

// TestRunTurnStreamsTheReplyInOrder: the observer's function gets the
// turn's entries in order, and all of them by Sync after RunTurn; a burst
// of updates arrives whole.
func TestRunTurnStreamsTheReplyInOrder(t *testing.T) {
	c, id, _ := promptChat(t, "")
	got := newCollected()
	o, err := c.ObserveChat(ctx(t), id, got.add)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if err := c.ChatReady(ctx(t), id); err != nil {
		t.Fatal(err)
	}
	reason, err := c.RunTurn(ctx(t), id, "think", true)
	o.Sync()
	if text, kinds := got.reply(); err != nil || reason != "end_turn" || kinds != "turnStarted thought agent turnEnded" || text != "echo: think" {
		t.Fatalf("turn: %q %v; saw %q, reply %q", reason, err, kinds, text)
	}

	n := 100_000
	if raceEnabled() {
		n = 25_000
	}
	reason, err = c.RunTurn(ctx(t), id, fmt.Sprintf("burst %d", n), true)
	o.Sync()
	var want strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&want, "u%06d ", i)
	}
	if text, _ := got.reply(); err != nil || reason != "end_turn" || text != want.String() {
		t.Fatalf("burst: %q %v; %d bytes of reply, want %d", reason, err, len(text), want.Len())
	}
}

// TestCancelTurnEndsTheRunningTurn: CancelTurn from another connection
// ends the turn, and RunTurn returns "cancelled".
func TestCancelTurnEndsTheRunningTurn(t *testing.T) {
	c, id, h := promptChat(t, "")
	got := newCollected()
	o, err := c.ObserveChat(ctx(t), id, got.add)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	type result struct {
		reason string
		err    error
	}
	done := make(chan result, 1)
	go func() {
		reason, err := c.RunTurn(ctx(t), id, "slow", true)
		done <- result{reason, err}
	}()
	// The agent's stderr may come before or after its chunk: look for the
	// chunk anywhere.
	got.wait(t, "the slow turn's first chunk", func(es []proto.ObservedEntry) bool {
		return slices.ContainsFunc(es, func(e proto.ObservedEntry) bool { return e.Kind == proto.EntryAgent })
	})
	other, err := EnsureServer(h, binary)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.CancelTurn(ctx(t), id); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err != nil || r.reason != "cancelled" {
			t.Fatalf("the cancelled turn: %q %v", r.reason, r.err)
		}
	case <-time.After(hangDeadline):
		t.Fatal("the turn did not end")
	}
}

// TestChatReadySaysWhyTheAgentCannotStart: an agent that exits at once is
// an error that says so, with its last words; its stderr reached the
// observer.
func TestChatReadySaysWhyTheAgentCannotStart(t *testing.T) {
	c, id, _ := promptChat(t, `, ACPMUX_FAKE_INIT = "exit"`)
	got := newCollected()
	o, err := c.ObserveChat(ctx(t), id, got.add)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	err = c.ChatReady(ctx(t), id)
	if err == nil || !strings.Contains(err.Error(), "no config") {
		t.Fatalf("ready of an agent that exits: %v", err)
	}
	if strings.Contains(err.Error(), "(-32") {
		t.Fatalf("the error shows the wire's code: %v", err)
	}
	got.wait(t, "the agent's stderr", func(es []proto.ObservedEntry) bool {
		for _, e := range es {
			if e.Kind == proto.EntryStderr && strings.Contains(e.Text, "reading the config") {
				return true
			}
		}
		return false
	})
}

// raceEnabled reports whether the race detector is on, which makes each
// update of a burst about ten times dearer.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}
