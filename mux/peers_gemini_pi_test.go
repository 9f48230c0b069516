package mux

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// builtinPeerRig runs a real agent as the built-in harness name (its
// args, kind and folder flag as the table has them), its command the
// installed peer, with its own HOME and config folders and env added.
func builtinPeerRig(t *testing.T, name, command string, env map[string]string) *acpRig {
	t.Helper()
	store, err := sessions.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	full := map[string]string{
		"HOME": home, "XDG_DATA_HOME": filepath.Join(home, ".local/share"), "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_CACHE_HOME": filepath.Join(home, ".cache"), "XDG_STATE_HOME": filepath.Join(home, ".local/state"),
		// The peers' own programs (pi-acp runs pi) before the rest.
		"PATH": filepath.Dir(command) + string(os.PathListSeparator) + os.Getenv("PATH"),
	}
	for k, v := range env {
		full[k] = v
	}
	cfg := config.Defaults()
	cfg.ACP.InitTimeout = config.Duration{Duration: hangDeadline}
	cfg.Harness = map[string]config.HarnessConfig{name: {Command: command, Env: full}}
	return newACPRigWith(t, store, cfg)
}

// TestGeminiACPGetsFoldersAndASession: Gemini CLI 0.61 in ACP mode
// (`gemini --acp`, the built-in gemini-acp harness), offline with an
// unused key, answers initialize and session/new; it does not advertise
// additionalDirectories, so the folders go on its command line as
// --include-directories, and the field stays off the wire.
func TestGeminiACPGetsFoldersAndASession(t *testing.T) {
	r := builtinPeerRig(t, "gemini-acp", peer(t, "gemini"), map[string]string{"GEMINI_API_KEY": "unused-key"})
	dirs := r.folders(2)
	m := r.create("gemini-acp", dirs)
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.ready(m.ID)
	st := r.mux.State(m.ID)
	want := []string{"gemini", "--acp", "--include-directories", dirs[0], "--include-directories", dirs[1]}
	if !slices.Equal(st.Argv[1:], want[1:]) {
		t.Fatalf("gemini-acp started as %q, want %q", st.Argv, want)
	}
	if st.FoldersVia != harness.ViaFlag {
		t.Fatalf("foldersVia %q, want flag", st.FoldersVia)
	}
	if !strings.Contains(st.AgentName, "Gemini CLI 0.61.0") {
		t.Fatalf("agent %q, want Gemini CLI 0.61.0", st.AgentName)
	}
	news := r.requests("session/new")
	if len(news) != 1 {
		t.Fatalf("%d session/new, want 1", len(news))
	}
	if raw, ok := news[0]["additionalDirectories"]; ok {
		t.Fatalf("the field went to gemini, which does not advertise it: %s", raw)
	}
	if len(r.authenticates()) != 0 {
		t.Fatalf("authenticate sent to gemini with its key set: %q", r.authenticates())
	}
	if stored, _ := r.store.Load(m.ID); stored.AgentSessionID == "" || stored.AgentSessionID != st.SessionID {
		t.Fatalf("session %q stored as %q", st.SessionID, stored.AgentSessionID)
	}
}

// TestGeminiACPWithoutAKeyOffersSignIn: with no key, Gemini CLI answers
// session/new with auth_required; its methods are offered (agent kind),
// gemini-api-key among them, and nothing signs in by itself.
func TestGeminiACPWithoutAKeyOffersSignIn(t *testing.T) {
	r := builtinPeerRig(t, "gemini-acp", peer(t, "gemini"), map[string]string{"GEMINI_API_KEY": ""})
	m := r.create("gemini-acp", nil)
	offers := r.failsToSignIn(m.ID)
	i := slices.IndexFunc(offers, func(s proto.SignIn) bool { return s.ID == "gemini-api-key" })
	if i < 0 || offers[i].Kind != proto.SignInAgent {
		t.Fatalf("offers %+v, want gemini-api-key as an agent method", offers)
	}
	if len(r.authenticates()) != 0 {
		t.Fatalf("authenticate sent with no key: %q", r.authenticates())
	}
}

