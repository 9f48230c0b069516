package tui

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// TestGoldenNewChatSandbox: the new-chat dialog's sandbox line under the
// worktree line, at the chosen harness's default (shell's sandbox is on),
// and the key that turns it in the help line.
func TestGoldenNewChatSandbox(t *testing.T) {
	m := goldenModelWith(t, goldenChats()[2:3], newFakeMux(nil), func(o *Options) {
		for _, s := range o.Table.All() {
			o.Harnesses = append(o.Harnesses, HarnessInfo{Name: s.Name, Transport: s.Transport, Installed: true, Sandbox: s.Name == "shell"})
		}
	})
	runGolden(t, m, []string{"sandbox   yes · writes only in its folders", "ctrl+l sandbox on/off"}, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("n")})
}

// TestGoldenSandboxedChats: the sidebar marks the sandboxed chats before
// their harness; the summary of the selected one, stopped, shows the
// bound its server computes for its next start, on two lines (a third
// would take a folder's).
func TestGoldenSandboxedChats(t *testing.T) {
	entries := []sessions.Entry{
		{ID: "k3x9q2", Meta: &sessions.Meta{ID: "k3x9q2", Name: "fix the parser", Harness: "claude", Cwd: "/home/me/src/app",
			AdditionalDirectories: []string{"/usr", "/etc"}, Sandbox: true},
			Bound: &proto.SandboxJSON{Summary: "landlock · writes: folder, 2 folders, tmp, ~/.claude, ~/.claude.json, ~/.cache/claude-cli-nodejs · .git/hooks read-only"}},
		{ID: "q5229d", Meta: &sessions.Meta{ID: "q5229d", Name: "scratch", Harness: "shell", Cwd: "/home/me/.local/share/acpmux/homes/q5229d", Sandbox: true}},
		{ID: "w0ait1", Meta: &sessions.Meta{ID: "w0ait1", Name: "review the docs", Harness: "opencode", Cwd: "/home/me/src/docs"}},
	}
	fake := newFakeMux(nil)
	fake.set("q5229d", proto.State{Status: proto.StatusRunning, Pid: 4242, Started: goldenNow.Add(-192 * time.Second), Bound: "landlock · writes: folder, tmp"}, "")
	m := goldenModel(t, entries, fake)
	fake.changes <- "q5229d"
	runGolden(t, m, []string{"⊡ claude", "●  scratch", "sandbox  landlock · writes: folder, 2 folders"})
}
