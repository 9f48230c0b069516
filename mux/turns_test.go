package mux

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// needsLog records what the mux reports to NeedsUser.
type needsLog struct {
	mu  sync.Mutex
	got []string
}

func (n *needsLog) heard(id string, s proto.Status) {
	n.mu.Lock()
	n.got = append(n.got, id+" "+s.String())
	n.mu.Unlock()
}

func (n *needsLog) list() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.got...)
}

func newTurnsRig(t *testing.T, needs *needsLog) *rig {
	return newRig(t, "echo", func(c *config.Config, o *Options) {
		c.Harness["codex"] = config.HarnessConfig{Command: fakeHarness, Env: c.Harness["shell"].Env}
		// Short, for quick tests, but past the gaps a loaded machine puts
		// between the chunks of one echo: at 50 ms, CI once saw an echo's
		// two chunks as a turn that ended and another that began.
		o.QuietAfter = 300 * time.Millisecond
		o.NeedsUser = needs.heard
	})
}

// waitStatus waits until the chat has status s, and returns its state.
func (r *rig) waitStatus(id string, s proto.Status) proto.State {
	r.t.Helper()
	var st proto.State
	waitFor(r.t, "status "+s.String(), func() bool { st = r.mux.State(id); return st.Status == s })
	return st
}

// startedClaude starts a claude chat and waits until its prompt is drawn
// and it has fallen quiet.
func (r *rig) startedClaude() *sessions.Meta {
	r.t.Helper()
	m := r.create("claude", nil)
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		r.t.Fatal(err)
	}
	r.waitScreen(m.ID, "ready>")
	r.waitStatus(m.ID, proto.StatusWaiting)
	return m
}

// TestReportedTurnsDecideTheStatus: once a Claude Code chat's hooks are
// heard, they decide its status and its output does not; after a key sent
// while it works or asks (which no hook may follow: a refused permission,
// Esc), the screen decides until the next hook.
func TestReportedTurnsDecideTheStatus(t *testing.T) {
	needs := &needsLog{}
	r := newTurnsRig(t, needs)
	m := r.startedClaude()
	if st := r.mux.State(m.ID); st.StatusFrom != proto.SourceScreen {
		t.Fatalf("before any hook the status comes from %q", st.StatusFrom)
	}
	report := func(sig harness.TurnSignal, want proto.Status) {
		t.Helper()
		if err := r.mux.Report(m.ID, sig); err != nil {
			t.Fatal(err)
		}
		if st := r.mux.State(m.ID); st.Status != want || st.StatusFrom != proto.SourceHooks {
			t.Fatalf("after %s: %s from %q, want %s from hooks", sig, st.Status, st.StatusFrom, want)
		}
	}
	report(harness.SignalWorking, proto.StatusRunning)
	report(harness.SignalDone, proto.StatusWaiting)
	// Typing a prompt echoes, which would have meant running: not now.
	if err := r.mux.Write(m.ID, []byte("typed while waiting\r")); err != nil {
		t.Fatal(err)
	}
	r.waitScreen(m.ID, "echo: typed while waiting")
	if st := r.mux.State(m.ID); st.Status != proto.StatusWaiting {
		t.Fatalf("output after the Stop hook made the chat %s", st.Status)
	}
	report(harness.SignalAsking, proto.StatusAsking)
	if !r.mux.State(m.ID).Unread {
		t.Fatal("asking while nobody looks did not mark the chat unread")
	}
	// The user answers; no hook follows, so the screen decides: its echo
	// is work, then quiet means waiting.
	if err := r.mux.Write(m.ID, []byte("no\r")); err != nil {
		t.Fatal(err)
	}
	r.waitScreen(m.ID, "echo: no")
	r.waitStatus(m.ID, proto.StatusWaiting)
	report(harness.SignalWorking, proto.StatusRunning)
	if err := r.mux.Write(m.ID, []byte("x\r")); err != nil {
		t.Fatal(err)
	}
	r.waitScreen(m.ID, "echo: x")
	report(harness.SignalReady, proto.StatusWaiting)

	// Each turn's end and the question, nobody looking: the Stop hook, the
	// question, the quiet after the answer, and the end the Ready signal
	// made of the last turn. Not the quiet after ready>: nobody had typed,
	// it had only started.
	w, a := m.ID+" waiting", m.ID+" asking"
	if got, want := needs.list(), []string{w, a, w, w}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("NeedsUser heard %q, want %q", got, want)
	}
}

