package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// TestE2EExportAndImportKeys runs the real binary in tmux: e exports the
// selected chat to the path the dialog proposes (the TUI's folder, the
// chat's name and id), then i imports that bundle into the same home with
// one root chosen in the folder picker. The guard's report shows first,
// with nothing written; enter imports, and the new chat appears in the
// sidebar, selected, with the folder inside the root kept and the one
// outside dropped.
func TestE2EExportAndImportKeys(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	src := c.dir("src")
	app, lib, other := c.dir("src/app"), c.dir("src/lib"), c.dir("other")
	parent := c.chat("new", "--cwd", app, "--dir", lib, "--dir", other, "--harness", "shell", "--name", "fix the parser", "--json")

	s := startTmuxIn(t, c.root, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("fix the parser", app)

	bundle := filepath.Join(c.root, "fix-the-parser-"+parent.ID+".acpmux.tgz")
	s.keys("e")
	s.waitText("export chat", "fix-the-parser-"+parent.ID+".acpmux.tgz")
	s.keys("Enter")
	s.waitText("exported fix the parser: ", " → "+filepath.Base(bundle))
	if fi, err := os.Stat(bundle); err != nil || fi.Size() == 0 {
		t.Fatalf("the bundle the status line names: %v", err)
	}

	s.keys("i")
	s.waitText("import chat", "enter chooses the roots")
	s.text("fix-the")
	s.keys("Tab")
	s.waitText(bundle)
	s.keys("Enter")
	s.waitText("roots: the chat", "tab complete")
	s.keys("C-u")
	s.text(src)
	s.keys("Enter")
	s.waitText("selected " + src)
	s.keys("C-s")
	s.waitText("from "+parent.ID, "✓ "+app, "✓ "+lib, "✗ "+other, "esc cancel: nothing is written")
	if n := len(c.ls()); n != 1 {
		t.Fatalf("the dry run wrote a chat: %d chats", n)
	}

	s.keys("Enter")
	scr := s.waitText("imported fix the parser")
	var made *proto.ChatJSON
	for _, ch := range c.ls() {
		if ch.Origin == sessions.OriginImport {
			made = &ch
		}
	}
	if made == nil || made.Parent != parent.ID || made.Cwd != app || !slices.Equal(made.AdditionalDirectories, []string{lib}) {
		t.Fatalf("imported chat %+v\n%s", made, scr)
	}
	// In the sidebar, and selected: the summary shows its id.
	s.waitText(made.Name, made.ID)
	if strings.Count(s.screen(), "fix the parser") < 2 {
		t.Fatalf("the sidebar does not list both chats:\n%s", s.screen())
	}
	s.keys("q")
}
