package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/client"
	"github.com/acpmux/acpmux-tui/proto"
)

// runIn runs the binary from folder dir with the test's environment,
// changed by the NAME=value entries of env.
func (c *cli) runIn(dir string, env []string, args ...string) result {
	c.t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(c.env(), env...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

// chatIn is runIn of a command that prints one chat as JSON and succeeds.
func (c *cli) chatIn(dir string, args ...string) proto.ChatJSON {
	c.t.Helper()
	r := c.runIn(dir, nil, args...)
	if r.code != 0 {
		c.t.Fatalf("acpmux-tui %q in %s exited %d\n%s", args, dir, r.code, r.stderr)
	}
	var j proto.ChatJSON
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil {
		c.t.Fatalf("acpmux-tui %q: %v\n%s", args, err, r.stdout)
	}
	return j
}

// hasRow reports whether the text output of show has a row label: value
// (the columns are padded to the widest label).
func hasRow(out, label, value string) bool {
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, label+" "); ok && strings.TrimLeft(rest, " ") == value {
			return true
		}
	}
	return false
}

// TestCLIRelativePaths: what people type first (--dir ., --dir lib,
// --cwd app, --dir ~/x) is resolved against the caller's folder and
// $HOME, stored absolute and printed absolute, for new, the bare launch
// flags, add-dir, rm-dir and fork --cwd.
func TestCLIRelativePaths(t *testing.T) {
	c := newCLI(t)
	work := c.dir("work")
	lib, app, other := c.dir("work/lib"), c.dir("work/app"), c.dir("other")
	x := c.dir("user/x") // HOME is root/user

	j := c.chatIn(work, "new", "--dir", ".", "--dir", "lib", "--dir", "~/x", "--cwd", "app", "--name", "rel", "--json")
	if j.Cwd != app || !slices.Equal(j.AdditionalDirectories, []string{work, lib, x}) {
		t.Fatalf("new from %s: cwd %s, folders %q; want %s and %q", work, j.Cwd, j.AdditionalDirectories, app, []string{work, lib, x})
	}
	if m := loadChat(t, c, j.ID); m.Cwd != app || !slices.Equal(m.AdditionalDirectories, []string{work, lib, x}) {
		t.Errorf("stored: cwd %s, folders %q", m.Cwd, m.AdditionalDirectories)
	}

	// The bare command with --dir . (no terminal: it prints the chat it
	// made), in text: the printed folder is absolute.
	r := c.runIn(lib, nil, "--dir", ".", "--name", "bare")
	if r.code != 0 || !hasRow(r.stdout, "folders", lib) {
		t.Errorf("bare --dir . from %s: exit %d\n%s%s", lib, r.code, r.stdout, r.stderr)
	}

	// add-dir and rm-dir from another folder, with ../ and ~.
	r = c.runIn(app, nil, "add-dir", "rel", "../../other")
	if r.code != 0 || !strings.Contains(r.stdout, other) {
		t.Errorf("add-dir ../../other from %s: exit %d\n%s%s", app, r.code, r.stdout, r.stderr)
	}
	r = c.runIn(work, nil, "rm-dir", "rel", "lib", "~/x")
	if r.code != 0 {
		t.Errorf("rm-dir lib ~/x: exit %d\n%s", r.code, r.stderr)
	}
	if m := loadChat(t, c, j.ID); !slices.Equal(m.AdditionalDirectories, []string{work, other}) {
		t.Errorf("after add-dir and rm-dir: %q, want %q", m.AdditionalDirectories, []string{work, other})
	}

	// fork --cwd lib.
	f := c.chatIn(work, "fork", "rel", "--cwd", "lib", "--json")
	if f.Cwd != lib {
		t.Errorf("fork --cwd lib from %s: cwd %s", work, f.Cwd)
	}

	// A relative folder that does not exist is refused naming the path
	// it was resolved to, and nothing is written.
	before := len(c.chatFiles())
	r = c.runIn(work, nil, "new", "--dir", "nope")
	if r.code != 2 || !strings.Contains(r.stderr, fmt.Sprintf(`[0] "%s": does not exist`, filepath.Join(work, "nope"))) {
		t.Errorf("--dir nope: exit %d\n%s", r.code, r.stderr)
	}
	r = c.runIn(work, nil, "new", "--cwd", "nope")
	if r.code != 2 || !strings.Contains(r.stderr, `--cwd "nope"`) {
		t.Errorf("--cwd nope: exit %d\n%s", r.code, r.stderr)
	}
	if n := len(c.chatFiles()); n != before {
		t.Errorf("refusals wrote %d chat files", n-before)
	}
}

