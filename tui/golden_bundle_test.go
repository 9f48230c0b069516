package tui

import (
	"bytes"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
)

// TestGoldenImportReport is the import dialog showing the guard's report
// of a dry run, before anything is written: the chat's folder kept, one
// folder kept and one dropped with its reason, a file dropped, how the
// conversation comes over and a note. The roots come from the folder
// picker, which the dialog pushes; its answer is sent here as the picker
// sends it, once the picker is on screen.
func TestGoldenImportReport(t *testing.T) {
	fake := newFakeMux(nil)
	fake.bundles.dryRep = proto.ImportReport{
		Host: "box", Name: "fix the parser · import", Harness: "claude", Parent: "k3x9q2", Cwd: "/home/me/src/app",
		Kept:         []string{"/home/me/src/lib"},
		Dropped:      []proto.Dropped{{Path: "/home/other/notes", Reason: "outside every root"}},
		KeptFiles:    []string{"/home/me/src/specs/api.md"},
		DroppedFiles: []proto.Dropped{{Path: "/etc/hosts", Reason: "outside every root"}},
		Conversation: "exact", How: "Claude Code's session file is put under the new folder's project, so the first start resumes it.",
		Notes: []string{"an ACP turn was in progress: exported up to its last complete update"},
	}
	m := goldenModelWith(t, goldenChats()[:1], fake, func(o *Options) { o.Cwd = "/home/me" })
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(goldenW, goldenH))
	waitScreen := func(what string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(what)) },
			teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	}
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("i")})
	waitScreen("import chat")
	tm.Type("k3x9q2.acpmux.tgz")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitScreen("roots: the chat")
	// The first dialog's owner is 2; its picker's is 3.
	tm.Send(pickerDoneMsg{owner: 3, folders: []string{"/home/me/src"}})
	waitScreen("esc cancel: nothing is written")
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	teatest.RequireEqualOutput(t, []byte(final.View()))
	if got := fake.Calls(); len(got) == 0 || got[len(got)-1] != "import /home/me/k3x9q2.acpmux.tgz /home/me/src dry" {
		t.Errorf("calls %q: want the dry run last", got)
	}
}
