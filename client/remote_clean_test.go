package client

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/internal/plaintext"
)

var hostilehost fakeBuild

// hostileHost puts the hostile host (internal/testharness/hostilehost) on
// PATH as ssh, and returns the configured host it plays as dest.
func hostileHost(t *testing.T, dest string) Host {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(hostilehost.get(t, "hostilehost"), filepath.Join(dir, "ssh")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	return Host{Name: dest, HostConfig: config.HostConfig{SSH: dest}}
}

// checkFromHost fails t when s, a string the hostile host sent, still
// holds a control, a bidirectional control or any piece of its escape
// sequences; with screen, SGR sequences may stay.
func checkFromHost(t *testing.T, what, s string, screen bool) {
	t.Helper()
	clean := plaintext.Foreign(s)
	if screen {
		clean = plaintext.ForeignScreen(s)
	}
	if clean != s {
		t.Errorf("%s holds what a terminal obeys: %q", what, s)
	}
	for _, mark := range []string{"cHduZWQ=", "PWNED", "02J", "pwn"} {
		if strings.Contains(s, mark) {
			t.Errorf("%s holds %q of the host's sequences: %q", what, mark, s)
		}
	}
}

// TestRemoteFromHostileHost: a host that puts an OSC 52, an OSC 0, a CSI
// 2J, a DCS, a C1 CSI and a right-to-left override in every string it
// sends, answers and notifications alike. Whatever the TUI reads of it
// through a Remote is clean: states, screens (which keep their colour),
// transcripts, scrollback, chats, notices, news, errors; its chat whose
// id held an escape is broken.
func TestRemoteFromHostileHost(t *testing.T) {
	c, err := DialHost(ctx(t), hostileHost(t, "far"))
	if err != nil {
		t.Fatal(err)
	}
	hello, err := c.Hello(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	checkFromHost(t, "hello's version", hello.Version, false)
	r, err := NewRemote(c)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	// The host sends its notifications right after the watch's answer,
	// news last: once both news are here, every one has been read.
	timeout := time.NewTimer(hangDeadline)
	defer timeout.Stop()
	for got := 0; got < 2; got++ {
		select {
		case n := <-r.News():
			for _, id := range n.Chats {
				checkFromHost(t, "the news of a chat", id, false)
			}
			checkFromHost(t, "the news of a config refused", n.ConfigRefused, false)
		case <-timeout.C:
			t.Fatal("timed out waiting for the host's news")
		}
	}
	select {
	case n := <-r.Notices():
		for _, s := range []string{n.ID, n.Status, n.Title, n.Body} {
			checkFromHost(t, "a notice", s, false)
		}
		if !strings.HasPrefix(n.Title, "notice title") {
			t.Errorf("the notice's title is %q", n.Title)
		}
	default:
		t.Error("no notice from the host was heard")
	}

	st := r.State("far1")
	for _, s := range append([]string{st.Reason, st.LastError, st.LastOutput, st.Title, string(st.StatusFrom), st.AgentName, st.SessionID}, st.Argv...) {
		checkFromHost(t, "far1's state", s, false)
	}
	if !strings.HasPrefix(st.Reason, "reason\uFFFD") || !strings.HasSuffix(st.Reason, "-tail") {
		t.Errorf("far1's reason is %q, want what was around the escapes, and a mark", st.Reason)
	}
	r.mu.Lock()
	pushed := r.chats["far1"].screen
	r.mu.Unlock()
	checkFromHost(t, "far1's screen as the host pushed it", pushed, true)
	for what, screen := range map[string]string{"pushed": pushed, "rendered": r.Render("far1", 0)} {
		checkFromHost(t, "far1's screen "+what, screen, true)
		if !strings.Contains(screen, "\x1b[31mRED-ON-THE-HOST\x1b[m") {
			t.Errorf("far1's screen %s lost its colour: %q", what, screen)
		}
	}
	for _, e := range r.Transcript("far1") {
		for _, s := range append([]string{e.Text, e.Title, e.ToolStatus}, e.Plan...) {
			checkFromHost(t, "an entry of far1's transcript", s, false)
		}
	}
	for _, l := range r.History("far1", 0) {
		checkFromHost(t, "far1's scrollback", l, false)
	}

	list, err := r.List()
	if err != nil {
		t.Fatal(err)
	}
	broken := 0
	for _, e := range list {
		checkFromHost(t, "a chat's id", e.ID, false)
		if e.Broken != nil {
			broken++
			checkFromHost(t, "a broken chat's reason", e.Broken.Error(), false)
			continue
		}
		m := e.Meta
		for _, s := range append(append([]string{m.Name, m.Harness, m.Cwd, m.Parent, m.AgentSessionID}, m.AdditionalDirectories...), m.AdditionalFiles...) {
			checkFromHost(t, e.ID+"'s fields", s, false)
		}
	}
	if broken != 2 {
		t.Errorf("%d broken chats in %+v, want the one with a hostile id and the broken file", broken, list)
	}
	if e, _ := r.Chat("far1"); e.Meta == nil || !strings.HasPrefix(e.Meta.Cwd, "/far/cwd\uFFFD") {
		t.Errorf("chat far1 = %+v", e)
	}

	_, err = r.Remove("far2", false, false)
	var rpc *RPCError
	if err == nil || !errors.As(err, &rpc) {
		t.Fatalf("remove far2: %v, want the host's refusal", err)
	}
	checkFromHost(t, "the host's refusal", err.Error(), false)
	checkFromHost(t, "the host's refusal's data", string(rpc.Data), false)
	if err := r.Start("far1", 80, 24); err == nil || !strings.HasPrefix(err.Error(), "method not found: start\uFFFD") {
		t.Errorf("start far1: %v, want the host's error, clean", err)
	}
}

// TestDialHostileHostErrors: what ssh says on its stderr (a host's banner)
// and a hello's version are cleaned where they become an error.
func TestDialHostileHostErrors(t *testing.T) {
	for dest, want := range map[string]string{
		"down": "ssh to host down (down) failed: banner from the host\uFFFD",
		"old":  "host old runs acpmux-tui 0.0.1\uFFFD",
	} {
		_, err := DialHost(ctx(t), hostileHost(t, dest))
		if err == nil {
			t.Fatalf("dial %s: no error", dest)
		}
		checkFromHost(t, "dial "+dest, err.Error(), false)
		if !strings.HasPrefix(err.Error(), want) {
			t.Errorf("dial %s: %q, want it to start %q", dest, err, want)
		}
	}
}
