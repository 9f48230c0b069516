package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/acpmux/acpmux-tui/mux"
)

// firstControl returns the first control character in s but newline and tab
// (C0, DEL, C1, or a byte that is not UTF-8), or "" when there is none.
func firstControl(s string) string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return s[i : i+1]
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			return string(r)
		}
		i += size
	}
	return ""
}

// promptCLI is a CLI world whose "fake" harness is the fake ACP agent.
func promptCLI(t *testing.T) (*cli, string) {
	t.Helper()
	c := newCLI(t)
	state := c.dir("agent-state")
	config := "[harness.fake]\ncommand = \"" + buildACPFake(t) + "\"\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = \"" + state + "\" }\n"
	if err := os.WriteFile(c.config, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return c, c.chat("new", "--harness", "fake", "--json").ID
}

func TestCLIPromptPrintsNoControlSequences(t *testing.T) {
	c, id := promptCLI(t)
	r := c.run("prompt", id, "osc")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
	}
	for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		if ctl := firstControl(out); ctl != "" {
			t.Errorf("%s carries control %q: %q", name, ctl, out)
		}
	}
	for _, want := range []string{"before ", " middle ", " after\n", "osc: reject_once\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout %q lost %q", r.stdout, want)
		}
	}
	for _, want := range []string{
		"acpmux-tui: refused permission for Edit main.go second line\n",
		"agent: acpfake: osc on stderr",
		"agent: acpfake: session/prompt",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q lacks %q", r.stderr, want)
		}
	}
}

func TestCLIPromptShowsEveryRefusalOfConcurrentPermissions(t *testing.T) {
	c, id := promptCLI(t)
	r := c.run("prompt", id, "perms 5")
	want := "perms: Tool 1=reject_once; Tool 2=reject_once; Tool 3=reject_once; Tool 4=reject_once; Tool 5=reject_once\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(r.stderr, "acpmux-tui: refused permission for Tool "); n != 5 {
		t.Fatalf("%d refusals printed, want 5:\n%s", n, r.stderr)
	}
}

// lockedBuffer is a buffer written by the output's goroutines and read by
// the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestPromptOutputCleansWhatTheAgentWrote(t *testing.T) {
	var stdout, stderr lockedBuffer
	out := newPromptOutput(&stdout, &stderr)
	out.entry(mux.Entry{Kind: mux.EntryStderr, Text: "starting \x1b[31mnow\x1b[0m\a"})
	out.entry(mux.Entry{Kind: mux.EntryAgent, Text: "replayed before the turn"})
	out.startTurn()
	out.entry(mux.Entry{Kind: mux.EntryAgent, Text: "hi \x1b]52;c;cHduZWQ=\x07there\u009b2J"})
	out.entry(mux.Entry{Kind: mux.EntryThought, Text: "not printed"})
	out.refuse(mux.Permission{Title: "Edit \x1b]0;pwned\x07main.go"})
	out.endTurn()
	out.note("turn ended: \x1b[2Jrefusal")
	if got := stdout.String(); got != "hi there\n" {
		t.Fatalf("stdout %q", got)
	}
	want := "agent: starting now\nacpmux-tui: refused permission for Edit main.go\nacpmux-tui: turn ended: refusal\n"
	if got := stderr.String(); got != want {
		t.Fatalf("stderr %q, want %q", got, want)
	}
}

// writeSignal is a buffer that also hands each write to the test, so it
// knows a line was printed without polling.
type writeSignal struct {
	lockedBuffer
	writes chan string
}

func (w *writeSignal) Write(p []byte) (int, error) {
	n, err := w.lockedBuffer.Write(p)
	w.writes <- string(p)
	return n, err
}

func TestPromptOutputSaysNoReplyOncePerQuietSpell(t *testing.T) {
	var stdout lockedBuffer
	stderr := &writeSignal{writes: make(chan string, 16)}
	out := newPromptOutput(&stdout, stderr)
	out.startTurn()
	// The watcher's timers are the test's: each is handed over as it is
	// armed, and fires when the test says.
	timers := make(chan chan time.Time)
	after := func() <-chan time.Time {
		ch := make(chan time.Time, 1)
		timers <- ch
		return ch
	}
	ctx, cancel := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		out.watchQuiet(ctx, after)
	}()
	deadline := time.NewTimer(5 * time.Minute) // a hang, not a speed
	defer deadline.Stop()
	armed := func() chan time.Time {
		t.Helper()
		select {
		case ch := <-timers:
			return ch
		case <-deadline.C:
			t.Fatal("the watcher never armed its timer")
			return nil
		}
	}
	const noReply = "acpmux-tui: no reply yet after 10s\n"
	printed := func(want string) {
		t.Helper()
		select {
		case got := <-stderr.writes:
			if got != want {
				t.Fatalf("stderr got %q, want %q", got, want)
			}
		case <-deadline.C:
			t.Fatalf("%q was never printed", want)
		}
	}

	// A chunk before the spell ends starts it again.
	first := armed()
	out.entry(mux.Entry{Kind: mux.EntryAgent, Text: "a"})
	second := armed()
	first <- time.Now() // no longer listened to
	second <- time.Now()
	printed(noReply)
	// Said once: the next timer is armed only when the agent is heard from
	// again, and a permission request is the agent heard from too.
	out.refuse(mux.Permission{Title: "Tool 1"})
	printed("acpmux-tui: refused permission for Tool 1\n")
	third := armed()
	third <- time.Now()
	printed(noReply)
	out.entry(mux.Entry{Kind: mux.EntryAgent, Text: "b"})
	armed()
	cancel()
	<-watched
	if got := strings.Count(stderr.String(), noReply); got != 2 {
		t.Fatalf("said %d times in two quiet spells: %q", got, stderr.String())
	}
	if got := stdout.String(); got != "ab" {
		t.Fatalf("stdout %q", got)
	}
}
