package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/proto"
)

// TestLsFromServerEqualsDisk: with a server running, ls prints the
// server's list (it reads the files and asks the server their live part);
// that list is the one ls makes from the files with no server, field for
// field: a plain chat,
// one with folders and files, a fork of it (parent, origin), a file in
// TOML the store does not write (a comment, a key of a newer version) and
// a broken file with its parse error. ls, ls --json and show print the
// same both ways.
func TestLsFromServerEqualsDisk(t *testing.T) {
	c := newCLI(t)
	plain := c.chat("new", "--name", "plain", "--json")
	spec := filepath.Join(c.dir("specs"), "api.md")
	if err := os.WriteFile(spec, []byte("# api\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rich := c.chat("new", "--name", "rich", "--cwd", c.dir("src/app"), "--dir", c.dir("src/lib"), "--dir", c.dir("notes"), "--file", spec, "--json")
	fork := c.chat("fork", rich.ID, "--json")
	hand := "# written by hand\nversion = 1\nid = \"byhand\"\nname = \"by hand\"\nharness = \"shell\"\ncwd = \"/\"\ncreated = 2026-11-30T22:00:00+02:00\ncolour = \"teal\"\n"
	broken := "version = 1\nid = \"broken1\"\nname = \"no end\n"
	for id, text := range map[string]string{"byhand": hand, "broken1": broken} {
		if err := os.WriteFile(filepath.Join(c.home, "chats", id+".toml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	commands := [][]string{{"ls"}, {"ls", "--json"}, {"show", rich.ID}, {"show", "--json", fork.ID}, {"show", plain.ID}, {"show", "byhand", "--json"}}
	disk := map[int]string{}
	for i, args := range commands {
		disk[i] = c.ok(args...)
	}
	var fromDisk []proto.ChatJSON
	if err := json.Unmarshal([]byte(disk[1]), &fromDisk); err != nil {
		t.Fatal(err)
	}
	byID := map[string]proto.ChatJSON{}
	for _, ch := range fromDisk {
		byID[ch.ID] = ch
	}
	if len(fromDisk) != 5 || byID["broken1"].Broken == "" || len(byID[rich.ID].AdditionalFiles) != 1 || byID[fork.ID].Parent != rich.ID || byID["byhand"].Name != "by hand" {
		t.Fatalf("ls --json with no server: %+v", fromDisk)
	}

	startForeground(t, c)
	// A connection held open keeps the idle server from exiting.
	hold, err := client.Dial(c.home)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	var served struct {
		Chats []proto.ChatJSON `json:"chats"`
	}
	srvCall(t, c.home, "_acpmux/list", struct{}{}, &served)
	if !reflect.DeepEqual(served.Chats, fromDisk) {
		t.Errorf("the server's list differs from ls's with no server:\nserver: %+v\ndisk:   %+v", served.Chats, fromDisk)
	}
	for i, args := range commands {
		if got := c.ok(args...); got != disk[i] {
			t.Errorf("acpmux-tui %q with a server:\n%s\nwith none:\n%s", args, got, disk[i])
		}
	}

	// A running chat, with a folder it has not taken yet: ls reads the
	// files and asks the server only the live part; what it prints is
	// still the server's own list, field for field.
	srvCall(t, c.home, proto.MethodStart, proto.ChatParams{ID: plain.ID}, nil)
	c.ok("add-dir", plain.ID, c.dir("later"))
	srvCall(t, c.home, "_acpmux/list", struct{}{}, &served)
	var listed []proto.ChatJSON
	if err := json.Unmarshal([]byte(c.ok("ls", "--json")), &listed); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(listed, served.Chats) {
		t.Errorf("ls --json with a chat running differs from the server's list:\nls:     %+v\nserver: %+v", listed, served.Chats)
	}
	var running proto.ChatJSON
	for _, ch := range listed {
		if ch.ID == plain.ID {
			running = ch
		}
	}
	if running.Status == "stopped" || running.StatusFrom == "" || len(running.PendingDirectories) != 1 {
		t.Errorf("the running chat as ls lists it: %+v", running)
	}
	var shown proto.ChatJSON
	if err := json.Unmarshal([]byte(c.ok("show", plain.ID, "--json")), &shown); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(shown, running) {
		t.Errorf("show --json of the running chat:\n%+v\nls --json:\n%+v", shown, running)
	}
}
