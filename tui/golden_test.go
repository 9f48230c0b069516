package tui

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"
)

// The goldens are the screen at 100x30 with the ASCII colour profile, as
// the program draws it after the messages of a scenario. Refresh them with
// go test ./tui -run Golden -update.

const goldenW, goldenH = 100, 30

var goldenNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// goldenModel builds the app over fixed chats (fixed ids, paths and clock)
// with the fake mux.
func goldenModel(t *testing.T, entries []sessions.Entry, fake *fakeMux) *Model {
	t.Helper()
	return goldenModelWith(t, entries, fake, nil)
}

// goldenModelWith is goldenModel with its options changed by tweak.
func goldenModelWith(t *testing.T, entries []sessions.Entry, fake *fakeMux, tweak func(*Options)) *Model {
	t.Helper()
	// Bubbles components draw with Lip Gloss's default renderer.
	lipgloss.SetColorProfile(termenv.Ascii)
	table, err := harness.NewTable(config.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{
		Table: table, Mux: fake, Renderer: asciiRenderer(), Entries: entries,
		DefaultHarness: "shell", UserHome: "/home/me", Tick: -1,
		Now: func() time.Time { return goldenNow },
	}
	if tweak != nil {
		tweak(&opt)
	}
	m := New(opt)
	t.Cleanup(m.Close)
	return m
}

// runGolden runs the model in a teatest program, sends the scenario's
// messages, waits until every text of want is on screen, quits, and
// compares the final frame with the golden file.
func runGolden(t *testing.T, m *Model, want []string, msgs ...tea.Msg) {
	t.Helper()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(goldenW, goldenH))
	for _, msg := range msgs {
		tm.Send(msg)
	}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		for _, w := range want {
			if !bytes.Contains(b, []byte(w)) {
				return false
			}
		}
		return true
	},
		teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	teatest.RequireEqualOutput(t, []byte(final.View()))
}

func TestGoldenEmptyHome(t *testing.T) {
	m := goldenModel(t, []sessions.Entry{}, newFakeMux(nil))
	runGolden(t, m, []string{"No chats yet"})
}

func goldenChats() []sessions.Entry {
	return []sessions.Entry{
		{ID: "k3x9q2", Meta: &sessions.Meta{ID: "k3x9q2", Name: "fix the parser", Harness: "claude", Cwd: "/home/me/src/app",
			AdditionalDirectories: []string{"/usr", "/etc", "/nonexistent/notes"}, AgentSessionID: "0b5e7c1e-5d2a-4c8e-9a51-3f2d6c7b8a90"}},
		{ID: "a1b2c3", Meta: &sessions.Meta{ID: "a1b2c3", Name: "parser side question", Harness: "claude", Cwd: "/home/me/src/app",
			AdditionalDirectories: []string{"/usr"}, Parent: "k3x9q2", Origin: "side"}},
		{ID: "q5229d", Meta: &sessions.Meta{ID: "q5229d", Name: "scratch", Harness: "shell", Cwd: "/home/me/.local/share/acpmux/homes/q5229d"}},
		{ID: "w0ait1", Meta: &sessions.Meta{ID: "w0ait1", Name: "review the docs", Harness: "opencode", Cwd: "/home/me/src/docs"}},
		{ID: "badf11", Broken: errors.New("load chat badf11: toml: line 3: expected value")},
	}
}

func TestGoldenChatsAndFolders(t *testing.T) {
	fake := newFakeMux(nil)
	fake.set("q5229d", proto.State{Status: proto.StatusRunning, Pid: 4242, Started: goldenNow.Add(-192 * time.Second)}, "")
	fake.set("w0ait1", proto.State{Status: proto.StatusWaiting, Unread: true}, "")
	fake.set("a1b2c3", proto.State{Status: proto.StatusExited, ExitCode: 1}, "")
	m := goldenModel(t, goldenChats(), fake)
	fake.changes <- "q5229d"
	fake.changes <- "w0ait1"
	fake.changes <- "a1b2c3"
	// The missing folder is found by the check the selection starts.
	runGolden(t, m, []string{"M removes it", "◆•", "✗  ↳ parser side", "●  scratch"})
}

func TestGoldenPickerRefusal(t *testing.T) {
	m := goldenModel(t, goldenChats()[:1], newFakeMux(nil))
	msgs := []tea.Msg{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a")}, tea.KeyMsg{Type: tea.KeyCtrlU}}
	for _, c := range "rel/dir" {
		msgs = append(msgs, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{c}})
	}
	msgs = append(msgs, tea.KeyMsg{Type: tea.KeyEnter})
	runGolden(t, m, []string{"not an absolute path"}, msgs...)
}
