package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// handEditShows is how soon a chat file changed by hand must show in a
// running TUI: docs/chat-files.md promises two seconds. The wait allows a
// margin on top for a loaded CI machine (two cores shared by several test
// runs: the server and the TUI both need the CPU in between), and the
// failure says which promise was broken.
const (
	handEditShows  = 2 * time.Second
	handEditMargin = 8 * time.Second
)

// waitShown waits for text on the TUI's screen after a hand edit, and
// reports how long it took.
func (s *tmuxSession) waitShown(edit, text string) time.Duration {
	s.t.Helper()
	start := time.Now()
	deadline := start.Add(handEditShows + handEditMargin)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		scr := s.screen()
		if strings.Contains(scr, text) {
			took := time.Since(start)
			s.t.Logf("%s: %q on screen after %v", edit, text, took.Round(time.Millisecond))
			return took
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s: %q not on the TUI's screen within %v (the promise is %v; the rest is margin for a loaded machine); the screen:\n%s",
				edit, text, handEditShows+handEditMargin, handEditShows, scr)
		}
		<-tick.C
	}
}

// TestE2EHandEditsShow: with the TUI open, a chat file edited in place, a
// chat file copied over with cp, and a new chat file each show on its
// screen, and a file broken by hand shows as broken and is left as it was.
func TestE2EHandEditsShow(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	apple := c.chat("new", "--harness", "shell", "--name", "apple", "--json")
	berry := c.chat("new", "--harness", "shell", "--name", "berry", "--json")
	chats := filepath.Join(c.home, "chats")
	named := func(id, name string) []byte {
		t.Helper()
		m := loadChat(t, c, id)
		m.Name = name
		data, err := m.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return data
	}

	s := startTmux(t, 140, 40, append(c.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("apple", "berry")

	// Edited in place, as `sed -i`-less editors and `>` do: the same file,
	// truncated and written.
	data := named(apple.ID, "apple pie")
	f, err := os.OpenFile(filepath.Join(chats, apple.ID+".toml"), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s.waitShown("a chat file edited in place", "apple pie")

	// Copied over with cp.
	src := filepath.Join(c.root, "berry.toml")
	if err := os.WriteFile(src, named(berry.ID, "berry jam"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", src, filepath.Join(chats, berry.ID+".toml")).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	s.waitShown("a chat file copied over", "berry jam")

	// A new file under a new name.
	m := loadChat(t, c, apple.ID)
	m.ID, m.Name = "cherry1", "cherry tart"
	m.Created = m.Created.Add(time.Hour)
	m.Cwd = c.dir("cherry")
	data, err = m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(chats, "cherry1.toml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	s.waitShown("a new chat file", "cherry tart")

	// Broken by hand: shown broken, never rewritten.
	broken := []byte(fmt.Sprintf("version = 1\nid = %q\nname = [unclosed\n", berry.ID))
	if err := os.WriteFile(filepath.Join(chats, berry.ID+".toml"), broken, 0o644); err != nil {
		t.Fatal(err)
	}
	s.waitFor("the broken chat to show as broken and berry jam to go", func(scr string) bool {
		return strings.Contains(scr, "⚠") && !strings.Contains(scr, "berry jam")
	})
	if got, _ := os.ReadFile(filepath.Join(chats, berry.ID+".toml")); string(got) != string(broken) {
		t.Fatalf("the broken file was rewritten: %q", got)
	}
	s.quit()
}
