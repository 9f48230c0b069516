package tui

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"
)

// TestGoldenSummaryFiles: the summary lists a chat's single files under
// its folders, the missing one marked with the key that removes it, and
// how the files reach the harness.
func TestGoldenSummaryFiles(t *testing.T) {
	entries := []sessions.Entry{
		{ID: "f1l3s0", Meta: &sessions.Meta{ID: "f1l3s0", Name: "read the spec", Harness: "claude-acp", Cwd: "/home/me/src/app",
			AdditionalDirectories: []string{"/usr"}, AdditionalFiles: []string{"/etc/passwd", "/nonexistent/specs/api.md"}, FilesVia: "acp"}},
	}
	m := goldenModel(t, entries, newFakeMux(nil))
	// The missing file is found by the check the selection starts.
	runGolden(t, m, []string{"M removes it", "resource links + fs"})
}

// TestGoldenPickerFiles: the picker in files mode lists a folder's
// subfolders, then its files, the chat's own file marked; the footer says
// what a pick adds and the key that switches.
func TestGoldenPickerFiles(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"tree/drafts", "tree/logs"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"tree/api.md", "tree/notes.txt", "tree/spec.md"} {
		if err := os.WriteFile(filepath.Join(home, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entries := []sessions.Entry{
		{ID: "k3x9q2", Meta: &sessions.Meta{ID: "k3x9q2", Name: "fix the parser", Harness: "claude", Cwd: "/home/me/src/app",
			AdditionalFiles: []string{filepath.Join(home, "tree/spec.md")}}},
	}
	m := goldenModelWith(t, entries, newFakeMux(nil), func(o *Options) { o.UserHome = home })
	msgs := []tea.Msg{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a")}, tea.KeyMsg{Type: tea.KeyCtrlU}}
	for _, c := range "~/tree/" {
		msgs = append(msgs, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{c}})
	}
	msgs = append(msgs, tea.KeyMsg{Type: tea.KeyCtrlT})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(goldenW, goldenH))
	for _, msg := range msgs {
		tm.Send(msg)
	}
	// The listing is read in a command: the keys that browse it wait for
	// it on screen.
	waitScreen(t, tm, "already a file", "adds     files")
	for range 3 {
		tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	}
	waitScreen(t, tm, "› [ ] api.md")
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	teatest.RequireEqualOutput(t, []byte(final.View()))
}

// waitScreen waits (10 s at most) until every text of want has been drawn.
func waitScreen(t *testing.T, tm *teatest.TestModel, want ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		for _, w := range want {
			if !bytes.Contains(b, []byte(w)) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
}
