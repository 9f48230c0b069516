package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/browser"
	"github.com/acpmux/acpmux-tui/internal/testharness/sshd"
	"github.com/acpmux/acpmux-tui/internal/testharness/startrecord"
	"github.com/acpmux/acpmux-tui/proto"
)

// These tests open the page in a real Chromium, as web_page_test.go does,
// on a machine whose config names other hosts: the page lists the chats of
// this machine and of [host.test] (a real sshd on loopback, a far agent
// home behind it), each under its host's heading, and drives a chat of the
// host through this machine's server. Then the page beside the TUI: a
// prompt sent from the page shows in a TUI running in tmux on the same
// agent home.

// pageGroup is the CSS selector of a host's group in the list.
func pageGroup(host string) string { return fmt.Sprintf("section.host-group[data-host=%q]", host) }

// pageHostRow is the CSS selector of the row of chat id under host.
func pageHostRow(host, id string) string { return pageGroup(host) + " " + pageRow(id) }

// killRemoteServer stops the far side's server, as its user would there.
func (r *hostRig) killRemoteServer() {
	r.t.Helper()
	cmd := exec.Command(binary, "kill-server")
	cmd.Env = []string{"ACPMUX_HOME=" + r.remoteHome, "ACPMUX_CONFIG=" + r.remoteConfig, "PATH=/usr/bin:/bin"}
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("kill-server on the far side: %v\n%s", err, out)
	}
}

