package tui

import (
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// TestSummaryWords: the summary shows the command as configured (a path
// stays a path, not a base name that reads like the harness's name), one
// restart as "1 restart", and a pending change of folders in the one
// wording `show` and the docs use.
func TestSummaryWords(t *testing.T) {
	r := newRig(t, nil)
	lib := "/l" // shown, never opened: a short path fits the pane
	a := r.create(sessions.NewChat{Name: "zap"})
	r.fake.set(a.ID, proto.State{
		Status: proto.StatusRunning, Pid: 4242, Restarts: 1,
		Argv:               []string{"/opt/wrap/shell-wrap", "-i"},
		PendingDirectories: []string{lib},
	}, "")
	r.open(Options{})
	r.m.sidebar.Select(a.ID)
	r.m.refreshSelected()
	v := r.m.View()
	for _, want := range []string{"/opt/wrap/shell-wrap -i", "1 restart", "adds " + lib + " " + proto.PendingAtTurnEnd} {
		if !strings.Contains(v, want) {
			t.Errorf("the summary does not say %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "1 restarts") {
		t.Errorf("the summary says \"1 restarts\":\n%s", v)
	}
	// A path too long for the row keeps the arguments: its folder goes.
	long := "/" + strings.Repeat("d", 90) + "/shell-wrap"
	r.fake.set(a.ID, proto.State{Status: proto.StatusRunning, Pid: 4242, Argv: []string{long, "--add-dir", "/x"}}, "")
	r.m.refreshSelected()
	if v := r.m.View(); !strings.Contains(v, "…/shell-wrap --add-dir /x") {
		t.Errorf("a long command path does not leave room for its arguments:\n%s", v)
	}
	r.fake.set(a.ID, proto.State{Status: proto.StatusRunning, Pid: 4242, PendingDirectories: []string{lib}, PendingUntilRestart: true}, "")
	r.m.refreshSelected()
	if v := r.m.View(); !strings.Contains(v, proto.PendingAtRestart+" (r)") {
		t.Errorf("a change waiting for a restart is not said %q:\n%s", proto.PendingAtRestart, v)
	}
}
