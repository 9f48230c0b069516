package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

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

// TestSidebarCostOnAKey: `$` shows each chat's cost in the sidebar (its
// agent's live one, else the one its file keeps) and hides it again; a
// chat with no cost shows none; a new cost redraws its row.
func TestSidebarCostOnAKey(t *testing.T) {
	r := newRig(t, nil)
	live := r.create(sessions.NewChat{Name: "live"})
	kept := r.create(sessions.NewChat{Name: "kept"})
	none := r.create(sessions.NewChat{Name: "none"})
	if _, err := r.store.SetUsage(kept.ID, &proto.Usage{Used: 1, Size: 10, Cost: &proto.Cost{Amount: 0.003, Currency: "USD"}}); err != nil {
		t.Fatal(err)
	}
	r.fake.set(live.ID, proto.State{Status: proto.StatusRunning, Pid: 4242,
		Usage: &proto.Usage{Used: 82000, Size: 200000, Cost: &proto.Cost{Amount: 1.5, Currency: "EUR"}}}, "")
	r.open(Options{})
	r.run(func() tea.Msg { return chatsChangedMsg{ids: []string{live.ID}} })
	rowOf := func(name string) string {
		t.Helper()
		rows := r.m.sidebar.View()
		for _, l := range rows {
			if strings.Contains(l, " "+name+" ") {
				return l
			}
		}
		t.Fatalf("no row for %s:\n%s", name, strings.Join(rows, "\n"))
		return ""
	}
	if row := rowOf("live"); strings.Contains(row, "EUR") {
		t.Errorf("a cost before $ was pressed: %q", row)
	}
	r.typeText("$")
	if row := rowOf("live"); !strings.Contains(row, " 1.50 EUR ") {
		t.Errorf("the live chat's row: %q", row)
	}
	if row := rowOf("kept"); !strings.Contains(row, "0.0030 USD") {
		t.Errorf("the stored cost's row: %q", row)
	}
	if row := rowOf(none.Name); strings.ContainsAny(row, ".0123456789") {
		t.Errorf("a chat with no cost: %q", row)
	}
	if changed := r.m.sidebar.SetState(live.ID, proto.State{Status: proto.StatusRunning, Pid: 4242,
		Usage: &proto.Usage{Used: 82000, Size: 200000, Cost: &proto.Cost{Amount: 2.25, Currency: "EUR"}}}); !changed {
		t.Error("a new cost does not redraw the row")
	}
	if row := rowOf("live"); !strings.Contains(row, " 2.25 EUR ") {
		t.Errorf("after a new cost: %q", row)
	}
	r.typeText("$")
	if row := rowOf("live"); strings.Contains(row, "EUR") {
		t.Errorf("a cost after $ was pressed again: %q", row)
	}
}

// TestCostCell: the cost column is right-aligned and never wider than
// its cells.
func TestCostCell(t *testing.T) {
	for _, c := range []struct {
		cost *proto.Cost
		want string
	}{
		{nil, "          "},
		{&proto.Cost{Amount: 0.42, Currency: "USD"}, "  0.42 USD"},
		{&proto.Cost{Amount: 0.003, Currency: "USD"}, "0.0030 USD"},
		{&proto.Cost{Amount: 123.45, Currency: "USD"}, "123.45 USD"},
		{&proto.Cost{Amount: 123456.7, Currency: "VND"}, "    123457"},
		{&proto.Cost{Amount: 1e10, Currency: "VND"}, "100000000…"},
	} {
		st := proto.State{}
		if c.cost != nil {
			st.Usage = &proto.Usage{Cost: c.cost}
		}
		if got := costCell(st, &sessions.Meta{}); got != c.want {
			t.Errorf("costCell(%+v) = %q, want %q", c.cost, got, c.want)
		}
	}
}