// TestWebPageHostsChatsUnderTheirHosts: with [host.test] configured (a
// real sshd) and [host.gone] (ssh refused), the page signed in with the
// token lists this machine's chat under "local" and the host's under
// "test"; "gone" says why it cannot be reached, with a Retry button. A
// chat made on the host while the page is open shows without a reload (the
// page watches the host through the link), and keys typed into a terminal
// chat of the host echo on its screen. When the host's server ends, its
// group says the link is down, and the page reaches it again by itself;
// when this machine's server is killed and started again, the page
// reconnects, lists and watches the host again, and the host's chat shown
// still echoes keys. Last, the new-chat form with the host chosen offers
// that host's harnesses, checks the folder there, and makes and starts the
// chat there.
func TestWebPageHostsChatsUnderTheirHosts(t *testing.T) {
	r := newHostRig(t)
	fake := buildFakeHarness(t)
	rec := filepath.Join(r.dir("far-records"), "far-starts.jsonl")
	farRoot := r.dir("far")
	// Its records are its own state: the page's chat on the host is
	// sandboxed (the host's [web] sandbox) and writes them.
	farConfig := fmt.Sprintf("default_harness = \"term\"\n[harness.term]\ncommand = %q\nenv = { ACPMUX_FAKE_RECORD = %q, ACPMUX_FAKE_MODE = \"echo\" }\nsandbox_state = [%q]\n[web]\nroots = [%q]\n",
		fake, rec, filepath.Dir(rec)+"/", farRoot)
	if err := os.WriteFile(r.remoteConfig, []byte(farConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	listen := closedPort(t) // the door a restarted server opens again at the same place
	r.writeConfig(fmt.Sprintf("[host.gone]\nssh = %q\nssh_options = [\"-F\", %q, \"-o\", \"Port=1\"]\nhome = %q\ncommand = %q\n[web]\nlisten = %q\n",
		sshd.Alias, r.sshd.Config, r.remoteHome, r.command, listen))
	farProj := r.dir("far/proj")
	here := r.chat("new", "--name", "on this machine", "--json")
	far := r.chat("new", "--host", "test", "--harness", "term", "--cwd", farProj, "--name", "far terminal", "--json")
	// Running already, as a chat started in the TUI is.
	srvCall(t, r.remoteHome, proto.MethodStart, proto.ChatParams{ID: far.ID}, nil)

	w := &webRig{cli: r.cli}
	b := browser.Start(t)
	o, _ := w.openWeb()
	if o.Listen != listen {
		t.Fatalf("the door opened on %s, not [web] listen %s", o.Listen, listen)
	}
	signIn(b, o, here.ID)
	b.WaitVisible(pageHostRow("local", here.ID))
	b.WaitVisible(pageHostRow("test", far.ID))
	// The list may draw its rows again as the host's states come: the
	// row is looked for until it shows its name (a node read as it was
	// replaced reads as "").
	b.WaitTrue("the host's row to show its name", fmt.Sprintf(`[...document.querySelectorAll(%s)].some((e) => e.innerText.includes("far terminal"))`,
		browser.Quote(pageHostRow("test", far.ID))))
	var groups []string
	b.Eval(`[...document.querySelectorAll("section.host-group")].map((s) => s.dataset.host + "=" + s.querySelector(".host-label").textContent)`, &groups)
	if want := []string{"local=local", "gone=gone", "test=test"}; !slices.Equal(groups, want) {
		t.Errorf("the list's groups are %q, want %q (this machine first, then the hosts in the config's order)", groups, want)
	}
	if n := b.Count(pageGroup("local") + " [data-chat-id]"); n != 1 {
		t.Errorf("the local group has %d rows, want 1", n)
	}

	// A host that cannot be reached says why on its group, and offers to
	// try again.
	waitPageText(b, pageGroup("gone")+" .host-problem", "unreachable:")
	waitPageText(b, pageGroup("gone")+" .host-problem", "refused")
	b.Screenshot("hosts listed")
	b.Click(pageGroup("gone") + " " + pageRole("host-retry"))
	b.WaitVisible(pageGroup("gone") + " " + pageRole("host-retry"))
	waitPageText(b, pageGroup("gone")+" .host-problem", "unreachable:")

	// Made on the host while the page is open: it shows without a reload.
	later := r.chat("new", "--host", "test", "--harness", "term", "--cwd", farProj, "--name", "made later", "--json")
	b.WaitVisible(pageHostRow("test", later.ID))

	// Keys typed into the host's terminal chat reach its harness there.
	b.Click(pageHostRow("test", far.ID))
	term := pageRole("terminal")
	b.WaitVisible(term)
	waitPageText(b, term, "ready>")
	b.Click(term)
	b.Type("", "hello far\n")
	waitPageText(b, term, "echo: hello far")
	waitPageText(b, ".chat-head", "on test")
	b.Screenshot("host terminal chat")
	if recs := readRecords(t, rec); len(recs) != 1 || recs[0].Cwd != farProj {
		t.Errorf("the host's terminal harness started %d times (%+v), want once in %s", len(recs), recs, farProj)
	}

	// The host's server ends: its group says the link is down, and the
	// page reaches it again (its chats listed, the link up) by itself.
	r.killRemoteServer()
	b.WaitVisible(pageGroup("test") + ".link-down .host-problem")
	waitPageText(b, pageGroup("test")+" .host-name", "down")
	b.Screenshot("host link down")
	b.WaitTrue("the test group's link up again", fmt.Sprintf(`!!document.querySelector(%s)`, browser.Quote(pageGroup("test")+".link-ok")))
	b.WaitVisible(pageHostRow("test", far.ID))
	b.WaitVisible(pageHostRow("test", later.ID))
	// The harness ended with the server: started again there, the chat
	// shown echoes again over the new link.
	srvCall(t, r.remoteHome, proto.MethodStart, proto.ChatParams{ID: far.ID}, nil)
	b.WaitTrue("the host's chat running again", `!document.querySelector(".term-banner") || document.querySelector(".term-banner").hidden`)
	b.Click(term)
	b.Type("", "after the host came back\n")
	waitPageText(b, term, "echo: after the host came back")

	// This machine's server is killed: the page reconnects to the next
	// one (started here by `web`, as any client starts one), and lists and
	// watches the host again over a new link.
	server := proto.LockHolder(r.home)
	if server <= 0 {
		t.Fatalf("no server holds the lock of %s", r.home)
	}
	if err := syscall.Kill(server, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	srvWaitFor(t, "the killed server to be gone", func() bool { return !srvProcessAlive(server) })
	waitPageText(b, "#status", "Reconnecting")
	if again, _ := w.openWeb(); again.URL != o.URL {
		t.Fatalf("after the restart the door is %q, want %q", again.URL, o.URL)
	}
	waitPageText(b, "#status", "Connected")
	b.WaitTrue("the test group's link up after the reconnect", fmt.Sprintf(`!!document.querySelector(%s)`, browser.Quote(pageGroup("test")+".link-ok")))
	b.WaitVisible(pageHostRow("test", far.ID))
	b.WaitVisible(pageHostRow("local", here.ID))
	b.Click(term)
	b.Type("", "after this machine restarted\n")
	waitPageText(b, term, "echo: after this machine restarted")
	// And a chat made on the host now shows too: the new link is watched.
	last := r.chat("new", "--host", "test", "--harness", "term", "--cwd", farProj, "--name", "made after the restart", "--json")
	b.WaitVisible(pageHostRow("test", last.ID))
	b.Screenshot("after the restart")

	// The new-chat form makes a chat on the host chosen: that host's
	// harnesses are offered, its folder is checked there, and the chat is
	// made and started there.
	made := r.dir("far/made here")
	b.Click(pageRole("new-chat"))
	hostSelect := pageRole("host-select")
	b.WaitVisible(hostSelect)
	b.Eval(fmt.Sprintf(`(() => { const s = document.querySelector(%s); s.value = "test"; s.dispatchEvent(new Event("change")); })()`, browser.Quote(hostSelect)), nil)
	b.WaitTrue("the host's default harness chosen", fmt.Sprintf(`document.querySelector(%s).value === "term"`, browser.Quote(pageRole("harness-select"))))
	b.Type(pageRole("source-input"), made+"\n")
	b.WaitTrue("a chip for "+made, chipNaming(filepath.Base(made)))
	b.Type(".new-chat .name-input", "made on the page")
	b.Screenshot("new chat on the host")
	b.Click(pageRole("create"))
	b.WaitTrue("a row for the page's chat under test", fmt.Sprintf(`[...document.querySelectorAll(%s)].some((e) => e.textContent.includes("made on the page"))`,
		browser.Quote(pageGroup("test")+" [data-chat-id]")))
	waitPageText(b, ".chat-head", "made on the page")
	waitPageText(b, term, "ready>")
	if recs := readRecords(t, rec); !slices.ContainsFunc(recs, func(x startrecord.Record) bool { return x.Cwd == made }) {
		t.Errorf("no harness started on the host in %s: %+v", made, recs)
	}
	b.NoConsoleErrors(noFavicon, refusedWhileDown(listen))
}

// refusedWhileDown allows the browser's reports of the WebSocket failing
// while this machine's server was down: the page dials again until the
// next one answers.
func refusedWhileDown(listen string) func(browser.ConsoleError) bool {
	return func(e browser.ConsoleError) bool {
		return e.Kind == browser.KindBrowser && e.Source == "network" &&
			(strings.Contains(e.Text, "'ws://"+listen+"/acp' failed") || strings.HasPrefix(e.URL, "http://"+listen+"/acp"))
	}
}

// TestWebPagePromptShowsInTheTUI: a prompt typed in the page's composer
// for an ACP chat of this machine gets the fake agent's reply on the page,
// and the prompt and the reply show at once in a TUI running in tmux on
// the same agent home, where the chat is selected.
func TestWebPagePromptShowsInTheTUI(t *testing.T) {
	needTmux(t)
	w := newWebRig(t, "")
	other := w.chat("new", "--name", "another chat", "--json")
	chat := w.chat("new", "--harness", "fake", "--cwd", w.proj, "--name", "both ways", "--json")
	s := startTmux(t, 160, 50, append(w.env(), "TERM=xterm-256color"), []string{binary})
	scr := s.waitText("another chat", "both ways", "q quit")
	// Select the ACP chat: down the list or up, from the one selected.
	if !tuiSelected(scr, "both ways") {
		if strings.Index(scr, "both ways") > strings.Index(scr, "▌") {
			s.keys("j")
		} else {
			s.keys("k")
		}
	}
	s.waitFor("the ACP chat selected, its summary shown", func(scr string) bool {
		return tuiSelected(scr, "both ways") && strings.Contains(scr, "both ways  "+chat.ID)
	})

	o, b := openPage(t, w)
	signIn(b, o, other.ID, chat.ID)
	b.Click(pageRow(chat.ID))
	composer := pageRole("composer")
	b.WaitVisible(composer)
	b.Type(composer, "typed in the page\n")
	waitPageText(b, "body", "echo: typed in the page")
	b.Screenshot("prompt from the page")
	s.waitFor("the page's prompt and the agent's reply in the TUI's chat pane", func(scr string) bool {
		return tuiSelected(scr, "both ways") && strings.Contains(scr, "> typed in the page") && strings.Contains(scr, "echo: typed in the page")
	})
	b.NoConsoleErrors(noFavicon)
	s.quit()
}

// tuiSelected says whether the TUI's list marks the chat named name as
// the one selected (▌), and no other.
func tuiSelected(scr, name string) bool {
	found := false
	for _, l := range strings.Split(scr, "\n") {
		if strings.Contains(l, "▌") {
			if !strings.Contains(l, name) {
				return false
			}
			found = true
		}
	}
	return found
}
