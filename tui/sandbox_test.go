package tui

import (
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// The summary of a Codex chat shows the sandbox it runs in and who chose
// it; when that sandbox cannot take writable roots it says the folders are
// readable, not writable. Other harnesses show no sandbox line.
func TestSummaryShowsCodexSandbox(t *testing.T) {
	r := newRig(t, nil)
	notes := r.dir("notes")
	cx := r.create(sessions.NewChat{Name: "cx", Harness: "codex", AdditionalDirectories: []string{notes}})
	ro := r.create(sessions.NewChat{Name: "ro", Harness: "codex", AdditionalDirectories: []string{notes}})
	sh := r.create(sessions.NewChat{Name: "sh", Harness: "shell", AdditionalDirectories: []string{notes}})
	r.open(Options{})
	r.fake.set(cx.ID, proto.State{Status: proto.StatusRunning, Pid: 42, Sandbox: "workspace-write (acpmux-tui, for the folders)"}, "")
	r.fake.set(ro.ID, proto.State{Status: proto.StatusRunning, Pid: 43, Sandbox: "read-only (config.toml)", FoldersReadOnly: true}, "")
	r.fake.set(sh.ID, proto.State{Status: proto.StatusRunning, Pid: 44}, "")
	for _, tc := range []struct {
		id, want string
	}{
		{cx.ID, "sandbox  workspace-write (acpmux-tui, for the folders)"},
		{ro.ID, "sandbox  read-only (config.toml) · folders readable, not writable"},
		{sh.ID, ""},
	} {
		r.selectChat(tc.id)
		v := r.m.View()
		if tc.want == "" {
			if strings.Contains(v, "sandbox  ") {
				t.Fatalf("chat %s shows a sandbox:\n%s", tc.id, v)
			}
			continue
		}
		if !strings.Contains(v, tc.want) {
			t.Fatalf("chat %s: summary lacks %q:\n%s", tc.id, tc.want, v)
		}
	}
}

// selectChat moves the sidebar's selection to the chat id, then tells the
// model the chat changed, so the summary reads its state again.
func (r *rig) selectChat(id string) {
	r.t.Helper()
	for _, k := range []rune{'j', 'k'} {
		for i := 0; i < len(r.order()) && r.selectedID() != id; i++ {
			r.key(runeKey(k))
		}
	}
	if r.selectedID() != id {
		r.t.Fatalf("cannot select chat %s (order %v)", id, r.order())
	}
	r.m.Update(chatsChangedMsg{ids: []string{id}})
}
