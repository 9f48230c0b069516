package tui

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

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

// A sandboxed chat's row carries the sandbox mark before its harness, at
// every width the row stays exactly the sidebar's width, selected or not,
// and a chat that is not sandboxed has no mark.
func TestSidebarMarksSandboxedChats(t *testing.T) {
	c := plainCommon()
	s := NewSidebar(c)
	s.SetEntries([]sessions.Entry{
		{ID: "sbx111", Meta: &sessions.Meta{ID: "sbx111", Name: "bounded work", Harness: "claude", Sandbox: true}},
		{ID: "pln222", Meta: &sessions.Meta{ID: "pln222", Name: "plain work", Harness: "claude"}},
	}, "")
	for _, w := range []int{8, 12, 21, 22, 26, 40} {
		s.SetSize(w, 5)
		lines := s.View()
		for i, l := range lines[:2] {
			if got := ansi.StringWidth(l); got != w {
				t.Fatalf("width %d: row %d is %d cells: %q", w, i, got, l)
			}
		}
		if w >= 22 && (!strings.Contains(lines[0], sandboxMark+" claude") || strings.Contains(lines[1], sandboxMark)) {
			t.Fatalf("width %d: rows\n%s", w, strings.Join(lines, "\n"))
		}
	}
}

// The summary's sandbox line: the bound a running chat's start applied,
// else why its last start was refused, else the bound its server computes
// for its next start (or why that cannot hold); none for a chat that is
// not sandboxed. A sandboxed Codex chat keeps its own sandbox under it.
func TestSummarySandboxLine(t *testing.T) {
	c := plainCommon()
	meta := func(sandboxed bool, h string) sessions.Entry {
		return sessions.Entry{ID: "k3x9q2", Meta: &sessions.Meta{ID: "k3x9q2", Name: "n", Harness: h, Cwd: "/src/app", Sandbox: sandboxed}}
	}
	next := &proto.SandboxJSON{Summary: "landlock · writes: folder, 2 folders, 1 file, tmp, ~/.claude"}
	for _, tc := range []struct {
		name string
		info ChatInfo
		want []string
	}{
		{"not sandboxed", ChatInfo{Entry: meta(false, "claude"), Bound: next}, nil},
		{"stopped: the next start's", ChatInfo{Entry: meta(true, "claude"), Bound: next},
			[]string{"sandbox  landlock · writes: folder, 2 folders, 1 file, tmp, ~/.claude"}},
		{"running: its start's", ChatInfo{Entry: meta(true, "claude"), Bound: next,
			State: proto.State{Status: proto.StatusRunning, Pid: 7, Bound: "landlock · writes: folder, tmp, ~/.claude"}},
			[]string{"sandbox  landlock · writes: folder, tmp, ~/.claude"}},
		{"refused at its start", ChatInfo{Entry: meta(true, "claude"), Bound: next,
			State: proto.State{Status: proto.StatusFailed, LastError: "chat k3x9q2: sandbox: landlock ABI 3 is older than the 4 this bound needs"}},
			[]string{"sandbox  landlock · refused: landlock ABI 3 is older than the 4 this bound needs"}},
		{"refused by the server", ChatInfo{Entry: meta(true, "claude"),
			Bound: &proto.SandboxJSON{Summary: "landlock · refused", Refused: "sandbox: / holds the agent home /h, which a sandboxed chat may not read"}},
			[]string{"sandbox  landlock · refused: / holds the agent home /h"}},
		{"another failure", ChatInfo{Entry: meta(true, "claude"), Bound: next,
			State: proto.State{Status: proto.StatusFailed, LastError: "chat k3x9q2: its folder /src/app: no such file"}},
			[]string{"sandbox  landlock · writes: folder, 2 folders"}},
		{"before the server answers", ChatInfo{Entry: meta(true, "claude")},
			[]string{"sandbox  landlock · its bound is computed at each start"}},
		{"codex too", ChatInfo{Entry: meta(true, "codex"), Bound: next,
			State: proto.State{Status: proto.StatusRunning, Pid: 7, Bound: "landlock · writes: folder, tmp, ~/.codex", Sandbox: "workspace-write (acpmux-tui, for the folders)"}},
			[]string{"sandbox  landlock · writes: folder, tmp, ~/.codex", "         workspace-write (acpmux-tui, for the folders)"}},
	} {
		s := NewSummary(c)
		s.SetSize(90, 12)
		s.Set(tc.info, true, time.Time{})
		view := strings.Join(s.View(), "\n")
		if tc.want == nil && strings.Contains(view, "sandbox") {
			t.Errorf("%s: a sandbox line:\n%s", tc.name, view)
		}
		for _, w := range tc.want {
			if !strings.Contains(view, w) {
				t.Errorf("%s: no %q in\n%s", tc.name, w, view)
			}
		}
	}
}

