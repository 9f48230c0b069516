package transfer

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/bundle"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// other is a second agent home on the same machine as w (the same project
// folders), with a HOME of its own: what import finds on the other side.
func (w *world) other() *world {
	w.t.Helper()
	o := *w
	o.home, o.user = filepath.Join(w.root, "agent2"), filepath.Join(w.root, "user2")
	if err := os.MkdirAll(o.user, 0o755); err != nil {
		w.t.Fatal(err)
	}
	var err error
	if o.store, err = sessions.OpenStore(o.home); err != nil {
		w.t.Fatal(err)
	}
	o.env = map[string]string{"HOME": o.user}
	return &o
}

// move exports chat from w with live and imports the bundle into to.
func move(t *testing.T, w, to *world, chat *sessions.Meta, live *Live) (bundle.Manifest, *sessions.Meta, string) {
	t.Helper()
	var buf bytes.Buffer
	opt := w.exportOptions()
	opt.Live = live
	erep, err := Export(&buf, chat, opt)
	if err != nil {
		t.Fatal(err)
	}
	if erep.Bytes != int64(buf.Len()) {
		t.Errorf("report says %d bytes, wrote %d", erep.Bytes, buf.Len())
	}
	stage := t.TempDir()
	up, err := bundle.Unpack(bytes.NewReader(buf.Bytes()), stage, bundle.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Import(bytes.NewReader(buf.Bytes()), to.importOptions(to.src))
	if err != nil {
		t.Fatal(err)
	}
	m, err := to.store.Load(rep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(m.Name, chat.Name+" · import") || m.Harness != chat.Harness || m.Parent != chat.ID || m.Origin != sessions.OriginImport {
		t.Errorf("imported chat %+v", m)
	}
	return up.Manifest, m, rep.How
}

// TestRoundTripClaudeSessionLog: a Claude Code chat's session log is
// carried byte for byte and put under the new home's Claude folder, in the
// project folder of the chat's folder, where --resume finds it; a second
// import of the same session never overwrites it and comes over as a
// capsule instead.
func TestRoundTripClaudeSessionLog(t *testing.T) {
	w := newWorld(t)
	sid := "3f1d2c4b-1111-2222-3333-444455556666"
	log := `{"type":"user","message":{"role":"user","content":"fix the parser"}}` + "\n" +
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"done"}]}}` + "\n"
	w.file("user/.claude/projects/"+ClaudeProjectName(w.app)+"/"+sid+".jsonl", log)
	chat, err := w.store.Create(sessions.NewChat{Name: "parser", Harness: "claude", Cwd: w.app,
		AdditionalDirectories: []string{w.lib, w.outside}, AgentSessionID: sid})
	if err != nil {
		t.Fatal(err)
	}
	to := w.other()
	man, m, how := move(t, w, to, chat, nil)
	if man.Conversation != bundle.KindExact || man.Source != bundle.SourceClaudeSession {
		t.Errorf("manifest %s/%s, want exact/claude-session", man.Conversation, man.Source)
	}
	want := filepath.Join(to.user, ".claude", "projects", ClaudeProjectName(w.app), sid+".jsonl")
	got, err := os.ReadFile(want)
	if err != nil || string(got) != log {
		t.Fatalf("session log at %s: %q, %v", want, got, err)
	}
	if m.AgentSessionID != sid || !slices.Equal(m.AdditionalDirectories, []string{w.lib}) {
		t.Errorf("imported chat %+v", m)
	}
	if harness.ClaudeSessionLog([]string{"HOME=" + to.user}, sid) != want {
		t.Errorf("Claude Code would not find the log at %s", want)
	}
	if !strings.Contains(how, want) || !strings.Contains(how, "--resume "+sid) {
		t.Errorf("how = %q", how)
	}
	if fi, _ := os.Stat(want); fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("session log mode %v", fi.Mode())
	}

	// The same bundle again: the log there stays, the chat gets a capsule.
	if err := os.WriteFile(want, []byte(log+`{"type":"user","message":{"role":"user","content":"later"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := Export(&buf, chat, w.exportOptions()); err != nil {
		t.Fatal(err)
	}
	rep, err := Import(&buf, to.importOptions(to.src))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Conversation != string(bundle.KindCapsule) || !strings.Contains(rep.How, "already on this host") {
		t.Errorf("second import: %s: %s", rep.Conversation, rep.How)
	}
	if after, _ := os.ReadFile(want); !strings.Contains(string(after), "later") {
		t.Errorf("the log already there was overwritten")
	}
	second, _ := to.store.Load(rep.ID)
	text, _, _ := to.store.Capsule(rep.ID)
	if second.AgentSessionID != "" || !strings.Contains(text, "fix the parser") || !strings.Contains(text, "# Imported chat") {
		t.Errorf("second import: session %q capsule %q", second.AgentSessionID, text)
	}
}

// TestRoundTripCodexSessionFile: a Codex rollout file comes over byte for
// byte into the new home's Codex sessions, where `codex resume` finds it.
func TestRoundTripCodexSessionFile(t *testing.T) {
	w := newWorld(t)
	sid := "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
	rollout := `{"timestamp":"2026-12-01T10:00:00.000Z","type":"session_meta","payload":{"id":"` + sid +
		`","timestamp":"2026-12-01T10:00:00.000Z","cwd":"` + w.app + `"}}` + "\n" +
		`{"type":"event_msg","payload":{"type":"user_message","message":"rename the flag"}}` + "\n"
	w.file("user/.codex/sessions/2026/12/01/rollout-2026-12-01T10-00-00-"+sid+".jsonl", rollout)
	chat, err := w.store.Create(sessions.NewChat{Name: "flags", Harness: "codex", Cwd: w.app, AgentSessionID: sid})
	if err != nil {
		t.Fatal(err)
	}
	to := w.other()
	man, m, _ := move(t, w, to, chat, nil)
	if man.Conversation != bundle.KindExact || man.Source != bundle.SourceCodexSession {
		t.Errorf("manifest %s/%s", man.Conversation, man.Source)
	}
	env := []string{"HOME=" + to.user}
	if !harness.CodexHasSession(env, sid) || m.AgentSessionID != sid {
		t.Fatalf("codex resume would not find session %s in %s", sid, to.user)
	}
	if got, _ := os.ReadFile(harness.CodexSessionLog(env, sid)); string(got) != rollout {
		t.Errorf("rollout changed on the way: %q", got)
	}
}

// TestRoundTripACPTranscript: an ACP chat with a session is exported exact
// with its transcript and a capsule; the import keeps the session id (the
// first start loads it) and keeps the capsule should the load fail. A turn
// in progress is noted. Without a session it comes over as a capsule.
func TestRoundTripACPTranscript(t *testing.T) {
	w := newWorld(t)
	chat, err := w.store.Create(sessions.NewChat{Name: "acp", Harness: "claude-acp", Cwd: w.app, AgentSessionID: "sess-1"})
	if err != nil {
		t.Fatal(err)
	}
	live := &Live{TurnRunning: true, Transcript: []proto.Entry{
		{Kind: proto.EntryUser, Text: "add a test for the lexer"},
		{Kind: proto.EntryAgent, Text: "Adding it now"},
	}}
	to := w.other()
	man, m, how := move(t, w, to, chat, live)
	if man.Conversation != bundle.KindExact || man.Source != bundle.SourceACPTranscript || !slices.Contains(man.Notes, NoteTurnCut) {
		t.Errorf("manifest %+v", man)
	}
	if !slices.Equal(man.Members, []string{bundle.ChatName, bundle.TranscriptMember, bundle.CapsuleMember}) {
		t.Errorf("members %q", man.Members)
	}
	text, sent, _ := to.store.Capsule(m.ID)
	if m.AgentSessionID != "sess-1" || !m.Capsule || sent || !strings.Contains(text, "add a test for the lexer") {
		t.Errorf("imported ACP chat %+v, capsule %q", m, text)
	}
	if !strings.Contains(how, "session/load") {
		t.Errorf("how = %q", how)
	}

	fresh, err := w.store.Create(sessions.NewChat{Name: "acp2", Harness: "claude-acp", Cwd: w.app})
	if err != nil {
		t.Fatal(err)
	}
	man, m, _ = move(t, w, to, fresh, &Live{Transcript: live.Transcript})
	text, _, _ = to.store.Capsule(m.ID)
	if man.Conversation != bundle.KindCapsule || m.AgentSessionID != "" || !strings.Contains(text, "add a test for the lexer") {
		t.Errorf("capsule import: %s, chat %+v, capsule %q", man.Conversation, m, text)
	}
}

// TestRoundTripScrollback: a pty chat that keeps no session log of its
// own comes over as a capsule of its scrollback; with no server holding
// it, as nothing.
func TestRoundTripScrollback(t *testing.T) {
	w := newWorld(t)
	chat, err := w.store.Create(sessions.NewChat{Name: "sh", Harness: "shell"})
	if err != nil {
		t.Fatal(err)
	}
	to := w.other()
	man, m, _ := move(t, w, to, chat, &Live{Lines: []string{"$ make test", "ok  parser 0.2s"}})
	text, _, _ := to.store.Capsule(m.ID)
	if man.Conversation != bundle.KindCapsule || man.Source != bundle.SourceScrollback || !strings.Contains(text, "make test") {
		t.Errorf("scrollback import: %+v, capsule %q", man, text)
	}
	if !to.store.NoProject(m) {
		t.Errorf("a chat with no project got cwd %s", m.Cwd)
	}
	man, m, how := move(t, w, to, chat, nil)
	if man.Conversation != bundle.KindNone || m.Capsule || !strings.Contains(how, "no conversation") {
		t.Errorf("no server: %+v, %q", man, how)
	}
}

// TestExportFileIsAtomic: ExportFile leaves the bundle whole at its path
// and nothing beside it; a path in a folder that does not exist fails and
// leaves nothing.
func TestExportFileIsAtomic(t *testing.T) {
	w := newWorld(t)
	chat, err := w.store.Create(sessions.NewChat{Name: "a b/c", Harness: "shell", Cwd: w.app})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(w.outside, DefaultFileName(chat))
	if !strings.HasPrefix(filepath.Base(out), "a-b-c-"+chat.ID) {
		t.Errorf("default name %s", filepath.Base(out))
	}
	rep, err := ExportFile(out, chat, w.exportOptions())
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(out)
	if err != nil || fi.Size() != rep.Bytes || rep.Path != out {
		t.Errorf("bundle %v, report %+v", err, rep)
	}
	if des, _ := os.ReadDir(w.outside); len(des) != 1 {
		t.Errorf("beside the bundle: %d entries", len(des))
	}
	if _, err := ExportFile(filepath.Join(w.outside, "no", "x.tgz"), chat, w.exportOptions()); err == nil {
		t.Error("export into a missing folder succeeded")
	}
}

// TestRoundTripACPSessionLog: an ACP chat whose agent keeps Claude Code's
// session log (claude-agent-acp) carries that log, so the other side's
// agent can load the session: it is put under the new HOME's project
// folder, the session id kept, and a capsule made from it kept should the
// load fail.
func TestRoundTripACPSessionLog(t *testing.T) {
	w := newWorld(t)
	sid := "7a1b2c3d-1111-2222-3333-444455556666"
	log := `{"type":"user","message":{"role":"user","content":"port the tests"}}` + "\n"
	w.file("user/.claude/projects/"+ClaudeProjectName(w.app)+"/"+sid+".jsonl", log)
	chat, err := w.store.Create(sessions.NewChat{Name: "acp log", Harness: "claude-acp", Cwd: w.app, AgentSessionID: sid})
	if err != nil {
		t.Fatal(err)
	}
	to := w.other()
	man, m, how := move(t, w, to, chat, nil)
	if man.Conversation != bundle.KindExact || man.Source != bundle.SourceClaudeSession || !slices.Contains(man.Members, bundle.SessionMember) {
		t.Errorf("manifest %+v", man)
	}
	want := filepath.Join(to.user, ".claude", "projects", ClaudeProjectName(w.app), sid+".jsonl")
	if got, err := os.ReadFile(want); err != nil || string(got) != log {
		t.Errorf("session log at %s: %q, %v", want, got, err)
	}
	text, _, _ := to.store.Capsule(m.ID)
	if m.AgentSessionID != sid || !strings.Contains(text, "port the tests") || !strings.Contains(how, "session/load") || !strings.Contains(how, want) {
		t.Errorf("chat %+v, capsule %q, how %q", m, text, how)
	}
}

// TestRoundTripClaudeNoProject: a Claude Code chat with no project gets a
// fresh home folder on the other side, and its session log goes to the
// project folder of that new folder, where Claude Code run there looks.
func TestRoundTripClaudeNoProject(t *testing.T) {
	w := newWorld(t)
	chat, err := w.store.Create(sessions.NewChat{Name: "scratch", Harness: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	sid := "5e6f7a8b-1111-2222-3333-444455556666"
	if chat, err = w.store.Update(chat.ID, func(m *sessions.Meta) error { m.AgentSessionID = sid; return nil }); err != nil {
		t.Fatal(err)
	}
	w.file("user/.claude/projects/"+ClaudeProjectName(chat.Cwd)+"/"+sid+".jsonl", `{"type":"summary"}`+"\n")
	to := w.other()
	_, m, how := move(t, w, to, chat, nil)
	want := filepath.Join(to.user, ".claude", "projects", ClaudeProjectName(to.store.HomeDir(m.ID)), sid+".jsonl")
	if _, err := os.Stat(want); err != nil || !to.store.NoProject(m) || m.AgentSessionID != sid || !strings.Contains(how, want) {
		t.Errorf("log at %s: %v; chat %+v; how %q", want, err, m, how)
	}
}
