package mux

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/sessions"
)

// withFakeCodex puts the fake harness in place of codex, keeping its
// sessions as Codex does under a CODEX_HOME of the test's own.
func withFakeCodex(t *testing.T) func(*config.Config, *Options) {
	codexHome := t.TempDir()
	return func(cfg *config.Config, _ *Options) {
		env := map[string]string{"ACPMUX_FAKE_CODEX": "1", "CODEX_HOME": codexHome}
		for k, v := range cfg.Harness["claude"].Env {
			env[k] = v
		}
		cfg.Harness["codex"] = config.HarnessConfig{Command: fakeHarness, Env: env}
	}
}

// codexSessionOnScreen waits for the fake Codex to name the session it
// runs, and returns the id.
func (r *rig) codexSessionOnScreen(id string) string {
	r.t.Helper()
	var sid string
	waitFor(r.t, "the Codex session on the screen", func() bool {
		for _, l := range r.mux.PlainLines(id) {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "codex session "); ok {
				sid = strings.TrimSpace(rest)
			}
		}
		return sid != "" && slices.ContainsFunc(r.mux.PlainLines(id), func(l string) bool { return strings.Contains(l, "ready>") })
	})
	return sid
}

func TestCodexLearnsItsSessionAndResumesIt(t *testing.T) {
	r := newRig(t, "echo", withFakeCodex(t))
	dirs := r.folders(2)
	m := r.create("codex", dirs)
	if err := r.mux.Start(m.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	first := r.waitRecords(1)[0]
	if want := append([]string{fakeHarness, "--sandbox", "workspace-write"}, wantFolderArgs("--add-dir", dirs)...); !slices.Equal(first.Argv, want) {
		t.Fatalf("first start argv\n got %q\nwant %q", first.Argv, want)
	}
	sid := r.codexSessionOnScreen(m.ID)
	resume := append([]string{fakeHarness, "resume", sid, "--sandbox", "workspace-write"}, wantFolderArgs("--add-dir", dirs)...)

	// A crash: the id is learned from Codex's files, stored, and the
	// respawn resumes it with the folders.
	if first.Pid <= 0 {
		t.Fatalf("no process to signal (pid %d): kill would reach the test's own group", first.Pid)
	}
	if err := syscall.Kill(first.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	respawned := r.waitRecords(2)[1]
	if !slices.Equal(respawned.Argv, resume) {
		t.Fatalf("respawn argv\n got %q\nwant %q", respawned.Argv, resume)
	}
	if got := r.loadMeta(m.ID).AgentSessionID; got != sid {
		t.Fatalf("agent_session_id %q, want %q", got, sid)
	}
	r.waitScreen(m.ID, "ready>")

	if err := r.mux.Restart(m.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	if got := r.waitRecords(3)[2]; !slices.Equal(got.Argv, resume) {
		t.Fatalf("restart argv\n got %q\nwant %q", got.Argv, resume)
	}

	r.reopen()
	if err := r.mux.Start(m.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	if got := r.waitRecords(4)[3]; !slices.Equal(got.Argv, resume) {
		t.Fatalf("start in a new mux argv\n got %q\nwant %q", got.Argv, resume)
	}
}

// A Codex run whose end no mux saw (the server was killed with it) is
// learned at the chat's next start.
func TestCodexSessionOfAnUnseenRunIsLearnedAtTheNextStart(t *testing.T) {
	r := newRig(t, "echo", withFakeCodex(t))
	m := r.create("codex", nil)
	// The run of a server that died: the fake, in the chat's folder, with
	// the harness's environment; it stores its session and ends at EOF.
	spec, _ := r.table.Get("codex")
	cmd := exec.Command(fakeHarness)
	cmd.Dir = m.Cwd
	cmd.Env = spec.Environment(m, os.Environ())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the earlier run: %v", err)
	}
	sid := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(string(out), "\r\n", 2)[0], "codex session "))

	if err := r.mux.Start(m.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	recs := r.waitRecords(2)
	if want := []string{fakeHarness, "resume", sid}; !slices.Equal(recs[1].Argv, want) {
		t.Fatalf("start argv\n got %q\nwant %q", recs[1].Argv, want)
	}
	if got := r.loadMeta(m.ID).AgentSessionID; got != sid {
		t.Fatalf("agent_session_id %q, want %q", got, sid)
	}
}

// Two Codex chats in one folder, started together, each write a session
// Codex dated inside both chats' runs: neither may take the other's.
func TestCodexChatsInOneFolderNeverTakeEachOthersSession(t *testing.T) {
	r := newRig(t, "echo", withFakeCodex(t))
	project, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var chats []*sessions.Meta
	for range 2 {
		m, err := r.store.Create(sessions.NewChat{Harness: "codex", Cwd: project})
		if err != nil {
			t.Fatal(err)
		}
		chats = append(chats, m)
	}
	for _, m := range chats {
		if err := r.mux.Start(m.ID, 100, 30); err != nil {
			t.Fatal(err)
		}
	}
	r.waitRecords(2)
	own := map[string]string{}
	for _, m := range chats {
		own[m.ID] = r.codexSessionOnScreen(m.ID)
	}
	for i, m := range chats {
		if err := r.mux.Restart(m.ID, 100, 30); err != nil {
			t.Fatal(err)
		}
		rec := r.waitRecords(3 + i)[2+i]
		other := own[chats[1-i].ID]
		if slices.Contains(rec.Argv, other) {
			t.Fatalf("chat %s restarted into the other chat's session: %q", m.ID, rec.Argv)
		}
		if got := r.loadMeta(m.ID).AgentSessionID; got != "" && got != own[m.ID] {
			t.Fatalf("chat %s stored session %q; its own is %q, the other's %q", m.ID, got, own[m.ID], other)
		}
	}
}

// A fork of a Codex chat whose parent has a session starts with
// `codex fork PARENT`, then learns and resumes its own session; the
// parent's is untouched.
func TestCodexForkBranchesTheParentsSession(t *testing.T) {
	r := newRig(t, "echo", withFakeCodex(t))
	dirs := r.folders(1)
	parent := r.create("codex", dirs)
	if err := r.mux.Start(parent.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	r.waitRecords(1)
	parentSid := r.codexSessionOnScreen(parent.ID)

	fork, err := r.store.Derive(parent.ID, sessions.Derivation{Origin: sessions.OriginFork})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.mux.Start(fork.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	first := r.waitRecords(2)[1]
	if want := append([]string{fakeHarness, "fork", parentSid, "--sandbox", "workspace-write"}, wantFolderArgs("--add-dir", dirs)...); !slices.Equal(first.Argv, want) {
		t.Fatalf("the fork's first start\n got %q\nwant %q", first.Argv, want)
	}
	forkSid := r.codexSessionOnScreen(fork.ID)
	if forkSid == parentSid {
		t.Fatal("the fork runs the parent's session")
	}
	if err := r.mux.Restart(fork.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	if got, want := r.waitRecords(3)[2].Argv, append([]string{fakeHarness, "resume", forkSid, "--sandbox", "workspace-write"}, wantFolderArgs("--add-dir", dirs)...); !slices.Equal(got, want) {
		t.Fatalf("the fork's restart\n got %q\nwant %q", got, want)
	}
	if got := r.loadMeta(parent.ID).AgentSessionID; got != parentSid {
		t.Fatalf("the parent's session became %q, want %q", got, parentSid)
	}
	if got := r.loadMeta(fork.ID).AgentSessionID; got != forkSid {
		t.Fatalf("the fork's session %q, want %q", got, forkSid)
	}
}

// TestCodexReadOnlySandboxGetsFoldersAsNote: a Codex chat whose user chose a
// read-only sandbox is not given --add-dir (the real Codex refuses it and
// exits) but the folders as a note in its developer instructions; its state
// and its file say so.
func TestCodexReadOnlySandboxGetsFoldersAsNote(t *testing.T) {
	fake := withFakeCodex(t)
	r := newRig(t, "echo", func(cfg *config.Config, o *Options) {
		fake(cfg, o)
		c := cfg.Harness["codex"]
		c.Args = []string{"--sandbox", "read-only"}
		cfg.Harness["codex"] = c
	})
	dirs := r.folders(2)
	m := r.create("codex", dirs)
	if err := r.mux.Start(m.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	argv := r.waitRecords(1)[0].Argv
	if slices.Contains(argv, "--add-dir") || len(argv) != 5 || argv[3] != "-c" || !strings.HasPrefix(argv[4], "developer_instructions=") {
		t.Fatalf("argv %q: want --sandbox read-only and the folders as developer instructions, no --add-dir", argv)
	}
	for _, d := range dirs {
		if !strings.Contains(argv[4], d) {
			t.Fatalf("developer instructions %q lack folder %q", argv[4], d)
		}
	}
	st := r.mux.State(m.ID)
	if st.Sandbox != "read-only (harness args)" || !st.FoldersReadOnly {
		t.Fatalf("state sandbox %q read-only %v", st.Sandbox, st.FoldersReadOnly)
	}
	if via := r.loadMeta(m.ID).FoldersVia; via != harness.ViaNote {
		t.Fatalf("foldersVia %q, want note", via)
	}
}
