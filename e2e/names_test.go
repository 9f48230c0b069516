package e2e

import (
	"slices"
	"strings"
	"testing"
)

// TestE2EDirDotAndRename: the TUI launched from a folder with --dir .
// makes a chat whose folder is that folder, absolute (shown in the
// summary, stored in the file); R then renames it from the keyboard, and
// the sidebar and the command line see the new name.
func TestE2EDirDotAndRename(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	work := c.dir("work")
	argv := []string{"/bin/sh", "-c", `cd "$1" && exec "$2" --dir . --name here`, "sh", work, binary}
	s := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), argv)
	s.waitText("here", "folders  "+work, "keys go to shell")
	list := c.ls()
	if len(list) != 1 || !slices.Equal(list[0].AdditionalDirectories, []string{work}) {
		t.Fatalf("--dir . from %s stored %+v", work, list)
	}
	id := list[0].ID

	s.keys("C-]")
	s.waitFor("the chat to let go of the keyboard", func(scr string) bool { return !strings.Contains(scr, "keys go to") })
	s.keys("R")
	s.waitText("rename chat", "chat "+id+", now here")
	s.keys("C-u")
	s.text("a new name")
	s.keys("Enter")
	s.waitFor("the sidebar to show the new name", func(scr string) bool {
		return strings.Contains(selectedLine(scr), "a new name") && !strings.Contains(scr, "rename chat")
	})
	if j := c.chat("show", "a new name", "--json"); j.ID != id {
		t.Errorf("show \"a new name\" found %s, want %s", j.ID, id)
	}
	s.quit()
}
