package tui

import (
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
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("i")})
	waitScreen(t, tm, "import chat")
	tm.Type("k3x9q2.acpmux.tgz")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	// The picker's title: the import dialog's hint also says "roots: the
	// chat…", and a done sent before the picker is pushed goes to the
	// dialog, then the picker covers its report (a failure seen under
	// -race in CI).
	waitScreen(t, tm, "roots: the chat's folders must be inside one")
	// The first dialog's owner is 2; its picker's is 3.
	tm.Send(pickerDoneMsg{owner: 3, folders: []string{"/home/me/src"}})
	waitScreen(t, tm, "esc cancel: nothing is written")
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	teatest.RequireEqualOutput(t, []byte(final.View()))
	if got := fake.Calls(); len(got) == 0 || got[len(got)-1] != "import /home/me/k3x9q2.acpmux.tgz /home/me/src dry" {
		t.Errorf("calls %q: want the dry run last", got)
	}
}
