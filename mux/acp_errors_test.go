package mux

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	acp "github.com/coder/acp-go-sdk"
)

// newACPRigTweaked is newACPRig with a change to the config.
func newACPRigTweaked(t *testing.T, env map[string]string, tweak func(*config.Config)) *acpRig {
	t.Helper()
	store, err := sessions.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	full := map[string]string{"ACPMUX_FAKE_STATE": t.TempDir()}
	for k, v := range env {
		full[k] = v
	}
	cfg := config.Defaults()
	cfg.Harness = map[string]config.HarnessConfig{"fake": {Command: fakeACP, Transport: "acp", Env: full}}
	tweak(cfg)
	return newACPRigWith(t, store, cfg)
}

// checkShownError checks an error as the user sees it: it says want, it is
// not the SDK's anonymous "Internal error", and it carries no control
// character but newline (nothing from the agent's stderr that a terminal
// would act on).
func checkShownError(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s %q does not say %q", what, got, w)
		}
	}
	if strings.Contains(got, "Internal error") || strings.Contains(got, "-32603") {
		t.Errorf("%s %q is the SDK's anonymous internal error", what, got)
	}
	for _, r := range got {
		if (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			t.Errorf("%s %q holds control character %U", what, got, r)
			break
		}
	}
}

// transcriptErrors are the error entries of a chat's transcript, a line
// each. A turn that fails because its agent misbehaved has two: the turn's
// end and the process's, in the order the two goroutines got there.
func transcriptErrors(r *acpRig, id string) string {
	var errs []string
	for _, e := range r.mux.Transcript(id) {
		if e.Kind == proto.EntryError {
			errs = append(errs, e.Text)
		}
	}
	return strings.Join(errs, "\n")
}

// TestACPTurnErrorsNameTheirCause: a turn that fails says why, in the
// error the prompt command prints and in the transcript: the agent's bad
// line, or its exit status with its last stderr lines.
func TestACPTurnErrorsNameTheirCause(t *testing.T) {
	cases := []struct {
		prompt string
		want   []string
		// kept: the transcript keeps the error (a crashed chat is started
		// again and its load replays the conversation instead).
		kept bool
	}{
		{"huge", []string{"agent sent a line over 8 MiB during the turn"}, true},
		{"garbage", []string{`agent sent invalid JSON during the turn: "this is not JSON {{{"`}, true},
		{"crash", []string{"agent exited with status 3 during the turn", "last stderr lines", "acpfake: crashing mid-turn as asked"}, false},
	}
	for _, c := range cases {
		t.Run(c.prompt, func(t *testing.T) {
			r := newACPRig(t, nil)
			m := r.create("fake", nil)
			r.ready(m.ID)
			_, err := r.prompt(m.ID, c.prompt)
			if err == nil {
				t.Fatal("the turn reported no error")
			}
			t.Logf("shown as:\n%s", err)
			checkShownError(t, "the prompt's error", err.Error(), c.want...)
			if c.kept {
				checkShownError(t, "the transcript's errors", transcriptErrors(r, m.ID), c.want...)
			}
			if t.Failed() {
				t.Logf("log:\n%s", tail(r.logBuf.String(), 4000))
			}
		})
	}
}

// TestACPInitializeErrorsNameTheirCause: an agent that exits before it
// answers initialize, or never answers it, is reported as such, with its
// last stderr lines cleaned of control characters; one that never answers
// is given up on after [acp] init_timeout and stopped.
func TestACPInitializeErrorsNameTheirCause(t *testing.T) {
	cases := []struct {
		name, mode string
		want       []string
	}{
		{"exit", "exit", []string{"agent exited with status 3 before answering initialize",
			"acpfake: reading the config", "fatal: no config"}},
		{"timeout", "mute", []string{"agent did not answer initialize within 1s", "acpfake: mute: never answering initialize"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newACPRigTweaked(t, map[string]string{"ACPMUX_FAKE_INIT": c.mode}, func(cfg *config.Config) {
				cfg.ACP.InitTimeout = config.Duration{Duration: time.Second}
			})
			m := r.create("fake", nil)
			ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
			defer cancel()
			err := r.mux.WaitReady(ctx, m.ID)
			if err == nil {
				t.Fatal("session setup reported no error")
			}
			t.Logf("shown as:\n%s", err)
			checkShownError(t, "the error", err.Error(), c.want...)
			waitFor(t, "the chat to fail and its agent to go", func() bool {
				st := r.mux.State(m.ID)
				return st.Status == proto.StatusFailed && st.Pid == 0
			})
			checkShownError(t, "the chat's reason", r.mux.State(m.ID).Reason, c.want...)
			if t.Failed() {
				t.Logf("log:\n%s", tail(r.logBuf.String(), 4000))
			}
		})
	}
}

// TestExplainShowsTheAgentsRefusal: an error the agent itself sent is shown
// with its code, message and data, cleaned.
func TestExplainShowsTheAgentsRefusal(t *testing.T) {
	c := newACPChat(New(Options{}), "x")
	err := c.explain("session/new", refusal(-32602, "bad \x1b[31mcwd\x1b[0m\a", map[string]any{"path": "rel\x07"}), nil)
	want := `session/new: agent refused (-32602): bad cwd {"path":"rel\u0007"}`
	if err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}
}

func refusal(code int, message string, data any) error {
	return &acp.RequestError{Code: code, Message: message, Data: data}
}
