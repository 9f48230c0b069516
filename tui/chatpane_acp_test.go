package tui

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// openACP opens the TUI on one ACP chat with the pane focused.
func openACP(t *testing.T) (*rig, string) {
	t.Helper()
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "agent", Harness: "opencode"})
	r.open(Options{})
	r.key(keyEnter)
	if !r.m.pane.IsACP() || !r.m.pane.Focused() {
		t.Fatal("the ACP chat's pane is not focused")
	}
	return r, a.ID
}

// card is the permission card of the perms fake's n-th tool call, with
// pending requests waiting.
func card(n, pending int) *proto.Permission {
	return &proto.Permission{
		Title: "Tool " + string(rune('0'+n)), Pending: pending, Seq: uint64(n),
		Options: []proto.PermissionOption{{ID: "allow_once", Name: "Allow"}, {ID: "reject_once", Name: "Reject"}},
	}
}

func answers(calls []string) []string {
	var out []string
	for _, c := range calls {
		if strings.HasPrefix(c, "answer ") {
			out = append(out, c)
		}
	}
	return out
}

func TestACPPermissionQueueShowsEachCardWithItsCount(t *testing.T) {
	r, id := openACP(t)
	show := func(p *proto.Permission) {
		r.fake.set(id, proto.State{Status: proto.StatusRunning, TurnActive: true, Permission: p}, "")
		r.m.Update(chatsChangedMsg{ids: []string{id}})
	}
	show(card(1, 5))
	if v := r.m.View(); !strings.Contains(v, "⚠ permission 1 of 5: Tool 1") || !strings.Contains(v, "1 Allow · 2 Reject") {
		t.Fatalf("first of five cards not drawn with its count:\n%s", v)
	}
	// A second key before the next card shows answers nothing: the user
	// has not seen that card.
	r.key(runeKey('1'), runeKey('2'))
	if got := answers(r.fake.Calls()); !slices.Equal(got, []string{"answer allow_once"}) {
		t.Fatalf("answers %q, want one allow", got)
	}
	show(card(2, 4))
	if v := r.m.View(); !strings.Contains(v, "⚠ permission 1 of 4: Tool 2") {
		t.Fatalf("the next card does not show with the count down:\n%s", v)
	}
	r.key(runeKey('2'))
	if got := answers(r.fake.Calls()); !slices.Equal(got, []string{"answer allow_once", "answer reject_once"}) {
		t.Fatalf("answers %q", got)
	}
	// The last card has no count.
	show(card(5, 1))
	v := r.m.View()
	if !strings.Contains(v, "⚠ permission: Tool 5") || strings.Contains(v, " of 1") {
		t.Fatalf("the last card:\n%s", v)
	}
	// Esc dismisses it (a cancelled answer).
	r.key(keyEscK)
	if got := answers(r.fake.Calls()); len(got) != 3 || got[2] != "answer " {
		t.Fatalf("esc on the card: %q", got)
	}
}

func TestACPCardTitleIsDrawnOnOneCleanLine(t *testing.T) {
	r, id := openACP(t)
	p := card(1, 1)
	p.Title = "Edit \x1b]52;c;cHduZWQ=\x07main.go\nnext"
	p.Options[0].Name = "Allow\x1b[5m"
	r.fake.set(id, proto.State{Status: proto.StatusRunning, TurnActive: true, Permission: p}, "")
	r.m.Update(chatsChangedMsg{ids: []string{id}})
	v := r.m.View()
	if !strings.Contains(v, "⚠ permission: Edit main.go next") || !strings.Contains(v, "1 Allow · 2 Reject") {
		t.Fatalf("card:\n%s", v)
	}
	if strings.Contains(v, "52;") || strings.Contains(v, "[5m") {
		t.Fatalf("an escape sequence reached the screen:\n%q", v)
	}
}

func TestACPQuietTurnSaysNoReplyYet(t *testing.T) {
	r, id := openACP(t)
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	set := func(st proto.State, entries ...proto.Entry) {
		r.fake.mu.Lock()
		r.fake.transcripts[id] = entries
		r.fake.mu.Unlock()
		r.fake.set(id, st, "")
		r.m.Update(chatsChangedMsg{ids: []string{id}})
	}
	tick := func(s int) string {
		r.m.Update(tickMsg{at: at(s), seq: r.m.tickSeq})
		return r.m.View()
	}
	running := proto.State{Status: proto.StatusRunning, TurnActive: true}
	asked := proto.Entry{Kind: proto.EntryUser, Text: "what files are here?", At: at(0)}
	set(running, asked)
	if v := tick(9); !strings.Contains(v, "turn running") || strings.Contains(v, "no reply yet") {
		t.Fatalf("9 s in:\n%s", v)
	}
	if v := tick(10); !strings.Contains(v, "turn running · no reply yet (10s) · esc cancels") {
		t.Fatalf("10 s of quiet not shown:\n%s", v)
	}
	if v := tick(25); !strings.Contains(v, "no reply yet (25s)") {
		t.Fatalf("the count does not move:\n%s", v)
	}
	// A chunk arrives: the quiet spell is over, and the next one counts
	// from it.
	reply := proto.Entry{Kind: proto.EntryAgent, Text: "looking", At: at(25)}
	set(running, asked, reply)
	if v := tick(26); strings.Contains(v, "no reply yet") {
		t.Fatalf("a reply did not end the quiet spell:\n%s", v)
	}
	if v := tick(36); !strings.Contains(v, "no reply yet (11s)") {
		t.Fatalf("a second quiet spell:\n%s", v)
	}
	// A permission card waits for the user, not the agent.
	carded := running
	carded.Permission = card(1, 1)
	set(carded, asked, reply)
	if v := tick(50); strings.Contains(v, "no reply yet") {
		t.Fatalf("quiet counted while a card waits for the user:\n%s", v)
	}
	set(running, asked, reply)
	if v := tick(55); strings.Contains(v, "no reply yet") {
		t.Fatalf("the time the card waited was counted:\n%s", v)
	}
	if v := tick(61); !strings.Contains(v, "no reply yet (11s)") {
		t.Fatalf("quiet after the card:\n%s", v)
	}
	// The turn ends: nothing is said.
	set(proto.State{Status: proto.StatusWaiting}, asked, reply)
	if v := tick(100); strings.Contains(v, "no reply yet") || strings.Contains(v, "turn running") {
		t.Fatalf("an idle chat says it waits:\n%s", v)
	}
}

func TestACPPromptErrorsReachTheStatusLineClean(t *testing.T) {
	refusal := errors.New("session/prompt: agent refused (-32603): \x1b]0;pwned\x07bad\nthing\u009b2J")
	err := error(agentError{refusal})
	if got := err.Error(); got != "session/prompt: agent refused (-32603): bad thing" {
		t.Fatalf("status line text %q", got)
	}
	if !errors.Is(err, refusal) {
		t.Fatal("the cleaned error no longer wraps the agent's")
	}
}
