package tui

import (
	"testing"

	"github.com/acpmux/acpmux-tui/sessions"
)

// TestForkNoteSaysWhatHappened: the status line after a fork says what it
// carries: the harness's own fork, a capsule (sent, or never sent), the
// agent's fork or else the capsule, or nothing when nothing was said.
func TestForkNoteSaysWhatHappened(t *testing.T) {
	r := newRig(t, nil)
	r.open(Options{})
	for _, c := range []struct {
		meta sessions.Meta
		want string
	}{
		{sessions.Meta{ID: "a1", Name: "f", Harness: "claude"}, "forked f: claude's own fork of the conversation, at its first start"},
		{sessions.Meta{ID: "a2", Name: "f", Harness: "shell"}, "forked f: nothing was said yet: it starts fresh, with the same folders"},
		{sessions.Meta{ID: "a3", Name: "f", Harness: "gemini", Capsule: true}, "forked f: a capsule of what was said, sent as its first message at its first start (gemini has no fork of its own)"},
		{sessions.Meta{ID: "a4", Name: "f", Harness: "shell", Capsule: true}, "forked f: a capsule of what was said is kept, never sent: shell takes no first message"},
		{sessions.Meta{ID: "a5", Name: "f", Harness: "claude-acp", Capsule: true}, "forked f: the agent's own fork at its first start where it has one, else a capsule of what was said as its first message"},
	} {
		if got := r.m.forkNote(&c.meta); got != c.want {
			t.Errorf("%s (capsule %v): %q, want %q", c.meta.Harness, c.meta.Capsule, got, c.want)
		}
	}
}
