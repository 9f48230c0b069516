package mux

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sandbox"
	"github.com/acpmux/acpmux-tui/sessions"
)

// sandboxedChat makes a sandboxed chat on the fake pty harness, with a
// folder, in a rig whose wrapper is wrapper.
func sandboxedChat(t *testing.T, wrapper string) (*rig, *sessions.Meta) {
	t.Helper()
	requireLandlock(t)
	r := newRig(t, "echo", func(cfg *config.Config, o *Options) {
		o.Wrapper = wrapper
		// The fake's record of its start is its own state.
		h := cfg.Harness["shell"]
		h.SandboxState = []string{filepath.Dir(h.Env["ACPMUX_FAKE_RECORD"]) + "/"}
		cfg.Harness["shell"] = h
	})
	on := true
	m, err := r.store.Create(sessions.NewChat{Harness: "shell", AdditionalDirectories: r.folders(1), Sandbox: &on})
	if err != nil {
		t.Fatal(err)
	}
	return r, m
}

// TestSandboxedChatRunsThroughTheWrapper: a sandboxed chat's harness is
// started through the wrapper, which bounds it and execs it: the harness
// itself gets its own argv and runs in the chat's folder with TMPDIR its
// scratch folder, and the chat's state says its bound.
func TestSandboxedChatRunsThroughTheWrapper(t *testing.T) {
	r, m := sandboxedChat(t, os.Args[0])
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	rec := r.waitRecords(1)[0]
	if rec.Cwd != m.Cwd || rec.Argv[0] != fakeHarness {
		t.Fatalf("the harness ran as %q in %s", rec.Argv, rec.Cwd)
	}
	if want := "TMPDIR=" + filepath.Join(r.store.Home(), "tmp", m.ID); !slices.Contains(rec.Env, want) {
		t.Errorf("env %q, want the chat's scratch folder as %s", rec.Env, want)
	}
	if st := r.mux.State(m.ID); !strings.HasPrefix(st.Bound, "landlock · writes: folder, 1 folder, tmp") {
		t.Errorf("bound %q", st.Bound)
	}
}

// TestSandboxWrapperRefusalFailsTheChat: when the wrapper refuses to run
// the harness (its bound could not be applied or proven), the chat fails
// at once with the wrapper's reason: no respawn, which would be refused
// again, and never the harness without its bound.
func TestSandboxWrapperRefusalFailsTheChat(t *testing.T) {
	refuser := filepath.Join(t.TempDir(), "refuser")
	script := "#!/bin/sh\necho '" + sandbox.RefusedPrefix + "prove: a file could be made outside the bound'\nexit 126\n"
	if err := os.WriteFile(refuser, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r, m := sandboxedChat(t, refuser)
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the chat failed on the wrapper's refusal", func() bool { return r.mux.State(m.ID).Status == proto.StatusFailed })
	st := r.mux.State(m.ID)
	if !strings.Contains(st.Reason, "a file could be made outside the bound") || st.Restarts != 0 {
		t.Fatalf("reason %q after %d restarts", st.Reason, st.Restarts)
	}
	if recs := r.records(); len(recs) != 0 {
		t.Fatalf("the harness ran: %+v", recs)
	}
}
