package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EComposerMentionsOnAnotherHost: the real TUI in tmux with an ACP
// chat of [host.test] behind the real sshd. @ offers the files of the
// chat's folder over there, listed by that host's server; tab puts one in
// the prompt as a chip, and the prompt that reached the agent over there
// carries it as a resource_link (the agent's own record says so).
func TestE2EComposerMentionsOnAnotherHost(t *testing.T) {
	needTmux(t)
	r := newHostRig(t)
	state := r.dir("far-agent-state")
	far := "[harness.fake]\ncommand = \"" + buildACPFake(t) + "\"\ntransport = \"acp\"\nenv = { ACPMUX_FAKE_STATE = \"" + state + "\" }\n"
	if err := os.WriteFile(r.remoteConfig, []byte(far), 0o644); err != nil {
		t.Fatal(err)
	}
	proj := r.dir("far-proj")
	writeProject(t, proj, "src/parser.go", "src/lexer.go")
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(filepath.Join(r.remoteHome, "logs", "acpmux-tui.log"))
			t.Logf("the far server's log:\n%s", b)
			b, _ = os.ReadFile(filepath.Join(r.home, "logs", "acpmux-tui.log"))
			t.Logf("this side's log:\n%s", b)
		}
	})
	chat := r.chat("new", "--host", "test", "--harness", "fake", "--cwd", proj, "--name", "farcomp", "--json")

	s := startTmux(t, 120, 40, append(r.env(), "TERM=xterm-256color"), []string{binary})
	s.waitText("farcomp", "q quit")
	s.keys("Enter")
	s.waitText("Write a prompt")
	s.text("@pars")
	scr := s.waitText("files of the chat", "src/parser.go")
	if strings.Contains(scr, "src/lexer.go") || strings.Contains(scr, "are not listed") {
		t.Fatalf("@pars on another host:\n%s", scr)
	}
	s.keys("Tab")
	s.waitText("│ @parser.go ")
	s.text("look")
	s.keys("Enter")
	s.waitText("echo: @parser.go look")

	wantOneLink(t, state, r.chat("show", "--host", "test", chat.ID, "--json").AgentSessionID, filepath.Join(proj, "src/parser.go"))
}
