package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
)

// This file holds a host to nothing it sends reaching the user's terminal
// as a control: a stand-in ssh (internal/testharness/hostilehost) that
// answers the protocol with escape sequences in every string.

var (
	hostileHostOnce sync.Once
	hostileHostBin  string
	hostileHostErr  error
)

// hostileHostCLI is a cli whose PATH has the hostile host as ssh, and
// whose config names three hosts it plays: far (serves), down (ssh fails)
// and old (another protocol).
func hostileHostCLI(t *testing.T) *cli {
	t.Helper()
	hostileHostOnce.Do(func() {
		hostileHostBin = filepath.Join(filepath.Dir(binary), "hostilehost")
		out, err := exec.Command("go", "build", "-o", hostileHostBin, "github.com/acpmux/acpmux-tui/internal/testharness/hostilehost").CombinedOutput()
		if err != nil {
			hostileHostErr = err
			t.Logf("%s", out)
		}
	})
	if hostileHostErr != nil {
		t.Fatalf("build hostilehost: %v", hostileHostErr)
	}
	c := newCLI(t)
	if err := os.Symlink(hostileHostBin, filepath.Join(c.root, "bin", "ssh")); err != nil {
		t.Fatal(err)
	}
	conf := "[host.far]\nssh = \"far\"\n[host.down]\nssh = \"down\"\n[host.old]\nssh = \"old\"\n"
	if err := os.WriteFile(c.config, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return c
}

// hostileMarks are the pieces of the host's escape sequences
// (hostilehost.Hostile) that would show should a sequence reach the
// terminal whole or in part.
var hostileMarks = []string{"\x1b", "\u009b", "\u202e", "cHduZWQ=", "PWNED", "02J", "pwn"}

// terminalControl returns the first character in s a terminal would act on
// or that would reorder what it shows (a C0 control but newline and tab,
// DEL, a C1 control, a bidirectional control), or -1.
func terminalControl(s string) rune {
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0,
			r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
			return r
		}
	}
	return -1
}

// checkNoHostile fails t when out carries a control or any piece of the
// host's escape sequences.
func checkNoHostile(t *testing.T, what, out string) {
	t.Helper()
	if r := terminalControl(out); r >= 0 {
		t.Errorf("%s printed control %U raw:\n%q", what, r, out)
	}
	for _, m := range hostileMarks {
		if strings.Contains(out, m) {
			t.Errorf("%s printed %q of the host's escapes:\n%q", what, m, out)
		}
	}
}

// checkJSONStrings fails t when any string in the JSON text out holds a
// control once decoded.
func checkJSONStrings(t *testing.T, what, out string) {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Errorf("%s: not JSON: %v\n%s", what, err, out)
		return
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			checkNoHostile(t, what+" (a decoded string)", v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				walk(k)
				walk(e)
			}
		}
	}
	walk(v)
}

