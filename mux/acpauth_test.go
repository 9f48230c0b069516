package mux

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// failsToSignIn starts chat id, waits for its setup to fail with the
// agent's auth_required and returns the offers its state keeps.
func (r *acpRig) failsToSignIn(id string) []proto.SignIn {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
	defer cancel()
	if err := r.mux.WaitReady(ctx, id); err == nil || !strings.Contains(err.Error(), "log in") {
		r.t.Fatalf("chat %s's setup: %v, want the agent's auth_required", id, err)
	}
	waitFor(r.t, "chat "+id+" to fail wanting a sign-in", func() bool {
		st := r.mux.State(id)
		return st.Status == proto.StatusFailed && len(st.SignIn) > 0
	})
	return r.mux.State(id).SignIn
}

// authenticates is the methodIds of the authenticate calls sent.
func (r *acpRig) authenticates() []string {
	var ids []string
	for _, req := range r.requests("authenticate") {
		var id string
		_ = json.Unmarshal(req["methodId"], &id)
		ids = append(ids, id)
	}
	return ids
}

// works checks that a prompt to chat id gets the fake agent's echo.
func (r *acpRig) works(id string) {
	r.t.Helper()
	r.ready(id)
	if _, err := r.prompt(id, "hello"); err != nil {
		r.t.Fatalf("prompt after signing in: %v", err)
	}
	if got := r.lastAgentText(id); got != "echo: hello" {
		r.t.Fatalf("agent said %q after signing in, want the echo", got)
	}
	if st := r.mux.State(id); st.SignIn != nil {
		r.t.Fatalf("the offers stay once signed in: %+v", st.SignIn)
	}
}

