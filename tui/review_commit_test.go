package tui

import (
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// gitFake is the fake server with GitOp: it records each call and answers
// res or err.
type gitFake struct {
	*fakeMux
	calls []proto.GitOpParams
	res   proto.GitOpResult
	err   error
}

func (g *gitFake) GitOp(id string, action proto.GitAction, message string) (proto.GitOpResult, error) {
	g.calls = append(g.calls, proto.GitOpParams{ID: id, Action: action, Message: message})
	return g.res, g.err
}

func keyRunes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

// TestReviewPaneGitKeys: c opens the message prompt with the chat's title
// typed in, enter commits with what was typed and the pane says what was
// done, then reviews the chat again; P and m ask first, and only y goes
// on; a refusal shows as the pane's error; a chat that is not a worktree
// chat is told so and nothing is asked of the server.
func TestReviewPaneGitKeys(t *testing.T) {
	r := newRig(t, nil)
	g := &gitFake{fakeMux: r.fake}
	c := plainCommon()
	meta := &sessions.Meta{ID: "c1", Name: "wt chat", Title: "Fix the parser", Cwd: r.dir("wt"),
		Worktree: &sessions.Worktree{Path: r.dir("wt"), Branch: "acpmux/wt-chat-c1", Base: "abc", Repo: r.dir("repo")}}
	d := NewReviewDialog(c, 3, g, meta)
	d.SetSize(120, 30)
	view := func() string { return strings.Join(d.View(), "\n") }

	d.Update(keyRunes("c"))
	if !strings.Contains(view(), "commit message: Fix the parser") {
		t.Fatalf("no prompt with the title typed in:\n%s", view())
	}
	for _, k := range []tea.KeyMsg{{Type: tea.KeyCtrlU}, keyRunes("my work")} {
		d.Update(k)
	}
	cmd := d.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if cmd == nil || !strings.Contains(view(), "commit acpmux/wt-chat-c1…") {
		t.Fatalf("enter did not start the commit:\n%s", view())
	}
	g.res = proto.GitOpResult{Action: proto.GitCommit, Summary: "committed 2 files on acpmux/wt-chat-c1 as 123: my work", Note: ""}
	again := d.Update(cmd())
	if len(g.calls) != 1 || g.calls[0] != (proto.GitOpParams{ID: "c1", Action: proto.GitCommit, Message: "my work"}) {
		t.Fatalf("calls %+v", g.calls)
	}
	if !strings.Contains(view(), "committed 2 files on acpmux/wt-chat-c1 as 123: my work") {
		t.Errorf("the result is not shown:\n%s", view())
	}
	if _, ok := again().(reviewComputedMsg); !ok {
		t.Errorf("after a commit the pane does not review the chat again")
	}

	// P asks; a key other than y leaves it.
	d.Update(keyRunes("P"))
	if !strings.Contains(view(), "push acpmux/wt-chat-c1 to its upstream (else origin)? y push") {
		t.Fatalf("P does not ask:\n%s", view())
	}
	if cmd := d.Update(keyRunes("n")); cmd != nil || len(g.calls) != 1 {
		t.Errorf("n pushed anyway: %+v", g.calls)
	}
	d.Update(keyRunes("m"))
	g.err, g.res = errors.New("merge chat c1: merging acpmux/wt-chat-c1 into main would conflict in a.txt"), proto.GitOpResult{}
	cmd = d.Update(keyRunes("y"))
	if cmd == nil {
		t.Fatal("y did not merge")
	}
	d.Update(cmd())
	if len(g.calls) != 2 || g.calls[1].Action != proto.GitMerge || !strings.Contains(view(), "would conflict in a.txt") {
		t.Errorf("the refused merge: calls %+v\n%s", g.calls, view())
	}

	plain := NewReviewDialog(c, 4, g, &sessions.Meta{ID: "p1", Name: "plain", Cwd: r.dir("p")})
	plain.SetSize(120, 30)
	for _, k := range []string{"c", "P", "m"} {
		if cmd := plain.Update(keyRunes(k)); cmd != nil {
			t.Errorf("%s on a plain chat returned a command", k)
		}
		if !strings.HasPrefix(plain.ErrText(), "not a worktree chat") {
			t.Errorf("%s on a plain chat: %q", k, plain.ErrText())
		}
	}
	if len(g.calls) != 2 {
		t.Errorf("a plain chat's keys reached the server: %+v", g.calls)
	}
}
