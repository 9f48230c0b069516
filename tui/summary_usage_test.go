package tui

import (
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// TestSummaryContextBar: the summary shows a context bar with the share
// and the window's size, and the cost, once the agent said them; no
// context line before.
func TestSummaryContextBar(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "zap"})
	r.fake.set(a.ID, proto.State{Status: proto.StatusRunning, Pid: 4242}, "")
	r.open(Options{})
	r.m.sidebar.Select(a.ID)
	r.m.refreshSelected()
	if v := r.m.View(); strings.Contains(v, "context") {
		t.Errorf("a context line before the agent said any:\n%s", v)
	}
	r.fake.set(a.ID, proto.State{Status: proto.StatusRunning, Pid: 4242,
		Usage: &proto.Usage{Used: 82000, Size: 200000, Cost: &proto.Cost{Amount: 0.42, Currency: "USD"}}}, "")
	r.m.refreshSelected()
	if v := r.m.View(); !strings.Contains(v, "████░░░░░░ 41 % of 200k · 0.42 USD") {
		t.Errorf("no context bar:\n%s", v)
	}
}

// TestContextLine: the bar is never empty for a context in use, never
// over full; sizes read short.
func TestContextLine(t *testing.T) {
	for _, c := range []struct {
		u    proto.Usage
		want string
	}{
		{proto.Usage{Used: 0, Size: 950}, "░░░░░░░░░░ 0 % of 950"},
		{proto.Usage{Used: 10, Size: 1_500_000}, "█░░░░░░░░░ 0 % of 1.5M"},
		{proto.Usage{Used: 128000, Size: 128000}, "██████████ 100 % of 128k"},
		{proto.Usage{Used: 1, Size: 2, Cost: &proto.Cost{Amount: 3, Currency: "EUR"}}, "█████░░░░░ 50 % of 2 · 3.00 EUR"},
	} {
		if got := contextLine(&c.u); got != c.want {
			t.Errorf("contextLine(%+v) = %q, want %q", c.u, got, c.want)
		}
	}
}
