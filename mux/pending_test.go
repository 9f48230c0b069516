package mux

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/acp/agent"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// setFolders stores a chat's folders as add-dir or the picker does, and
// tells the mux.
func setFolders(t *testing.T, store *sessions.Store, m *Mux, id string, dirs []string) {
	t.Helper()
	if _, err := store.Update(id, func(meta *sessions.Meta) error {
		meta.AdditionalDirectories = dirs
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := m.FoldersChanged(id); err != nil {
		t.Fatal(err)
	}
}

// A pty chat busy in a turn keeps running with its folders while they are
// changed twice; once it waits for input it is restarted once, resuming
// its conversation with the final list.
func TestFoldersChangedMidTurnApplyAtItsEnd(t *testing.T) {
	// The quiet spell never ends a turn here: only the harness's bell does.
	r := newRig(t, "echo", func(_ *config.Config, o *Options) { o.QuietAfter = time.Hour })
	dirs := r.folders(3)
	m := r.create("claude", dirs[:1])
	if err := r.mux.Start(m.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	first := r.waitRecords(1)[0]
	r.waitScreen(m.ID, "ready>") // busy: output and no bell, so running
	if st := r.mux.State(m.ID); st.Status != proto.StatusRunning {
		t.Fatalf("the fake is %v, want running", st.Status)
	}

	setFolders(t, r.store, r.mux, m.ID, dirs[:2])
	setFolders(t, r.store, r.mux, m.ID, []string{dirs[2]})
	st := r.mux.State(m.ID)
	if !slices.Equal(st.PendingDirectories, []string{dirs[2]}) || st.Pid != first.Pid {
		t.Fatalf("mid-turn: pending %q, pid %d (first %d)", st.PendingDirectories, st.Pid, first.Pid)
	}
	if added, removed := st.PendingChange(); !slices.Equal(added, []string{dirs[2]}) || !slices.Equal(removed, []string{dirs[0]}) {
		t.Fatalf("pending change: adds %q removes %q", added, removed)
	}
	if n := len(r.records()); n != 1 {
		t.Fatalf("%d starts mid-turn, want 1", n)
	}

	// The turn ends: the harness rings (its echo of a BEL).
	if err := r.mux.Write(m.ID, []byte("done\a\r")); err != nil {
		t.Fatal(err)
	}
	again := r.waitRecords(2)[1]
	sid := r.loadMeta(m.ID).AgentSessionID
	want := append([]string{fakeHarness, "--resume", sid}, wantFolderArgs("--add-dir", []string{dirs[2]})...)
	if !slices.Equal(again.Argv, want) {
		t.Fatalf("the restart at the end of the turn\n got %q\nwant %q", again.Argv, want)
	}
	waitFor(t, "the restarted harness", func() bool { return r.mux.State(m.ID).Pid == again.Pid })
	if st := r.mux.State(m.ID); st.PendingDirectories != nil {
		t.Fatalf("still pending after the restart: %q", st.PendingDirectories)
	}
	r.waitScreen(m.ID, "ready>")
	if n := len(r.records()); n != 2 {
		t.Fatalf("%d starts for two changes, want 2", n)
	}
}

// A change to a chat that waits for input is applied at once; one to a
// harness that cannot resume its conversation waits for a restart the user
// asks for.
func TestFoldersChangedIdleAndFreshHarness(t *testing.T) {
	r := newRig(t, "bell", func(_ *config.Config, o *Options) { o.QuietAfter = time.Hour })
	dirs := r.folders(1)
	m := r.create("claude", nil)
	if err := r.mux.Start(m.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	r.waitRecords(1)
	waitFor(t, "the chat waiting", func() bool { return r.mux.State(m.ID).Status == proto.StatusWaiting })
	setFolders(t, r.store, r.mux, m.ID, dirs)
	if rec := r.waitRecords(2)[1]; !slices.Contains(rec.Argv, dirs[0]) || !slices.Contains(rec.Argv, "--resume") {
		t.Fatalf("the idle chat's restart: %q", rec.Argv)
	}

	sh := r.create("shell", nil)
	if err := r.mux.Start(sh.ID, 100, 30); err != nil {
		t.Fatal(err)
	}
	r.waitRecords(3)
	waitFor(t, "the shell waiting", func() bool { return r.mux.State(sh.ID).Status == proto.StatusWaiting })
	setFolders(t, r.store, r.mux, sh.ID, dirs)
	st := r.mux.State(sh.ID)
	if !slices.Equal(st.PendingDirectories, dirs) || !st.PendingUntilRestart {
		t.Fatalf("a harness that starts fresh: %+v", st)
	}
	if n := len(r.records()); n != 3 {
		t.Fatalf("a harness that cannot resume was restarted: %d starts", n)
	}
}

// An ACP chat in the middle of a turn: the folders change twice; a folder
// removed is refused by fs/* at once; the agent is restarted once the turn
// ends and loads its session with the final list.
func TestACPFoldersChangedMidTurn(t *testing.T) {
	r := newACPRig(t, map[string]string{"ACPMUX_FAKE_ADVERTISE": "1"})
	dirs := r.folders(3)
	m := r.create("fake", dirs[:2])
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.ready(m.ID)
	done := make(chan error, 1)
	go func() {
		_, err := r.mux.Prompt(context.Background(), m.ID, "slow")
		done <- err
	}()
	waitFor(t, "the slow turn", func() bool { return r.mux.State(m.ID).TurnActive })

	setFolders(t, r.store, r.mux, m.ID, dirs[1:2])
	setFolders(t, r.store, r.mux, m.ID, dirs[1:3])
	c, _ := r.mux.existing(m.ID)
	proc := c.(*acpChat).proc
	if _, err := proc.roots.ReadText(context.Background(), dirs[0]+"/x.txt", nil, nil, 1<<20); err == nil || !strings.Contains(err.Error(), agent.RefusalOutside) {
		t.Fatalf("a removed folder is still served: %v", err)
	}
	st := r.mux.State(m.ID)
	if !slices.Equal(st.PendingDirectories, dirs[1:3]) || !st.TurnActive {
		t.Fatalf("mid-turn: %+v", st)
	}
	if n := len(r.requests("session/load")); n != 0 {
		t.Fatalf("%d loads mid-turn", n)
	}

	if err := r.mux.Cancel(m.ID); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the session loaded again", func() bool { return len(r.requests("session/load")) == 1 })
	r.ready(m.ID)
	load := r.requests("session/load")[0]
	if got := decodeStrings(t, load["additionalDirectories"]); !slices.Equal(got, dirs[1:3]) {
		t.Fatalf("session/load additionalDirectories %q, want %q", got, dirs[1:3])
	}
	if st := r.mux.State(m.ID); st.PendingDirectories != nil {
		t.Fatalf("still pending: %q", st.PendingDirectories)
	}
	if n := len(r.requests("session/load")); n != 1 {
		t.Fatalf("%d loads for two changes, want 1", n)
	}
}
