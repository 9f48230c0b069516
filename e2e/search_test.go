package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// searchJSON runs search --json, which must find something, and decodes it.
func (c *cli) searchJSON(args ...string) proto.SearchResult {
	c.t.Helper()
	var res proto.SearchResult
	out := c.ok(append([]string{"search", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		c.t.Fatalf("search --json: %v\n%s", err, out)
	}
	return res
}

// hitIn is the first hit search found in chat id's where, or fails.
func hitIn(t *testing.T, res proto.SearchResult, host, id string, where proto.SearchWhere) proto.SearchHit {
	t.Helper()
	for _, c := range res.Chats {
		if c.ID != id || c.Host != host {
			continue
		}
		for _, h := range c.Hits {
			if h.Where == where {
				return h
			}
		}
	}
	t.Fatalf("no hit in the %s of chat %s (host %q): %+v", where, id, host, res)
	return proto.SearchHit{}
}

// noControls fails when an excerpt holds what a terminal would obey or
// that turns a line around.
func noControls(t *testing.T, s string) {
	t.Helper()
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			t.Fatalf("excerpt %q holds %U", s, r)
		}
	}
}

// TestSearchEveryPlace: search finds a word in a Claude Code session log
// (with no server, from the files alone), in an ACP chat's conversation
// (the fake agent echoes it) and in a terminal chat's screen (a shell that
// printed it between an OSC and a bidi control, which its excerpt has not),
// and exits 1 for a word nowhere, 2 for no word.
func TestSearchEveryPlace(t *testing.T) {
	c := newCLI(t)
	state := c.dir("agent-state")
	config := "[harness.fake]\ncommand = \"" + buildACPFake(t) + "\"\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = \"" + state + "\" }\n"
	if err := os.WriteFile(c.config, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	logged := c.claudeChatWithLog("parser", filepath.Join(c.root, "user", ".claude"))

	// No server: the chat files and the logs, said so.
	r := c.run("search", "nested", "TOML")
	if r.code != 0 || !strings.Contains(r.stdout, logged.ID+"  parser") || !strings.Contains(r.stdout, "log") ||
		!strings.Contains(r.stdout, "Fix the TOML parser: nested tables lose their keys.") {
		t.Fatalf("search of a log: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "screens") {
		t.Fatalf("a search with no server does not say the screens were left out: %s", r.stderr)
	}
	if r := c.run("search", "toml"); r.code != 0 {
		t.Fatalf("no capital: case ignored, yet exit %d", r.code)
	}
	if r := c.run("search", "Toml"); r.code != 1 || r.stdout != "" {
		t.Fatalf("a capital: as written; exit %d stdout %q", r.code, r.stdout)
	}
	if r := c.run("search", "giraffe"); r.code != 1 || r.stdout != "" {
		t.Fatalf("a word nowhere: exit %d stdout %q, want 1 and nothing", r.code, r.stdout)
	}
	for _, bad := range [][]string{{"search"}, {"search", "a\x1bb"}, {"search", "x", "--bogus"}} {
		if r := c.run(bad...); r.code != 2 {
			t.Fatalf("%q: exit %d, want 2\n%s", bad, r.code, r.stderr)
		}
	}

	c.serve()
	acp := c.chat("new", "--harness", "fake", "--name", "agent", "--json")
	c.ok("prompt", acp.ID, "okapi42 sighted")
	shell := c.chat("new", "--harness", "shell", "--name", "term", "--json")
	srvCall(t, c.home, proto.MethodStart, proto.ChatParams{ID: shell.ID, Cols: 100, Rows: 30}, nil)
	// The word is whole only in the output: the command line has it as
	// printf's escapes. It starts a line of its own: a line written before
	// the shell's first prompt is echoed by the tty, and printf then prints
	// after that prompt ("# " as root).
	line := `printf '\n\033]0;evil\007qua\342\200\256gga%s\007\n' 77` + "\r"
	srvCall(t, c.home, proto.MethodWrite, proto.WriteParams{ID: shell.ID, Data: []byte(line)}, nil)
	srvWaitFor(t, "the shell to print the word", func() bool {
		var h proto.HistoryResult
		srvCall(t, c.home, proto.MethodHistory, proto.HistoryParams{ID: shell.ID}, &h)
		return strings.Contains(strings.Join(h.Lines, "\n"), "gga77")
	})

	res := c.searchJSON("okapi42")
	if h := hitIn(t, res, "", acp.ID, proto.SearchConversation); !strings.Contains(h.Excerpt, "okapi42 sighted") {
		t.Fatalf("conversation excerpt %q", h.Excerpt)
	}
	if !res.Screens {
		t.Fatalf("a search through the server says the screens were left out: %+v", res)
	}
	res = c.searchJSON("quagga77")
	h := hitIn(t, res, "", shell.ID, proto.SearchScreen)
	noControls(t, h.Excerpt)
	if h.Excerpt != "quagga77" {
		t.Fatalf("screen excerpt %q, want the printed line", h.Excerpt)
	}
	if text := c.ok("search", "quagga77"); !strings.Contains(text, shell.ID+"  term\n  screen") {
		t.Fatalf("search's text:\n%s", text)
	}

	// Once the server has gone, the transcript it held has too.
	c.ok("kill-server")
	if r := c.run("search", "okapi42"); r.code != 1 || !strings.Contains(r.stderr, "screens") {
		t.Fatalf("after kill-server: exit %d\n%s", r.code, r.stderr)
	}
}

// TestSearchOnHost: search looks on each configured host too, over the
// real sshd, naming the host of each chat; --host looks there alone.
func TestSearchOnHost(t *testing.T) {
	r := newHostRig(t)
	var far proto.ChatJSON
	if err := json.Unmarshal([]byte(r.ok("new", "--host", "test", "--harness", "shell", "--name", "far wombat", "--json")), &far); err != nil {
		t.Fatal(err)
	}
	near := r.chat("new", "--harness", "shell", "--name", "near wombat", "--json")

	res := r.searchJSON("wombat")
	hitIn(t, res, "", near.ID, proto.SearchName)
	if h := hitIn(t, res, "test", far.ID, proto.SearchName); h.Excerpt != "far wombat" {
		t.Fatalf("the host's hit: %+v", h)
	}
	out := r.ok("search", "wombat", "--host", "test")
	if !strings.Contains(out, "test:"+far.ID+"  far wombat") || strings.Contains(out, near.ID) {
		t.Fatalf("search --host test:\n%s", out)
	}
	if res := r.run("search", "wombat", "--host", "nowhere"); res.code != 2 {
		t.Fatalf("--host of no configured host: exit %d", res.code)
	}
}

// TestE2ESearchKey: in the TUI (tmux), F searches every chat through the
// server it started (which finds a Claude Code session log where its HOME
// says), lists the hit, and enter selects the chat that holds it.
func TestE2ESearchKey(t *testing.T) {
	needTmux(t)
	c := newCLI(t)
	c.claudeChatWithLog("parser", filepath.Join(c.root, "user", ".claude"))
	c.chat("new", "--harness", "shell", "--name", "other", "--json")

	s := startTmux(t, 160, 50, append(c.env(), "TERM=xterm-256color"), []string{binary})
	scr := s.waitText("chats 2")
	selected := func(name string) func(string) bool {
		return func(scr string) bool {
			for _, l := range strings.Split(scr, "\n") {
				if strings.Contains(l, "▌") && strings.Contains(l, name) {
					return true
				}
			}
			return false
		}
	}
	if !selected("other")(scr) {
		// The list's order of two chats made in the same second is
		// theirs; the first row is selected.
		s.keys("j")
	}
	s.waitFor("other selected", selected("other"))
	s.keys("F")
	s.waitText("search every chat")
	s.text(`"nested tables"`)
	s.keys("Enter")
	s.waitText("1 hit in 1 chat", "Fix the TOML parser: nested tables lose their keys.")
	s.keys("Enter")
	s.waitFor("the search closed and parser selected", func(scr string) bool {
		return !strings.Contains(scr, "search every chat") && selected("parser")(scr)
	})
	s.quit()
}
