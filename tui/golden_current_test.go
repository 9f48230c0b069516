package tui

import (
	"errors"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	tea "github.com/charmbracelet/bubbletea"
)

// TestGoldenRestartRefused: `r` on a running chat whose folder has gone.
// The mux refuses before stopping anything: the status line says the
// harness keeps running, the summary flags the folder and still shows the
// harness running.
func TestGoldenRestartRefused(t *testing.T) {
	fake := newFakeMux(nil)
	fake.set("k3x9q2", proto.State{Status: proto.StatusRunning, Pid: 4242, Started: goldenNow.Add(-65e9)}, "ready>")
	fake.restartErr["k3x9q2"] = &proto.FoldersGoneError{ChatID: "k3x9q2", Running: true,
		Problems: []proto.FolderProblem{{Index: 2, Path: "/nonexistent/notes", Reason: "does not exist"}}}
	m := goldenModel(t, goldenChats()[:2], fake)
	fake.changes <- "k3x9q2"
	runGolden(t, m, []string{"keeps running", "M removes it"}, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("r")})
}

// TestGoldenDeleteDialog: the delete dialog, centred and as wide as what
// it says.
func TestGoldenDeleteDialog(t *testing.T) {
	m := goldenModel(t, goldenChats()[2:4], newFakeMux(nil))
	runGolden(t, m, []string{"y delete   n cancel"}, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("D")})
}

// TestGoldenHandoffNotInstalled: the handoff dialog marks the harnesses
// not installed, and the sidebar and summary mark a chat of one.
func TestGoldenHandoffNotInstalled(t *testing.T) {
	m := goldenModelWith(t, goldenChats()[:3], newFakeMux(nil), func(o *Options) {
		for _, s := range o.Table.All() {
			o.Harnesses = append(o.Harnesses, HarnessInfo{Name: s.Name, Transport: s.Transport, Installed: s.Name != "claude" && s.Name != "codex"})
		}
	})
	runGolden(t, m, []string{"claude?", "codex       pty · not installed", "(not installed)"}, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("h")})
}

// TestGoldenHandoffRefused: enter on a harness that is not installed keeps
// the chooser open and says how to install or configure it.
func TestGoldenHandoffRefused(t *testing.T) {
	m := goldenModelWith(t, goldenChats()[2:3], newFakeMux(nil), func(o *Options) {
		for _, s := range o.Table.All() {
			o.Harnesses = append(o.Harnesses, HarnessInfo{Name: s.Name, Transport: s.Transport, Installed: s.Name != "codex"})
		}
	})
	msgs := []tea.Msg{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("h")}}
	for range 7 { // past the seven installed ones, onto codex
		msgs = append(msgs, tea.KeyMsg{Type: tea.KeyDown})
	}
	msgs = append(msgs, tea.KeyMsg{Type: tea.KeyEnter})
	runGolden(t, m, []string{"codex is not installed", "lists what is found"}, msgs...)
}

// TestGoldenFailedChat: a chat whose harness kept crashing keeps what it
// printed last on screen, with a line under it saying it failed, why, and
// that enter starts it again.
func TestGoldenFailedChat(t *testing.T) {
	fake := newFakeMux(nil)
	fake.set("q5229d", proto.State{Status: proto.StatusFailed, Started: goldenNow.Add(-5e9), Restarts: 5,
		Reason: "exited 6 times in a row (status 1)", LastError: "exit status 1"},
		"Welcome!\n\nUnable to connect to services: ENOTFOUND\n")
	m := goldenModel(t, goldenChats()[2:3], fake)
	fake.changes <- "q5229d"
	runGolden(t, m, []string{"shell failed · enter restarts it"})
}

// TestGoldenServerGone: the status line while the server is gone and the
// TUI starts one, with the key that starts one in the help.
func TestGoldenServerGone(t *testing.T) {
	fake := newFakeMux(nil)
	fake.set("q5229d", proto.State{Status: proto.StatusFailed, Started: goldenNow.Add(-5e9),
		Reason: "lost the connection to the server (EOF); reconnecting when one is back"}, "$ make\nok\n")
	m := goldenModelWith(t, goldenChats()[2:3], fake, func(o *Options) { o.Mux = newLinkMux(fake) })
	fake.changes <- "q5229d"
	runGolden(t, m, []string{"server gone: starting one…", "shell failed", "✗ failed"},
		linkMsg{lost: errors.New("lost the connection to the server (EOF); reconnecting when one is back")})
}

// A chat's change that comes before the terminal's first size is in the
// summary once the size comes: the pane reads the state without a size
// (a CI race stage once drew "not started" beside a failed chat).
func TestChangeBeforeTheFirstSizeReachesTheSummary(t *testing.T) {
	fake := newFakeMux(nil)
	m := goldenModel(t, goldenChats()[2:3], fake)
	fake.set("q5229d", proto.State{Status: proto.StatusFailed, Started: goldenNow.Add(-5e9), Restarts: 5,
		LastError: "exit status 1"}, "")
	m.Update(chatsChangedMsg{ids: []string{"q5229d"}})
	m.Update(tea.WindowSizeMsg{Width: goldenW, Height: goldenH})
	if v := m.View(); !strings.Contains(v, "✗ failed · 5 restarts") {
		t.Fatalf("summary does not show the failed chat:\n%s", v)
	}
}
