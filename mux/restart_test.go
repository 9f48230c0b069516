package mux

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/acpmux/acpmux-tui/proto"
)

// TestRestartChecksBeforeItStops: `r` on a chat whose folder has gone is
// refused before anything is stopped. The harness keeps running (same pid,
// no new start), the refusal names the folder and is the chat's last error;
// the stored folders are untouched. Once the folder is back, the restart
// goes ahead.
func TestRestartChecksBeforeItStops(t *testing.T) {
	r := newRig(t, "echo", nil)
	dirs := r.folders(2)
	m := r.create("claude", dirs)
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	first := r.waitRecords(1)[0]
	waitFor(t, "the prompt", func() bool { return strings.Contains(strings.Join(r.mux.PlainLines(m.ID), "\n"), "ready>") })

	if err := os.Remove(dirs[1]); err != nil {
		t.Fatal(err)
	}
	err := r.mux.Restart(m.ID, 80, 24)
	var gone *proto.FoldersGoneError
	if !errors.As(err, &gone) || !gone.Running {
		t.Fatalf("restart with a gone folder: %v, want a FoldersGoneError for a running harness", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "not restarted") || !strings.Contains(msg, "keeps running") || !strings.Contains(msg, dirs[1]) || !strings.Contains(msg, "does not exist") {
		t.Fatalf("refusal %q must say the harness keeps running and name the folder", msg)
	}
	if !processAlive(first.Pid) {
		t.Fatal("the refused restart stopped the harness")
	}
	st := r.mux.State(m.ID)
	if !st.Status.Live() || st.Pid != first.Pid || !strings.Contains(st.LastError, dirs[1]) {
		t.Fatalf("state after the refusal %+v: want the same harness running, the refusal as last error", st)
	}
	if n := len(r.records()); n != 1 {
		t.Fatalf("%d starts after a refused restart, want 1", n)
	}
	if stored, _ := r.store.Load(m.ID); !slices.Equal(stored.AdditionalDirectories, dirs) {
		t.Fatalf("stored folders changed to %q", stored.AdditionalDirectories)
	}
	// The harness still answers.
	if err := r.mux.Write(m.ID, []byte("still here\r")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the echo", func() bool { return slices.Contains(r.mux.PlainLines(m.ID), "echo: still here") })

	// The folder is back: the restart stops the old harness and starts a
	// new one with both folders.
	if err := os.Mkdir(dirs[1], 0o755); err != nil {
		t.Fatal(err)
	}
	if err := r.mux.Restart(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	second := r.waitRecords(2)[1]
	if processAlive(first.Pid) || !slices.Contains(second.Argv, dirs[1]) {
		t.Fatalf("restart: old pid alive %v, new argv %q", processAlive(first.Pid), second.Argv)
	}
	if st := r.mux.State(m.ID); st.LastError != "" {
		t.Fatalf("the refusal is still the last error after a restart: %q", st.LastError)
	}
}

// TestRestartOfAStoppedChatIsAStart: a chat that is not running has nothing
// to keep, so `r` is a start, refused as a start.
func TestRestartOfAStoppedChatIsAStart(t *testing.T) {
	r := newRig(t, "echo", nil)
	dirs := r.folders(1)
	m := r.create("claude", dirs)
	if err := os.Remove(dirs[0]); err != nil {
		t.Fatal(err)
	}
	err := r.mux.Restart(m.ID, 80, 24)
	var gone *proto.FoldersGoneError
	if !errors.As(err, &gone) || gone.Running || !strings.Contains(err.Error(), "not started") {
		t.Fatalf("restart of a stopped chat: %v", err)
	}
	if st := r.mux.State(m.ID); st.Status != proto.StatusFailed {
		t.Fatalf("status %v, want failed", st.Status)
	}
}

// TestRestartTurnsThePage: after a restart the live screen no longer shows
// the earlier run; its first line is a divider naming the restart, and the
// earlier run's lines are in the scrollback above it.
func TestRestartTurnsThePage(t *testing.T) {
	r := newRig(t, "echo", nil)
	m := r.create("shell", nil)
	if err := r.mux.Start(m.ID, 60, 10); err != nil {
		t.Fatal(err)
	}
	r.waitRecords(1)
	waitFor(t, "the prompt", func() bool { return strings.Contains(strings.Join(r.mux.PlainLines(m.ID), "\n"), "ready>") })
	if err := r.mux.Write(m.ID, []byte("before the restart\r")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the echo", func() bool { return slices.Contains(r.mux.PlainLines(m.ID), "echo: before the restart") })

	if err := r.mux.Restart(m.ID, 60, 10); err != nil {
		t.Fatal(err)
	}
	r.waitRecords(2)
	var lines []string
	waitFor(t, "the new run's prompt", func() bool {
		lines = r.mux.PlainLines(m.ID)
		return len(lines) > 1 && strings.Contains(lines[1], "ready>")
	})
	if !strings.HasPrefix(lines[0], "── restarted ") || !strings.HasSuffix(lines[0], "──") {
		t.Fatalf("first line %q, want the divider", lines[0])
	}
	if live := strings.Join(lines, "\n"); strings.Contains(live, "before the restart") {
		t.Fatalf("the earlier run is still on the live screen:\n%s", live)
	}
	back := ansi.Strip(r.mux.Render(m.ID, 3))
	if !strings.Contains(back, "echo: before the restart") || strings.Index(back, "echo: before the restart") > strings.Index(back, "── restarted") {
		t.Fatalf("scrolled back, the earlier run is not above the divider:\n%s", back)
	}
}