// TestCLIRelativeHomeRefused: a relative ACPMUX_HOME names a different
// home from every folder; it is refused (exit 2) and nothing is made.
func TestCLIRelativeHomeRefused(t *testing.T) {
	c := newCLI(t)
	work := c.dir("work")
	for _, args := range [][]string{{"ls"}, {"new", "--name", "x"}, {"show", "x"}} {
		r := c.runIn(work, []string{"ACPMUX_HOME=agent"}, args...)
		if r.code != 2 || !strings.Contains(r.stderr, `ACPMUX_HOME must be an absolute path: it is "agent"`) {
			t.Errorf("%q with ACPMUX_HOME=agent: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "agent")); !os.IsNotExist(err) {
		t.Errorf("a relative home was made: %v", err)
	}
}

// TestCLIForkAndSideByName: after fork zap, side zap works (the exact name
// wins over the prefix every derived name shares), and each derived chat
// has a name of its own that finds it.
func TestCLIForkAndSideByName(t *testing.T) {
	c := newCLI(t)
	zap := c.chat("new", "--name", "zap", "--json")
	steps := []struct {
		args []string
		want string
	}{
		{[]string{"fork", "zap"}, "zap · fork"},
		{[]string{"side", "zap"}, "zap · side"},
		{[]string{"fork", "zap"}, "zap · fork 2"},
		{[]string{"handoff", "zap", "--to", "codex"}, "zap → codex"},
		{[]string{"side", "zap"}, "zap · side 2"},
	}
	ids := map[string]string{"zap": zap.ID}
	for _, st := range steps {
		r := c.run(append(st.args, "--json")...)
		if r.code != 0 {
			t.Fatalf("%q exited %d\n%s", st.args, r.code, r.stderr)
		}
		var j proto.ChatJSON
		if err := json.Unmarshal([]byte(r.stdout), &j); err != nil {
			t.Fatalf("%q: %v\n%s", st.args, err, r.stdout)
		}
		if j.Name != st.want || j.Parent != zap.ID {
			t.Errorf("%q made %q (parent %s), want %q of %s", st.args, j.Name, j.Parent, st.want, zap.ID)
		}
		ids[j.Name] = j.ID
	}
	for name, id := range ids {
		if j := c.chat("show", name, "--json"); j.ID != id {
			t.Errorf("show %q found %s, want %s", name, j.ID, id)
		}
	}
	// A prefix they share is ambiguous (exit 1) and lists them.
	if r := c.run("show", "zap ·"); r.code != 1 || !strings.Contains(r.stderr, "ambiguous") {
		t.Errorf("show of a shared prefix: exit %d %s", r.code, r.stderr)
	}
}

// TestCLIRename: rename ID NAME stores the name (found by it afterwards);
// every refusal exits 2 and leaves the file as it was.
func TestCLIRename(t *testing.T) {
	c := newCLI(t)
	a := c.chat("new", "--name", "zap", "--json")
	c.chat("new", "--name", "other", "--json")
	r := c.run("rename", "zap", "the", "parser")
	if r.code != 0 || r.stdout != fmt.Sprintf("renamed %s: %q → %q\n", a.ID, "zap", "the parser") {
		t.Fatalf("rename: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if j := c.chat("show", "the parser", "--json"); j.ID != a.ID || j.Name != "the parser" {
		t.Fatalf("after rename: %+v", j)
	}
	path := filepath.Join(c.home, "chats", a.ID+".toml")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"rename", a.ID, ""}, 2, "cannot be empty"},
		{[]string{"rename", a.ID, strings.Repeat("n", 5000)}, 2, "name is 5000 bytes, at most 1024"},
		{[]string{"rename", a.ID, "tab\there"}, 2, "control character"},
		{[]string{"rename", a.ID, "other"}, 2, `is already named "other"`},
		{[]string{"rename", a.ID}, 2, "usage: acpmux-tui rename ID NAME"},
		{[]string{"rename", "nosuch", "x"}, 1, "no such chat"},
	} {
		r := c.run(tt.args...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.says) || r.stdout != "" {
			t.Errorf("%.40q: exit %d (want %d)\nstdout %q\nstderr %s", tt.args, r.code, tt.code, r.stdout, r.stderr)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Errorf("refused renames changed the file:\n%s", after)
	}
}

// TestCLIRenameThroughServer: with a server running, rename goes through
// it (_acpmux/rename, which logs it), its refusals still exit 2, and the
// server's list has the new name.
func TestCLIRenameThroughServer(t *testing.T) {
	c := newCLI(t)
	a := c.chat("new", "--name", "zap", "--json")
	c.chat("new", "--name", "other", "--json")
	startForeground(t, c)
	// A connection held open keeps the idle server from exiting.
	hold, err := client.Dial(c.home)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()

	if r := c.run("rename", "zap", "served"); r.code != 0 {
		t.Fatalf("rename with a server: exit %d\n%s", r.code, r.stderr)
	}
	if r := c.run("rename", "served", "other"); r.code != 2 || !strings.Contains(r.stderr, `already named "other"`) {
		t.Errorf("a refusal through the server: exit %d\n%s", r.code, r.stderr)
	}
	var list struct {
		Chats []proto.ChatJSON `json:"chats"`
	}
	srvCall(t, c.home, "_acpmux/list", struct{}{}, &list)
	found := false
	for _, ch := range list.Chats {
		found = found || (ch.ID == a.ID && ch.Name == "served")
	}
	if !found {
		t.Errorf("the server lists %+v, want %s named served", list.Chats, a.ID)
	}
	logText := ""
	srvWaitFor(t, "the server's log to record the rename", func() bool {
		data, _ := os.ReadFile(filepath.Join(c.home, "logs", "acpmux-tui.log"))
		logText = string(data)
		return strings.Contains(logText, "chat renamed") && strings.Contains(logText, a.ID)
	})
}