// A sandboxed chat read from its file (as the TUI on the server's machine
// lists them) has no bound: selecting it asks its server, whose answer
// the summary shows, kept when the list is read again from the files.
func TestSummaryAsksTheServerForTheBound(t *testing.T) {
	r := newRig(t, nil)
	on := true
	plain := r.create(sessions.NewChat{Name: "plain", Cwd: r.dir("plain")})
	bounded := r.create(sessions.NewChat{Name: "bounded", Cwd: r.dir("proj"), AdditionalDirectories: []string{r.dir("notes")}, Sandbox: &on})
	r.open(Options{})
	r.selectChat(plain.ID)
	if slices.Contains(r.fake.Calls(), "chat "+plain.ID) {
		t.Fatalf("a chat that is not sandboxed was asked for: %v", r.fake.Calls())
	}
	r.selectChat(bounded.ID)
	if !slices.Contains(r.fake.Calls(), "chat "+bounded.ID) {
		t.Fatalf("the sandboxed chat was not asked of the server: %v", r.fake.Calls())
	}
	const want = "sandbox  landlock · writes: folder, 1 folder, tmp"
	if v := r.m.View(); !strings.Contains(v, want) {
		t.Fatalf("summary lacks %q:\n%s", want, v)
	}
	if v := r.m.View(); !strings.Contains(v, sandboxMark+" shell") {
		t.Fatalf("the sidebar does not mark the sandboxed chat:\n%s", v)
	}
	// The list read again from the files: the bound last given shows
	// until the server answers again (its folders may have changed).
	entries, err := r.store.List()
	if err != nil {
		t.Fatal(err)
	}
	r.m.listAsked++
	_, ask := r.m.Update(listLoadedMsg{entries: entries, seq: r.m.listAsked})
	if e, _ := r.m.sidebar.Selected(); e.ID != bounded.ID || e.Bound != nil {
		t.Fatalf("the list read again: %+v", e)
	}
	if v := r.m.View(); !strings.Contains(v, want) {
		t.Fatalf("after the list was read again the summary lacks %q:\n%s", want, v)
	}
	asked := len(r.fake.Calls())
	r.run(ask)
	if calls := r.fake.Calls()[asked:]; !slices.Contains(calls, "chat "+bounded.ID) {
		t.Fatalf("the list read again did not ask for the bound again: %v", calls)
	}
}

// wrapList breaks a bound's summary after a comma or before a "·", on at
// most the lines given, the last cut when the rest does not fit.
func TestWrapList(t *testing.T) {
	const bound = "landlock · writes: folder, tmp, ~/.codex · .git/hooks read-only"
	for _, tc := range []struct {
		w, rows int
		want    []string
	}{
		{80, 2, []string{bound}},
		{40, 2, []string{"landlock · writes: folder, tmp, ~/.codex", "· .git/hooks read-only"}},
		{26, 2, []string{"landlock · writes: folder,", "tmp, ~/.codex · .git/hook…"}},
		{26, 3, []string{"landlock · writes: folder,", "tmp, ~/.codex", "· .git/hooks read-only"}},
		{39, 1, []string{"landlock · writes: folder, tmp, ~/.cod…"}},
		{5, 2, []string{"land…"}},
	} {
		if got := wrapList(bound, tc.w, tc.rows); !slices.Equal(got, tc.want) {
			t.Errorf("w %d, %d rows: %q, want %q", tc.w, tc.rows, got, tc.want)
		}
	}
}
