package mux

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// hostileSessionID is what an agent answered session/new with in the
// attack: a path that climbs out of any folder, then an OSC that renames
// the terminal's window.
const hostileSessionID = "../../../outside/stolen\x1b]0;X\a"

// TestACPHostileSessionIDIsRefused: an agent that answers session/new with
// a session id that is no file name and holds an escape sequence is
// refused: the start fails with the reason (the id quoted with its
// controls escaped), the chat stores no session id, nothing on disk is
// named after it, and a prompt is refused the same way instead of sending
// the id back to the agent.
func TestACPHostileSessionIDIsRefused(t *testing.T) {
	r := newACPRig(t, map[string]string{"ACPMUX_FAKE_SESSION_ID": hostileSessionID})
	m := r.create("fake", nil)
	ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
	defer cancel()
	err := r.mux.WaitReady(ctx, m.ID)
	if err == nil {
		t.Fatal("session setup accepted the session id")
	}
	want := []string{"session/new: agent answered with an unusable session id",
		`"../../../outside/stolen\x1b]0;X\a"`, "not printable (U+001B)"}
	checkShownError(t, "the error", err.Error(), want...)
	waitFor(t, "the chat to fail and its agent to go", func() bool {
		st := r.mux.State(m.ID)
		return st.Status == proto.StatusFailed && st.Pid == 0
	})
	st := r.mux.State(m.ID)
	checkShownError(t, "the chat's reason", st.Reason, want...)
	if st.SessionID != "" {
		t.Errorf("the chat's state holds session id %q", st.SessionID)
	}
	if got := r.loadMeta(m.ID).AgentSessionID; got != "" {
		t.Errorf("the chat file stores agent_session_id %q", got)
	}

	if _, err := r.prompt(m.ID, "hello"); err == nil {
		t.Error("a prompt went through on a refused session")
	} else {
		checkShownError(t, "the prompt's error", err.Error(), want...)
	}
	for _, p := range r.requests("session/prompt") {
		t.Errorf("sent session/prompt with %s", p["sessionId"])
	}

	// Nothing anywhere under the test's folders (the agent home, the fake's
	// state folder) is named after the id, nor did "outside" appear beside
	// them.
	root := filepath.Dir(r.store.Home()) // the test's own temporary folder
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && (strings.Contains(d.Name(), "stolen") || d.Name() == "outside") {
			t.Errorf("%s was created from the session id", path)
		}
		return nil
	})
	if strings.Contains(r.logBuf.String(), "\x1b") {
		t.Errorf("the log holds a raw escape:\n%s", tail(r.logBuf.String(), 2000))
	}
}
