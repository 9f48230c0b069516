package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// rawControl returns the first control character in s that a terminal
// would act on, or -1.
func rawControl(s string) rune {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return r
		}
	}
	return -1
}

// TestSummaryAndSidebarShowNoRawEscapes: every field the summary pane and
// the sidebar show that came from a chat file (harness, cwd, folders,
// parent, session id) or from an agent (a session id, a failure's reason)
// is shown without its escape sequences and control characters, as
// transcripts are.
func TestSummaryAndSidebarShowNoRawEscapes(t *testing.T) {
	const osc = "\x1b]0;X\a"
	c := plainCommon()
	meta := &sessions.Meta{Version: 1, ID: "k3x9q2", Name: "fix", Harness: "fake" + osc,
		Cwd: "/tmp/x" + osc, AdditionalDirectories: []string{"/tmp/y\u009b2J" + osc},
		Origin: sessions.OriginFork, Parent: "p" + osc, AgentSessionID: "sid" + osc}
	entries := []sessions.Entry{{ID: meta.ID, Meta: meta}}
	states := []proto.State{
		{Status: proto.StatusFailed, Reason: "agent said " + osc + "\x1b[2Jno"},
		{Status: proto.StatusWaiting, SessionID: "live" + osc, LastError: "last " + osc + "error"},
	}
	for _, st := range states {
		s := NewSummary(c)
		s.SetSize(100, 20)
		s.Set(ChatInfo{Entry: entries[0], State: st, Transport: "acp", Via: "acp"}, true, time.Now())
		view := strings.Join(s.View(), "\n")
		if r := rawControl(strings.ReplaceAll(view, "\n", "")); r >= 0 {
			t.Errorf("the summary shows control character %U raw:\n%q", r, view)
		}
		for _, want := range []string{"/tmp/x", "/tmp/y", "fake"} {
			if !strings.Contains(view, want) {
				t.Errorf("the summary lost %q:\n%s", want, view)
			}
		}
	}

	broken := sessions.Entry{ID: "brk", Broken: &brokenError{"load chat brk: toml: bad " + osc}}
	s := NewSummary(c)
	s.SetSize(100, 20)
	s.Set(ChatInfo{Entry: broken}, true, time.Now())
	if view := strings.Join(s.View(), ""); rawControl(view) >= 0 {
		t.Errorf("the summary of a broken chat shows a control character raw:\n%q", view)
	}

	side := NewSidebar(c)
	side.SetSize(40, 10)
	side.SetEntries(append(entries, broken), "")
	if view := strings.Join(side.View(), ""); rawControl(view) >= 0 {
		t.Errorf("the sidebar shows a control character raw:\n%q", view)
	}
}

type brokenError struct{ text string }

func (e *brokenError) Error() string { return e.text }