// TestLookedAtChatIsNotAnnounced: a chat someone looks at is neither
// marked unread nor reported; looking clears the mark; a second viewer
// keeps it looked at when the first leaves.
func TestLookedAtChatIsNotAnnounced(t *testing.T) {
	needs := &needsLog{}
	r := newTurnsRig(t, needs)
	m := r.startedClaude()
	if err := r.mux.Report(m.ID, harness.SignalAsking); err != nil {
		t.Fatal(err)
	}
	if !r.mux.State(m.ID).Unread {
		t.Fatal("not unread")
	}
	tui, attach := new(int), new(int)
	r.mux.Look(tui, m.ID)
	if r.mux.State(m.ID).Unread {
		t.Fatal("looking at the chat did not clear its mark")
	}
	r.mux.Look(attach, m.ID)
	r.mux.Look(tui, "")
	before := len(needs.list())
	for _, sig := range []harness.TurnSignal{harness.SignalWorking, harness.SignalAsking, harness.SignalDone} {
		if err := r.mux.Report(m.ID, sig); err != nil {
			t.Fatal(err)
		}
	}
	if st := r.mux.State(m.ID); st.Unread || len(needs.list()) != before {
		t.Fatalf("a looked-at chat was announced: unread %v, heard %q", st.Unread, needs.list()[before:])
	}
	r.mux.Look(attach, "")
	for _, sig := range []harness.TurnSignal{harness.SignalWorking, harness.SignalDone} {
		if err := r.mux.Report(m.ID, sig); err != nil {
			t.Fatal(err)
		}
	}
	if got := needs.list()[before:]; fmt.Sprint(got) != fmt.Sprint([]string{m.ID + " waiting"}) || !r.mux.State(m.ID).Unread {
		t.Fatalf("after everyone left: heard %q", got)
	}
}

// TestCodexNotifyEndsTheTurn: Codex's notify program says the turn ended;
// the chat then waits until the user types, and the screen decides the
// next turn.
func TestCodexNotifyEndsTheTurn(t *testing.T) {
	r := newTurnsRig(t, &needsLog{})
	m := r.create("codex", nil)
	if err := r.mux.Report(m.ID, harness.SignalDone); !errors.Is(err, ErrUnknownChat) {
		t.Fatalf("a report for a chat not running: %v", err)
	}
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.waitScreen(m.ID, "ready>")
	if err := r.mux.Report(m.ID, harness.SignalDone); err != nil {
		t.Fatal(err)
	}
	if st := r.mux.State(m.ID); st.Status != proto.StatusWaiting || st.StatusFrom != proto.SourceNotify {
		t.Fatalf("after notify: %s from %q", st.Status, st.StatusFrom)
	}
	if err := r.mux.Write(m.ID, []byte("next\r")); err != nil {
		t.Fatal(err)
	}
	r.waitScreen(m.ID, "echo: next")
	r.waitStatus(m.ID, proto.StatusWaiting)
	r.mux.Stop(m.ID)
	if err := r.mux.Report(m.ID, harness.SignalWorking); !errors.Is(err, ErrUnknownChat) {
		t.Fatalf("a report for a stopped chat: %v", err)
	}
}

// TestQuestionOnScreenIsAsking: a terminal harness that falls quiet with a
// question on its screen that it waits to have answered (Gemini CLI's trust
// dialog) is asking, not waiting; quiet after anything else, waiting.
func TestQuestionOnScreenIsAsking(t *testing.T) {
	r := newTurnsRig(t, &needsLog{})
	m := r.create("shell", nil)
	if err := r.mux.Start(m.ID, 100, 24); err != nil {
		t.Fatal(err)
	}
	r.waitScreen(m.ID, "ready>")
	r.waitStatus(m.ID, proto.StatusWaiting)
	if err := r.mux.Write(m.ID, []byte("Do you trust the files in this folder?\r")); err != nil {
		t.Fatal(err)
	}
	r.waitScreen(m.ID, "echo: Do you trust the files in this folder?")
	r.waitStatus(m.ID, proto.StatusAsking)
}
