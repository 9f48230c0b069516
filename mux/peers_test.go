package mux

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/sessions"
)

// peer returns a real ACP agent installed by scripts/test into .peers/, or
// skips (fails under ACPMUX_REQUIRE_PEERS=1) when it is absent. Under
// -short (scripts/test --quick) the real agents are not run at all.
func peer(t *testing.T, name string) string {
	t.Helper()
	return peerFile(t, filepath.Join(".bin", name))
}

// peerFile returns a file of the installed peers (.peers/node_modules/rel),
// or skips (fails under ACPMUX_REQUIRE_PEERS=1) when it is absent; under
// -short it always skips: the real programs are left to the full run.
func peerFile(t *testing.T, rel string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the real agents and CLIs are left to the full run")
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	p := filepath.Join(dir, ".peers", "node_modules", rel)
	if _, err := os.Stat(p); err != nil {
		acpschema.SkipUnlessPeers(t, rel+" is not installed in .peers/ (scripts/test installs it)")
	}
	return p
}

// peerRig runs one real agent as the "peer" harness, with its own HOME so
// the test neither reads nor leaves anything in the user's.
func peerRig(t *testing.T, command string, args []string) *acpRig {
	t.Helper()
	store, err := sessions.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cfg := config.Defaults()
	// A real agent can take longer than the default init_timeout to start
	// on a loaded machine: the test's bound is the hang detector's.
	cfg.ACP.InitTimeout = config.Duration{Duration: hangDeadline}
	cfg.Harness = map[string]config.HarnessConfig{"peer": {Command: command, Args: args, Transport: "acp", Env: map[string]string{
		"HOME": home, "XDG_DATA_HOME": filepath.Join(home, ".local/share"), "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_CACHE_HOME": filepath.Join(home, ".cache"), "XDG_STATE_HOME": filepath.Join(home, ".local/state"),
		"IS_SANDBOX": "1",
	}}}
	return newACPRigWith(t, store, cfg)
}

func TestOpencodeSessionLoadAndFork(t *testing.T) {
	r := peerRig(t, peer(t, "opencode"), []string{"acp"})
	dirs := r.folders(2)
	m := r.create("peer", dirs)
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.ready(m.ID)
	st := r.mux.State(m.ID)
	if st.FoldersVia != harness.ViaNote {
		t.Fatalf("opencode foldersVia %q, want note (it does not advertise the field)", st.FoldersVia)
	}
	if raw, ok := r.requests("session/new")[0]["additionalDirectories"]; ok {
		t.Fatalf("the field went to opencode, which does not advertise it: %s", raw)
	}
	stored, _ := r.store.Load(m.ID)
	if stored.AgentSessionID == "" {
		t.Fatal("no session id stored")
	}

	// A second acpmux process loads the session.
	r.reopen()
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.ready(m.ID)
	loads := r.requests("session/load")
	if len(loads) != 1 {
		t.Fatalf("%d session/load, want 1", len(loads))
	}
	var sid string
	_ = json.Unmarshal(loads[0]["sessionId"], &sid)
	if sid != stored.AgentSessionID {
		t.Fatalf("loaded %q, want %q", sid, stored.AgentSessionID)
	}

	// A fork gets its own session from session/fork, and the folders.
	child, err := r.store.Derive(m.ID, sessions.Derivation{Origin: sessions.OriginFork})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(child.AdditionalDirectories, dirs) {
		t.Fatalf("fork folders %q", child.AdditionalDirectories)
	}
	if err := r.mux.Start(child.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.ready(child.ID)
	if len(r.requests("session/fork")) != 1 {
		t.Fatal("no session/fork sent for the fork")
	}
	childMeta, _ := r.store.Load(child.ID)
	if childMeta.AgentSessionID == "" || childMeta.AgentSessionID == stored.AgentSessionID {
		t.Fatalf("fork session %q (parent %q)", childMeta.AgentSessionID, stored.AgentSessionID)
	}
	if r.mux.State(child.ID).FoldersVia != harness.ViaNote {
		t.Fatal("the fork's folders did not go as a note")
	}
}

func TestClaudeAgentACPGetsTheField(t *testing.T) {
	r := peerRig(t, peer(t, "claude-agent-acp"), nil)
	dirs := r.folders(2)
	m := r.create("peer", dirs)
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.ready(m.ID)
	if st := r.mux.State(m.ID); st.FoldersVia != harness.ViaACP {
		t.Fatalf("claude-agent-acp foldersVia %q, want acp (it advertises the capability)", st.FoldersVia)
	}
	news := r.requests("session/new")
	if got := decodeStrings(t, news[0]["additionalDirectories"]); !slices.Equal(got, dirs) {
		t.Fatalf("session/new additionalDirectories %q, want %q", got, dirs)
	}
	if stored, _ := r.store.Load(m.ID); stored.AgentSessionID == "" || stored.FoldersVia != harness.ViaACP {
		t.Fatalf("stored after the start: session %q, folders_via %q (want acp: what happened)", stored.AgentSessionID, stored.FoldersVia)
	}

	// A relative folder is refused by our validator before anything is sent.
	before := len(r.requests("session/new"))
	_, err := r.store.Create(sessions.NewChat{Harness: "peer", AdditionalDirectories: []string{"relative/dir"}})
	var fe *sessions.FolderError
	if !errors.As(err, &fe) || fe.Code() != -32602 {
		t.Fatalf("relative folder: %v, want a -32602 refusal", err)
	}
	if len(r.requests("session/new")) != before {
		t.Fatal("something was sent for a refused chat")
	}
}