// TestSignInEnvVar: an env_var method's offer names its variable; once
// the variable is in the harness's env (the config) and the chat is
// started again, the mux calls authenticate with the method by itself.
func TestSignInEnvVar(t *testing.T) {
	r := newACPRig(t, map[string]string{"ACPMUX_FAKE_AUTH": "env"})
	m := r.create("fake", nil)
	offers := r.failsToSignIn(m.ID)
	if len(offers) != 1 || offers[0].Kind != proto.SignInEnv || !slices.Equal(offers[0].Vars, []string{"ACPMUX_FAKE_KEY"}) || offers[0].ID != "fake-key" {
		t.Fatalf("offers %+v, want the env method naming ACPMUX_FAKE_KEY", offers)
	}
	if len(r.authenticates()) != 0 {
		t.Fatalf("authenticate sent without the variable: %q", r.authenticates())
	}
	if _, err := r.mux.SignInOffer(m.ID, ""); err != nil {
		t.Fatalf("the only offer: %v", err)
	}
	if _, err := r.mux.SignInOffer(m.ID, "nope"); err == nil {
		t.Fatal("an offer the agent did not make was taken")
	}

	cfg := r.opt.Config
	h := cfg.Harness["fake"]
	h.Env["ACPMUX_FAKE_KEY"] = "k-123"
	table, err := harness.NewTable(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.mux.Reconfigure(cfg, table)
	if err := r.mux.Restart(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.works(m.ID)
	if got := r.authenticates(); !slices.Equal(got, []string{"fake-key"}) {
		t.Fatalf("authenticate calls %q, want one with fake-key", got)
	}
}

// TestSignInAgentMethod: an agent method's offer, taken, restarts the
// chat, which calls authenticate with it and then works.
func TestSignInAgentMethod(t *testing.T) {
	r := newACPRig(t, map[string]string{"ACPMUX_FAKE_AUTH": "agent"})
	m := r.create("fake", nil)
	offers := r.failsToSignIn(m.ID)
	if len(offers) != 1 || offers[0].Kind != proto.SignInAgent || offers[0].ID != "fake-login" || offers[0].Description != "Run `fake login` in a terminal" {
		t.Fatalf("offers %+v, want the agent method fake-login", offers)
	}
	if err := r.mux.SignInAgent(m.ID, "fake-login"); err != nil {
		t.Fatal(err)
	}
	r.works(m.ID)
	if got := r.authenticates(); !slices.Equal(got, []string{"fake-login"}) {
		t.Fatalf("authenticate calls %q, want one with fake-login", got)
	}
}

// TestSignInTerminal: a terminal method runs the harness's command with
// the method's arguments and environment in a terminal chat of its own,
// in the ACP chat's folder; when it ends the ACP chat starts again and
// works.
func TestSignInTerminal(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "logged-in")
	r := newACPRig(t, map[string]string{"ACPMUX_FAKE_AUTH": "terminal", "ACPMUX_FAKE_AUTH_MARKER": marker})
	m := r.create("fake", nil)
	offers := r.failsToSignIn(m.ID)
	if len(offers) != 1 || offers[0].Kind != proto.SignInTerminal || !slices.Equal(offers[0].Command, []string{fakeACP, "--fake-login"}) {
		t.Fatalf("offers %+v, want the terminal method running %s --fake-login", offers, fakeACP)
	}
	term, err := r.store.Create(sessions.NewChat{Harness: "shell"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.mux.RunSignInTerminal(term.ID, m.ID, offers[0]); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the sign-in terminal chat to run and exit", func() bool {
		return r.mux.State(term.ID).Status == proto.StatusExited
	})
	st := r.mux.State(term.ID)
	if !slices.Equal(st.Argv, []string{fakeACP, "--fake-login"}) || st.ExitCode != 0 {
		t.Fatalf("terminal chat ran %q and ended %d (%s)", st.Argv, st.ExitCode, st.Reason)
	}
	if b, err := os.ReadFile(marker); err != nil || string(b) != "terminal" {
		t.Fatalf("the login's marker %q, %v: the method's env did not reach its command", b, err)
	}
	waitFor(t, "the ACP chat to start again after the sign-in", func() bool {
		return r.mux.State(m.ID).Status == proto.StatusWaiting
	})
	r.works(m.ID)
	if st := r.mux.State(term.ID); st.Status != proto.StatusExited || st.Restarts != 0 {
		t.Fatalf("the sign-in ran again: %+v", st)
	}
}

// TestSignInHostileMethod: a method's name and description with escapes,
// bidi and controls reach the state clean, and the error too.
func TestSignInHostileMethod(t *testing.T) {
	r := newACPRig(t, map[string]string{"ACPMUX_FAKE_AUTH": "agent", "ACPMUX_FAKE_AUTH_NAME": `\x1b]0;pwned\x07Log\u202e in\x1b[31m\r\nnow\x9b`})
	m := r.create("fake", nil)
	offers := r.failsToSignIn(m.ID)
	for _, s := range []string{offers[0].Name, offers[0].Description, offers[0].Label(), r.mux.State(m.ID).Reason} {
		if strings.ContainsAny(s, "\x1b\x07\r\n\u202e\u009b") {
			t.Fatalf("an agent's method reached the state unclean: %q", s)
		}
	}
	if !strings.Contains(offers[0].Name, "Log") || !strings.Contains(offers[0].Name, "now") {
		t.Fatalf("name %q lost its text", offers[0].Name)
	}
}

// FuzzSignInOffer: whatever auth method an agent sends, its offer holds no
// escape, control or bidi character, and a terminal offer's command is
// the base and arguments a line can show.
func FuzzSignInOffer(f *testing.F) {
	for _, seed := range []string{
		`{"id":"pi_terminal_login","name":"Launch pi","type":"terminal","args":["--terminal-login"],"env":{}}`,
		`{"id":"openai-api-key","name":"Use OPENAI_API_KEY","type":"env_var","vars":[{"name":"OPENAI_API_KEY"}]}`,
		`{"id":"gemini-api-key","name":"Gemini API key","description":"Use an API key","_meta":{"api-key":{"provider":"google"}}}`,
		`{"id":"x","name":"\u001b[31mred\u202e","description":"a\r\nb\u0007","type":"terminal","args":["\u001b]0;t\u0007"]}`,
		`{"id":"e","name":"n","type":"env_var","vars":[{"name":"BAD NAME"}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var m acp.AuthMethod
		if json.Unmarshal(raw, &m) != nil {
			return
		}
		s, why := signInOffer(m, []string{"agent"})
		if why != "" {
			return
		}
		for _, text := range append(append([]string{s.ID, s.Name, s.Description, s.Label()}, s.Vars...), s.Command...) {
			if strings.ContainsFunc(text, func(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || plaintext.IsBidi(r) }) {
				t.Fatalf("offer %+v holds %q", s, text)
			}
		}
		if s.Kind == proto.SignInTerminal && (len(s.Command) == 0 || s.Command[0] != "agent") {
			t.Fatalf("terminal command %q lost its base", s.Command)
		}
	})
}