// TestHostCommandsPrintNoHostileEscapes: a host whose every string holds an
// OSC 52, an OSC 0, a CSI 2J, a DCS, a C1 CSI and a right-to-left
// override. hosts, ls, show and rm against it, in text and JSON, print
// none of them, neither raw nor as a JSON escape; what is around them
// still shows; its chat whose id is not a chat id is listed as broken and
// refused; its errors (a refusal, ssh's stderr, a version) are cleaned too.
func TestHostCommandsPrintNoHostileEscapes(t *testing.T) {
	c := hostileHostCLI(t)
	runs := []struct {
		args []string
		code int
		want []string // what shows around the escapes
	}{
		{[]string{"hosts"}, 0, []string{"far", "answers: acpmux-tui 9.9.9", "does not answer: ssh to host down (down) failed: banner from the host", "host old runs acpmux-tui 0.0.1"}},
		{[]string{"hosts", "--json"}, 0, []string{`"version": "9.9.9`}},
		{[]string{"ls", "--host", "far"}, 0, []string{"far1", "hostile-name-far1", "/far/cwd", "brokenfar", "parse chat file", "broken"}},
		{[]string{"ls", "--host", "far", "--json"}, 0, []string{`"id": "far1"`, "/far/cwd", "parse chat file"}},
		{[]string{"show", "--host", "far", "far1"}, 0, []string{"far1", "hostile-name-far1", "/far/cwd", "/far/dir", "-tail"}},
		{[]string{"show", "--host", "far", "far1", "--json"}, 0, []string{`"id": "far1"`, "/far/cwd"}},
		{[]string{"show", "--host", "far", "evil"}, 1, []string{"not a chat id"}},
		{[]string{"show", "--host", "far", "nosuch"}, 1, []string{"nosuch"}},
		{[]string{"rm", "--host", "far", "far1"}, 0, []string{"removed far1"}},
		{[]string{"rm", "--host", "far", "far2"}, 1, []string{"cannot remove far2"}},
		{[]string{"rm", "--host", "far", "evil"}, 1, []string{"not a chat id"}},
	}
	for _, run := range runs {
		what := "acpmux-tui " + strings.Join(run.args, " ")
		r := c.run(run.args...)
		if r.code != run.code {
			t.Errorf("%s exited %d, want %d\nstdout:\n%q\nstderr:\n%q", what, r.code, run.code, r.stdout, r.stderr)
		}
		checkNoHostile(t, what+" stdout", r.stdout)
		checkNoHostile(t, what+" stderr", r.stderr)
		if run.args[len(run.args)-1] == "--json" {
			checkJSONStrings(t, what, r.stdout)
		}
		for _, w := range run.want {
			if !strings.Contains(r.stdout+r.stderr, w) {
				t.Errorf("%s does not show %q:\nstdout:\n%s\nstderr:\n%s", what, w, r.stdout, r.stderr)
			}
		}
	}

	// The chat whose id is not one is broken, with the reason; the others
	// keep their fields, less the escapes.
	var list []proto.ChatJSON
	if err := json.Unmarshal([]byte(c.ok("ls", "--host", "far", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 4 {
		t.Fatalf("ls --host far --json listed %d chats, want 4: %+v", len(list), list)
	}
	for _, j := range list {
		switch {
		case j.ID == "far1":
			if !strings.HasPrefix(j.Cwd, "/far/cwd") || !strings.HasSuffix(j.Cwd, "-tail") || j.Broken != "" {
				t.Errorf("far1 = %+v, want its cwd less the escapes", j)
			}
		case strings.HasPrefix(j.ID, "evil"):
			if j.Status != "broken" || !strings.Contains(j.Broken, "not a chat id") || j.Name != "" {
				t.Errorf("the chat with a hostile id = %+v, want it broken", j)
			}
		}
	}
}

// TestE2EHostileHostNeverReachesTheTerminal runs the TUI (under script,
// which keeps every byte it writes to the terminal, in tmux, which drives
// it) with the hostile host and two that fail with its stderr: the
// sidebar shows the host's chats and the hosts' reasons, a chat's summary
// and screen (with its colour), the notices and news it sends are heard;
// none of the host's OSC 52, OSC 0, CSI 02J, DCS, C1 CSI or right-to-left
// override is ever written to the terminal.
func TestE2EHostileHostNeverReachesTheTerminal(t *testing.T) {
	needTmux(t)
	scriptBin, err := exec.LookPath("/usr/bin/script")
	if err != nil {
		t.Skip("no /usr/bin/script (util-linux) to record what reaches the terminal")
	}
	c := hostileHostCLI(t)
	raw := filepath.Join(c.root, "terminal.raw")
	s := startTmux(t, 160, 45, append(c.env(), "TERM=xterm-256color"), []string{scriptBin, "-q", "-f", "-e", "-c", binary, raw})
	// What reached the terminal is checked at every look at the screen:
	// the first hostile sequence ends the test, before it can garble what
	// the waits read.
	written := func() string {
		t.Helper()
		out, err := os.ReadFile(raw)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		var reached []string
		for _, h := range []struct{ what, seq string }{
			{"the host's OSC 52 (clipboard)", "\x1b]52"}, {"its clipboard text", "cHduZWQ="}, {"its title (OSC 0)", "\x1b]0;PWNED"},
			{"its title's text", "PWNED"}, {"its CSI 02J", "\x1b[02J"}, {"its DCS", "\x1bPpwn"}, {"its C1 CSI", "\u009b"},
			{"its right-to-left override", "\u202e"},
		} {
			if i := strings.Index(string(out), h.seq); i >= 0 {
				reached = append(reached, fmt.Sprintf("%s: %q", h.what, out[max(i-60, 0):min(i+60, len(out))]))
			}
		}
		if reached != nil {
			t.Fatalf("the host's sequences reached the terminal:\n%s", strings.Join(reached, "\n"))
		}
		return string(out)
	}
	waitFor := func(what string, cond func(scr string) bool) {
		t.Helper()
		s.waitFor(what, func(scr string) bool { written(); return cond(scr) })
	}
	waitFor("the host's chats and the failing hosts' reasons in the sidebar", func(scr string) bool {
		return strings.Contains(scr, "▾ far") && strings.Contains(scr, "far:evil") && strings.Contains(scr, "far:brokenfar") &&
			strings.Contains(scr, "▾ down · down: ssh to host down") && strings.Contains(scr, "▾ old · down: host old runs")
	})
	// Each of the host's chats in turn: its summary, and its screen.
	for _, id := range []string{"far:far1", "far:far2", "far:evil", "far:brokenfar"} {
		waitFor(id+" selected", func(scr string) bool {
			if id == "far:far1" || id == "far:far2" {
				return strings.Contains(scr, "hostile-name-"+strings.TrimPrefix(id, "far:")+"\uFFFD") && strings.Contains(scr, "  "+id+"  ") &&
					strings.Contains(scr, "/far/cwd") && strings.Contains(scr, "RED-ON-THE-HOST")
			}
			for _, l := range strings.Split(scr, "\n") {
				if strings.Contains(l, "▌") {
					return strings.Contains(l, id)
				}
			}
			return false
		})
		if id == "far:far1" {
			// The screen keeps its colour: the host's SGR is no hostile
			// sequence.
			if styled := s.tmux("capture-pane", "-p", "-e", "-t", "e2e"); !strings.Contains(styled, "\x1b[31mRED-ON-THE-HOST") {
				t.Errorf("the host's screen lost its colour:\n%q", styled)
			}
		}
		s.keys("j")
	}
	s.quit()
	if !strings.Contains(written(), "hostile-name-far1") {
		t.Fatalf("script recorded no drawing of the host's chats")
	}
}