// TestPiACPOffersTerminalLogin: pi-acp 0.0.34 answers initialize without
// additionalDirectories (the folders go as the note) and, with no login,
// answers session/new with auth_required; its terminal method is offered
// as `pi-acp --terminal-login`.
func TestPiACPOffersTerminalLogin(t *testing.T) {
	bin := peer(t, "pi-acp")
	r := builtinPeerRig(t, "pi", bin, nil)
	dirs := r.folders(1)
	m := r.create("pi", dirs)
	offers := r.failsToSignIn(m.ID)
	st := r.mux.State(m.ID)
	if st.FoldersVia != harness.ViaNote {
		t.Fatalf("pi foldersVia %q, want note (it does not advertise the field)", st.FoldersVia)
	}
	if !strings.Contains(st.AgentName, "0.0.34") {
		t.Fatalf("agent %q, want pi-acp 0.0.34", st.AgentName)
	}
	if len(offers) != 1 || offers[0].ID != "pi_terminal_login" || offers[0].Kind != proto.SignInTerminal ||
		!slices.Equal(offers[0].Command, []string{bin, "--terminal-login"}) {
		t.Fatalf("pi's offers %+v, want pi_terminal_login running %s --terminal-login", offers, bin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
	defer cancel()
	if err := r.mux.WaitReady(ctx, m.ID); err == nil || !strings.Contains(err.Error(), "sign-in "+m.ID) {
		t.Fatalf("the failure %v does not point at sign-in", err)
	}
}

// TestCodexACPSignsInFromTheEnvironment: codex-acp lists env_var methods
// (openai-api-key, codex-api-key) and answers session/new with
// auth_required; with OPENAI_API_KEY in its environment the mux calls
// authenticate with openai-api-key by itself and the session is made.
func TestCodexACPSignsInFromTheEnvironment(t *testing.T) {
	r := builtinPeerRig(t, "codex-acp", peer(t, "codex-acp"), map[string]string{"OPENAI_API_KEY": "unused-key", "CODEX_API_KEY": ""})
	m := r.create("codex-acp", nil)
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.ready(m.ID)
	if got := r.authenticates(); !slices.Equal(got, []string{"openai-api-key"}) {
		t.Fatalf("authenticate calls %q, want one with openai-api-key", got)
	}
}

// TestPiTerminalLoginRunsInATerminalChat: pi-acp's terminal method runs,
// in a terminal chat, `pi-acp --terminal-login`, which starts pi itself
// (its screen says so and offers /login); when the user leaves pi
// (ctrl+d), the ACP chat starts again, and, still without a login, wants
// one again.
func TestPiTerminalLoginRunsInATerminalChat(t *testing.T) {
	bin := peer(t, "pi-acp")
	r := builtinPeerRig(t, "pi", bin, nil)
	m := r.create("pi", nil)
	offers := r.failsToSignIn(m.ID)
	starts := r.mux.State(m.ID).Restarts
	term, err := r.store.Create(sessions.NewChat{Harness: "shell"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.mux.RunSignInTerminal(term.ID, m.ID, offers[0]); err != nil {
		t.Fatal(err)
	}
	screen := func() string { return strings.Join(r.mux.PlainLines(term.ID), "\n") }
	waitFor(t, "pi's own screen in the sign-in terminal chat", func() bool {
		s := screen()
		return strings.Contains(s, "pi v0.73.1") && strings.Contains(s, "/login")
	})
	if st := r.mux.State(term.ID); !slices.Equal(st.Argv, []string{bin, "--terminal-login"}) {
		t.Fatalf("the terminal chat runs %q", st.Argv)
	}
	if err := r.mux.Write(term.ID, []byte{0x04}); err != nil { // ctrl+d: pi exits
		t.Fatal(err)
	}
	waitFor(t, "pi to exit", func() bool { return r.mux.State(term.ID).Status == proto.StatusExited })
	waitFor(t, "the pi chat to start again after the login and want one again", func() bool {
		st := r.mux.State(m.ID)
		return st.Restarts > starts && st.Status == proto.StatusFailed && len(st.SignIn) == 1
	})
}
