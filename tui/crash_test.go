package tui

import (
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	tea "github.com/charmbracelet/bubbletea"
)

// summaryRow returns what the summary's row with the given label says,
// blanks around it trimmed.
func summaryRow(view, label string) string {
	for _, l := range strings.Split(view, "\n") {
		if i := strings.Index(l, "│ "+label+" "); i >= 0 {
			rest, _, _ := strings.Cut(l[i+len("│ "+label):], "│")
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// TestSummaryQuotesWhatTheHarnessLastSaid: the error line of a chat whose
// harness crashed quotes the last line it printed ahead of the exit status,
// and a narrow pane cuts the status rather than the quote.
func TestSummaryQuotesWhatTheHarnessLastSaid(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "a"})
	r.open(Options{})
	said := "Failed to connect to api.example.test: ENOTFOUND"
	for _, tc := range []struct {
		name  string
		state proto.State
		label string
		want  string
	}{
		{"exited, respawn due", proto.State{Status: proto.StatusExited, ExitCode: 1, Reason: "exit status 1", LastError: "exit status 1", LastOutput: said},
			"error", `"` + said + `" · exit status 1`},
		{"respawned and running", proto.State{Status: proto.StatusRunning, Pid: 4242, LastError: "exit status 1", LastOutput: said},
			"last err", `"` + said + `" · exit status 1`},
		{"failed", proto.State{Status: proto.StatusFailed, ExitCode: 1, Reason: "crashed 6 times in a row; last: exit status 1",
			LastError: "crashed 6 times in a row; last: exit status 1", LastOutput: said},
			"error", `"` + said + `" · crashed 6 times in a row; last: exit status 1`},
		{"nothing printed", proto.State{Status: proto.StatusFailed, Reason: "exit status 3", LastError: "exit status 3"},
			"error", "exit status 3"},
	} {
		r.fake.mu.Lock()
		r.fake.states[a.ID] = tc.state
		r.fake.mu.Unlock()
		r.run(func() tea.Msg { return tea.WindowSizeMsg{Width: 160, Height: 30} })
		r.m.Update(chatsChangedMsg{ids: []string{a.ID}})
		row := summaryRow(r.m.View(), tc.label)
		if row != tc.want {
			t.Errorf("%s: the %q row is %q, want %q", tc.name, tc.label, row, tc.want)
		}
	}
	// Narrow: the quote stays, the status is cut.
	r.fake.mu.Lock()
	r.fake.states[a.ID] = proto.State{Status: proto.StatusFailed, Reason: "crashed 6 times in a row; last: exit status 1",
		LastError: "crashed 6 times in a row; last: exit status 1", LastOutput: said}
	r.fake.mu.Unlock()
	r.run(func() tea.Msg { return tea.WindowSizeMsg{Width: 120, Height: 30} })
	r.m.Update(chatsChangedMsg{ids: []string{a.ID}})
	row := summaryRow(r.m.View(), "error")
	if !strings.Contains(row, `"`+said+`"`) || strings.Contains(row, "last: exit status 1") || !strings.Contains(row, "…") {
		t.Errorf("in a narrow pane the error row is %q, want the whole quote and the rest cut", row)
	}
}
