package mux

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/sessions"
)

// capsuleText is a capsule as a handoff stores it: Markdown over several
// lines, with characters a shell would trip on.
const capsuleText = "# Handoff from chat \"fix\" (a1b2c3, shell)\n\n## Goal\n\n> fix the parser; don't `rm` $HOME\n"

// createWithCapsule makes a handoff chat of harnessName whose first
// message is text.
func createWithCapsule(t *testing.T, store *sessions.Store, harnessName string, dirs []string, text string) *sessions.Meta {
	t.Helper()
	parent, err := store.Create(sessions.NewChat{Harness: "shell"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := store.Create(sessions.NewChat{Harness: harnessName, AdditionalDirectories: dirs, Parent: parent.ID, Origin: sessions.OriginHandoff, Capsule: text})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// wantSent checks the capsule has moved to its "sent" file.
func wantSent(t *testing.T, store *sessions.Store, id string) {
	t.Helper()
	if _, err := os.Lstat(store.HandoffPath(id)); err == nil {
		t.Errorf("the capsule still waits in %s", store.HandoffPath(id))
	}
	text, sent, err := store.Capsule(id)
	if err != nil || !sent || text != capsuleText {
		t.Errorf("stored capsule: sent=%v err=%v text=%q", sent, err, text)
	}
}

// The capsule reaches a pty harness's argv at its first start only: after
// the folder flags, as the harness takes a first message. The harness is
// then killed; the respawn resumes the conversation and sends it no more.
func TestCapsuleReachesThePtyHarnessOnce(t *testing.T) {
	for _, tc := range []struct {
		harness string
		first   func(sid string, dirs []string) []string
		again   func(sid string, dirs []string) []string
	}{
		{"claude",
			func(sid string, dirs []string) []string {
				return append(append([]string{fakeHarness, "--session-id", sid}, wantFolderArgs("--add-dir", dirs)...), "--", capsuleText)
			},
			func(sid string, dirs []string) []string {
				return append([]string{fakeHarness, "--resume", sid}, wantFolderArgs("--add-dir", dirs)...)
			}},
		{"gemini",
			func(sid string, dirs []string) []string {
				return append(append([]string{fakeHarness, "--session-id", sid}, wantFolderArgs("--include-directories", dirs)...), "--prompt-interactive="+capsuleText)
			},
			func(sid string, dirs []string) []string {
				return append([]string{fakeHarness, "--resume", sid}, wantFolderArgs("--include-directories", dirs)...)
			}},
	} {
		t.Run(tc.harness, func(t *testing.T) {
			r := newRig(t, "echo", nil)
			dirs := r.folders(2)
			m := createWithCapsule(t, r.store, tc.harness, dirs, capsuleText)
			if err := r.mux.Start(m.ID, 100, 30); err != nil {
				t.Fatal(err)
			}
			first := r.waitRecords(1)[0]
			sid := r.loadMeta(m.ID).AgentSessionID
			if want := tc.first(sid, dirs); !slices.Equal(first.Argv, want) {
				t.Fatalf("first start argv\n got %q\nwant %q", first.Argv, want)
			}
			wantSent(t, r.store, m.ID)
			r.waitScreen(m.ID, "ready>")
			if argv := r.mux.State(m.ID).Argv; strings.Contains(strings.Join(argv, " "), "fix the parser") || !strings.HasPrefix(argv[len(argv)-1], "<capsule, ") {
				t.Errorf("the state shows the capsule itself: %q", argv)
			}

			// A crash: the mux respawns it, resuming, with no capsule.
			if first.Pid <= 0 {
				t.Fatalf("no process to signal (pid %d): kill would reach the test's own group", first.Pid)
			}
			if err := syscall.Kill(first.Pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			again := r.waitRecords(2)[1]
			if want := tc.again(sid, dirs); !slices.Equal(again.Argv, want) {
				t.Fatalf("respawn argv\n got %q\nwant %q", again.Argv, want)
			}
			// And a restart, after acpmux-tui itself restarts.
			waitFor(t, "the respawn running", func() bool { return r.mux.State(m.ID).Pid == again.Pid })
			r.reopen()
			if err := r.mux.Start(m.ID, 100, 30); err != nil {
				t.Fatal(err)
			}
			third := r.waitRecords(3)[2]
			if slices.ContainsFunc(third.Argv, func(a string) bool { return strings.Contains(a, "fix the parser") }) {
				t.Fatalf("the capsule was sent again: %q", third.Argv)
			}
		})
	}
}

// A harness that takes no first message (a plain shell) starts without
// it, and the capsule stays waiting.
func TestCapsuleWaitsForAHarnessThatTakesNone(t *testing.T) {
	r := newRig(t, "echo", nil)
	m := createWithCapsule(t, r.store, "shell", nil, capsuleText)
	if err := r.mux.Start(m.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	if argv := r.waitRecords(1)[0].Argv; !slices.Equal(argv, []string{fakeHarness}) {
		t.Fatalf("argv %q", argv)
	}
	if text, sent, err := r.store.Capsule(m.ID); err != nil || sent || text != capsuleText {
		t.Fatalf("capsule: sent=%v err=%v", sent, err)
	}
}

// promptTexts are the texts of every session/prompt the mux sent, in order.
func promptTexts(t *testing.T, r *acpRig) []string {
	t.Helper()
	var out []string
	for _, p := range r.requests("session/prompt") {
		var blocks []struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(p["prompt"], &blocks); err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, b := range blocks {
			parts = append(parts, b.Text)
		}
		out = append(out, strings.Join(parts, "\n"))
	}
	return out
}

// An ACP chat's capsule is its first session/prompt, sent by itself once
// the session is set up. The agent crashes in that first turn; the next
// start loads the session and never sends the capsule again.
func TestCapsuleIsTheFirstACPPromptOnce(t *testing.T) {
	r := newACPRig(t, nil)
	// The fake agent crashes on a prompt whose last line is "crash".
	text := capsuleText + "crash"
	m := createWithCapsule(t, r.store, "fake", nil, text)
	r.ready(m.ID)
	waitFor(t, "the capsule's prompt", func() bool { return len(promptTexts(t, r)) >= 1 })
	var reply string
	waitFor(t, "a prompt after the crash", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
		defer cancel()
		_, err := r.mux.Prompt(ctx, m.ID, "after the crash")
		reply = r.lastAgentText(m.ID)
		return err == nil
	})
	prompts := promptTexts(t, r)
	if len(prompts) < 2 || prompts[0] != text || prompts[len(prompts)-1] != "after the crash" {
		t.Fatalf("prompts sent: %q", prompts)
	}
	n := 0
	for _, p := range prompts {
		if strings.Contains(p, "fix the parser") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the capsule was sent %d times: %q", n, prompts)
	}
	if reply != "echo: after the crash" {
		t.Errorf("reply %q", reply)
	}
	if len(r.requests("session/load")) == 0 {
		t.Error("the start after the crash did not load the session")
	}
	if _, sent, _ := r.store.Capsule(m.ID); !sent {
		t.Error("the capsule is not marked sent")
	}
}

// A fork made with a capsule (its agent might not fork) drops it when the
// agent branches the conversation with session/fork after all.
func TestCapsuleOfAnACPForkIsDroppedWhenTheAgentForks(t *testing.T) {
	r := newACPRig(t, map[string]string{"ACPMUX_FAKE_FORK": "1"})
	parent := r.create("fake", nil)
	if _, err := r.prompt(parent.ID, "first words"); err != nil {
		t.Fatal(err)
	}
	fork, err := r.store.Derive(parent.ID, sessions.Derivation{Origin: sessions.OriginFork, Capsule: capsuleText})
	if err != nil {
		t.Fatal(err)
	}
	r.ready(fork.ID)
	if len(r.requests("session/fork")) != 1 {
		t.Fatal("no session/fork")
	}
	if text, _, _ := r.store.Capsule(fork.ID); text != "" || r.loadMeta(fork.ID).Capsule {
		t.Errorf("the capsule of a native fork was kept: %q", text)
	}
	if _, err := r.prompt(fork.ID, "next"); err != nil {
		t.Fatal(err)
	}
	for _, p := range promptTexts(t, r) {
		if strings.Contains(p, "fix the parser") {
			t.Fatalf("the capsule was sent: %q", promptTexts(t, r))
		}
	}
}

func (r *acpRig) loadMeta(id string) *sessions.Meta {
	r.t.Helper()
	m, err := r.store.Load(id)
	if err != nil {
		r.t.Fatal(err)
	}
	return m
}
