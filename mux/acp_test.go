package mux

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/acp/agent"
	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/acpschema"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// acpRig is an agent home whose "fake" harness is the fake ACP agent, with
// every message the mux sends recorded and validated against the ACP schema
// when the test ends.
type acpRig struct {
	t      *testing.T
	store  *sessions.Store
	opt    Options
	mux    *Mux
	logBuf *syncBuffer

	mu   sync.Mutex
	sent [][]byte
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newACPRig(t *testing.T, env map[string]string) *acpRig {
	t.Helper()
	store, err := sessions.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	full := map[string]string{"ACPMUX_FAKE_STATE": t.TempDir()}
	for k, v := range env {
		full[k] = v
	}
	cfg := config.Defaults()
	cfg.Harness = map[string]config.HarnessConfig{"fake": {Command: fakeACP, Transport: "acp", Env: full}}
	return newACPRigWith(t, store, cfg)
}

func newACPRigWith(t *testing.T, store *sessions.Store, cfg *config.Config) *acpRig {
	t.Helper()
	table, err := harness.NewTable(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := &acpRig{t: t, store: store, logBuf: &syncBuffer{}}
	r.opt = Options{Store: store, Table: table, Config: cfg, Grace: 2 * time.Second, BackoffBase: time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(r.logBuf, nil)),
		Wire: func(_ string, msg []byte) {
			r.mu.Lock()
			r.sent = append(r.sent, msg)
			r.mu.Unlock()
		}}
	r.mux = New(r.opt)
	t.Cleanup(func() {
		r.mux.Close()
		r.validateWire()
	})
	return r
}

// reopen is acpmux-tui restarting: a new mux on the same home.
func (r *acpRig) reopen() {
	r.mux.Close()
	r.mux = New(r.opt)
	r.t.Cleanup(r.mux.Close)
}

// validateWire checks every message the mux sent against the official ACP
// JSON Schema.
func (r *acpRig) validateWire() {
	v := acpschema.ForTest(r.t)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, msg := range r.sent {
		if err := v.ValidateClientMessage(msg); err != nil {
			r.t.Errorf("sent a message the ACP schema refuses: %v\n%s", err, msg)
		}
	}
}

// requests returns the params of every request of that method the mux sent.
func (r *acpRig) requests(method string) []map[string]json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []map[string]json.RawMessage
	for _, raw := range r.sent {
		var msg struct {
			Method string                     `json:"method"`
			Params map[string]json.RawMessage `json:"params"`
		}
		if json.Unmarshal(raw, &msg) == nil && msg.Method == method {
			out = append(out, msg.Params)
		}
	}
	return out
}

func (r *acpRig) folders(n int) []string {
	dirs := make([]string, n)
	for i := range dirs {
		d, err := filepath.EvalSymlinks(r.t.TempDir())
		if err != nil {
			r.t.Fatal(err)
		}
		dirs[i] = d
	}
	return dirs
}

func (r *acpRig) create(harnessName string, dirs []string) *sessions.Meta {
	m, err := r.store.Create(sessions.NewChat{Harness: harnessName, AdditionalDirectories: dirs})
	if err != nil {
		r.t.Fatal(err)
	}
	return m
}

func (r *acpRig) ready(id string) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
	defer cancel()
	if err := r.mux.WaitReady(ctx, id); err != nil {
		r.t.Fatalf("waited up to %s for chat %s's session setup (initialize, then session/new, load or fork): %v", hangDeadline, id, err)
	}
}

func (r *acpRig) prompt(id, text string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
	defer cancel()
	return r.mux.Prompt(ctx, id, text)
}

// lastAgentText is the agent's last message in the transcript.
func (r *acpRig) lastAgentText(id string) string {
	entries := r.mux.Transcript(id)
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Kind == proto.EntryAgent {
			return entries[i].Text
		}
	}
	return ""
}

func decodeStrings(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var out []string
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return out
}

func TestACPFoldersGoOnTheWireWhenAdvertised(t *testing.T) {
	r := newACPRig(t, map[string]string{"ACPMUX_FAKE_ADVERTISE": "1"})
	dirs := r.folders(2)
	withDirs := r.create("fake", dirs)
	bare := r.create("fake", nil)
	for _, id := range []string{withDirs.ID, bare.ID} {
		if err := r.mux.Start(id, 80, 24); err != nil {
			t.Fatal(err)
		}
		r.ready(id)
	}
	news := r.requests("session/new")
	if len(news) != 2 {
		t.Fatalf("%d session/new, want 2", len(news))
	}
	if got := decodeStrings(t, news[0]["additionalDirectories"]); !slices.Equal(got, dirs) {
		t.Fatalf("session/new additionalDirectories %q, want %q", got, dirs)
	}
	if raw, ok := news[1]["additionalDirectories"]; ok {
		t.Fatalf("an empty list went on the wire: %s", raw)
	}
	if st := r.mux.State(withDirs.ID); st.FoldersVia != harness.ViaACP || st.Status != proto.StatusWaiting {
		t.Fatalf("state %+v", st)
	}
	stored, _ := r.store.Load(withDirs.ID)
	if stored.AgentSessionID == "" || stored.AgentSessionID != r.mux.State(withDirs.ID).SessionID {
		t.Fatalf("session id not stored: %q", stored.AgentSessionID)
	}

	// acpmux-tui restarts: both chats load their sessions, with the folders.
	r.reopen()
	for _, id := range []string{withDirs.ID, bare.ID} {
		if err := r.mux.Start(id, 80, 24); err != nil {
			t.Fatal(err)
		}
		r.ready(id)
	}
	loads := r.requests("session/load")
	if len(loads) != 2 {
		t.Fatalf("%d session/load, want 2", len(loads))
	}
	var sid string
	_ = json.Unmarshal(loads[0]["sessionId"], &sid)
	if sid != stored.AgentSessionID {
		t.Fatalf("loaded session %q, want %q", sid, stored.AgentSessionID)
	}
	if got := decodeStrings(t, loads[0]["additionalDirectories"]); !slices.Equal(got, dirs) {
		t.Fatalf("session/load additionalDirectories %q, want %q", got, dirs)
	}
	if raw, ok := loads[1]["additionalDirectories"]; ok {
		t.Fatalf("an empty list went on the wire in session/load: %s", raw)
	}
}

func TestACPNoteHeadsTheFirstPromptWhenNotAdvertised(t *testing.T) {
	r := newACPRig(t, nil)
	dirs := r.folders(2)
	m := r.create("fake", dirs)
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.ready(m.ID)
	if raw, ok := r.requests("session/new")[0]["additionalDirectories"]; ok {
		t.Fatalf("the field went to an agent that does not advertise it: %s", raw)
	}
	if st := r.mux.State(m.ID); st.FoldersVia != harness.ViaNote {
		t.Fatalf("foldersVia %q, want note", st.FoldersVia)
	}
	for _, text := range []string{"first question", "second question"} {
		if reason, err := r.prompt(m.ID, text); err != nil || reason != "end_turn" {
			t.Fatalf("prompt %q: %q %v", text, reason, err)
		}
	}
	prompts := r.requests("session/prompt")
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	var first, second []block
	_ = json.Unmarshal(prompts[0]["prompt"], &first)
	_ = json.Unmarshal(prompts[1]["prompt"], &second)
	if len(first) != 2 || first[0].Text != agent.FolderNote(dirs) || first[1].Text != "first question" {
		t.Fatalf("first prompt %+v: want the note naming every folder, then the text", first)
	}
	for _, d := range dirs {
		if !strings.Contains(first[0].Text, d) {
			t.Fatalf("note %q does not name %s", first[0].Text, d)
		}
	}
	if !strings.Contains(first[0].Text, "read and edit") {
		t.Fatalf("note %q does not say the agent may read and edit them", first[0].Text)
	}
	if len(second) != 1 || second[0].Text != "second question" {
		t.Fatalf("second prompt %+v: the note goes only with the first", second)
	}
	if got := r.lastAgentText(m.ID); got != "echo: second question" {
		t.Fatalf("transcript ends with %q", got)
	}

	// A later process loads the session: the note is not sent again.
	r.reopen()
	if _, err := r.prompt(m.ID, "third"); err != nil {
		t.Fatal(err)
	}
	prompts = r.requests("session/prompt")
	var third []block
	_ = json.Unmarshal(prompts[2]["prompt"], &third)
	if len(third) != 1 {
		t.Fatalf("after a load the note was sent again: %+v", third)
	}
}

func TestACPFileRequestsStayInsideTheRoots(t *testing.T) {
	r := newACPRig(t, nil)
	base, _ := filepath.EvalSymlinks(t.TempDir())
	mk := func(rel string) string {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ab, abc, outside := mk("a/b"), mk("a/bc"), mk("outside")
	write := func(p, content string) {
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(ab, "in.txt"), "inside")
	write(filepath.Join(abc, "sibling.txt"), "sibling")
	write(filepath.Join(outside, "secret.txt"), "secret")
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(ab, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ab, "door")); err != nil {
		t.Fatal(err)
	}
	m := r.create("fake", []string{ab})

	cases := []struct{ prompt, want string }{
		{"read " + filepath.Join(ab, "in.txt"), "read: inside"},
		{"read " + filepath.Join(abc, "sibling.txt"), "read error"},
		{"read " + filepath.Join(outside, "secret.txt"), "read error"},
		{"read " + filepath.Join(ab, "link.txt"), "read error"},
		{"read " + filepath.Join(ab, "door", "secret.txt"), "read error"},
		{"read " + filepath.Join(ab, "..", "outside", "secret.txt"), "read error"},
		{"read in.txt", "read error"},
		{"write " + filepath.Join(ab, "new.txt") + " hello", "wrote"},
		{"write " + filepath.Join(abc, "new.txt") + " hello", "write error"},
		{"write " + filepath.Join(ab, "door", "planted.txt") + " x", "write error"},
		{"write " + filepath.Join(ab, "link.txt") + " overwritten", "write error"},
	}
	for _, c := range cases {
		if _, err := r.prompt(m.ID, c.prompt); err != nil {
			t.Fatalf("%s: %v", c.prompt, err)
		}
		if got := r.lastAgentText(m.ID); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: agent got %q, want %q…", c.prompt, got, c.want)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(ab, "new.txt")); string(data) != "hello" {
		t.Fatalf("write inside: file holds %q", data)
	}
	for _, p := range []string{filepath.Join(abc, "new.txt"), filepath.Join(outside, "planted.txt")} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a refused write created %s", p)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(data) != "secret" {
		t.Fatalf("a refused write changed the file outside: %q", data)
	}
}

func TestACPPermissionCardAndCancel(t *testing.T) {
	r := newACPRig(t, nil)
	m := r.create("fake", nil)
	done := make(chan error, 1)
	go func() { _, err := r.prompt(m.ID, "permission"); done <- err }()
	waitFor(t, "the permission card", func() bool { return r.mux.State(m.ID).Permission != nil })
	card := r.mux.State(m.ID).Permission
	if len(card.Options) != 2 || card.Options[0].ID != "allow_once" {
		t.Fatalf("card %+v", card)
	}
	if st := r.mux.State(m.ID); st.Status != proto.StatusAsking || !st.Unread {
		t.Fatalf("a permission request left the chat %s (unread %v), want asking and unread", st.Status, st.Unread)
	}
	if err := r.mux.AnswerPermission(m.ID, "allow_once"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if st := r.mux.State(m.ID); st.Status != proto.StatusWaiting || st.StatusFrom != proto.SourceACP {
		t.Fatalf("after the turn: %s from %q, want waiting from acp", st.Status, st.StatusFrom)
	}
	if got := r.lastAgentText(m.ID); got != "permission: allow_once" {
		t.Fatalf("agent got %q", got)
	}

	// esc: a slow turn is cancelled with session/cancel.
	reasons := make(chan string, 1)
	go func() { reason, _ := r.prompt(m.ID, "slow"); reasons <- reason }()
	waitFor(t, "the slow turn to start", func() bool { return r.lastAgentText(m.ID) != "permission: allow_once" })
	if err := r.mux.Cancel(m.ID); err != nil {
		t.Fatal(err)
	}
	if reason := <-reasons; reason != "cancelled" {
		t.Fatalf("stop reason %q, want cancelled", reason)
	}
	if len(r.requests("session/cancel")) != 1 {
		t.Fatal("no session/cancel was sent")
	}
}

func TestACPRefuseAllPolicy(t *testing.T) {
	r := newACPRig(t, nil)
	m := r.create("fake", nil)
	var asked []string
	if err := r.mux.SetPermissionPolicy(m.ID, func(p proto.Permission) string { asked = append(asked, p.Title); return RefuseAll(p) }); err != nil {
		t.Fatal(err)
	}
	if _, err := r.prompt(m.ID, "permission"); err != nil {
		t.Fatal(err)
	}
	if got := r.lastAgentText(m.ID); got != "permission: reject_once" || len(asked) != 1 {
		t.Fatalf("agent got %q after %d questions", got, len(asked))
	}
}

func TestACPHarnessDyingMidTurnLoadsAgain(t *testing.T) {
	r := newACPRig(t, map[string]string{"ACPMUX_FAKE_ADVERTISE": "1"})
	dirs := r.folders(1)
	m := r.create("fake", dirs)
	if _, err := r.prompt(m.ID, "crash"); err == nil {
		t.Fatal("a turn whose agent died reported no error")
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("state %+v\nlog:\n%s", r.mux.State(m.ID), r.logBuf.String())
		}
	})
	waitFor(t, "the agent to be started again", func() bool { return len(r.requests("session/load")) == 1 })
	load := r.requests("session/load")[0]
	if got := decodeStrings(t, load["additionalDirectories"]); !slices.Equal(got, dirs) {
		t.Fatalf("reload after a crash sent folders %q", got)
	}
	found := false
	for _, e := range r.mux.Transcript(m.ID) {
		if e.Kind == proto.EntryError && strings.Contains(e.Text, "exit status 3") {
			found = true
		}
	}
	if !found {
		// The load replays the conversation; the crash note is in the log.
		if !strings.Contains(r.logBuf.String(), "exit status 3") {
			t.Fatal("the crash was not reported")
		}
	}
	r.ready(m.ID)
	if _, err := r.prompt(m.ID, "again"); err != nil {
		t.Fatal(err)
	}
}

func TestACPMalformedMessagesFailTheChat(t *testing.T) {
	for _, cmd := range []string{"garbage", "huge"} {
		t.Run(cmd, func(t *testing.T) {
			r := newACPRig(t, nil)
			m := r.create("fake", nil)
			_, _ = r.prompt(m.ID, cmd)
			waitFor(t, "the chat to fail", func() bool { return r.mux.State(m.ID).Status == proto.StatusFailed })
			st := r.mux.State(m.ID)
			if !strings.Contains(st.Reason, "bad message from the agent") {
				t.Fatalf("reason %q", st.Reason)
			}
			if !strings.Contains(r.logBuf.String(), "bad message from agent") {
				t.Fatal("the bad message was not logged")
			}
		})
	}
}

func TestACPAuthRequiredIsExplained(t *testing.T) {
	r := newACPRig(t, map[string]string{"ACPMUX_FAKE_AUTH": "1"})
	m := r.create("fake", nil)
	ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
	defer cancel()
	err := r.mux.WaitReady(ctx, m.ID)
	if err == nil || !strings.Contains(err.Error(), "log in") || !strings.Contains(err.Error(), "fake login") {
		t.Fatalf("auth_required shown as %v", err)
	}
	waitFor(t, "failed", func() bool { return r.mux.State(m.ID).Status == proto.StatusFailed })
	if st := r.mux.State(m.ID); !strings.Contains(st.Reason, "fake login") {
		t.Fatalf("state reason %q", st.Reason)
	}
}

func TestACPStderrGoesToTheLog(t *testing.T) {
	r := newACPRig(t, nil)
	m := r.create("fake", nil)
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.ready(m.ID)
	want := `msg="harness stderr" chat=` + m.ID + ` line="acpfake: starting pid`
	waitFor(t, "stderr in the log, with its chat and line", func() bool { return strings.Contains(r.logBuf.String(), want) })
	for _, line := range r.mux.PlainLines(m.ID) {
		if strings.Contains(line, "acpfake") {
			t.Fatalf("harness stderr reached the screen: %q", line)
		}
	}
}

func TestACPForkCarriesFolders(t *testing.T) {
	r := newACPRig(t, map[string]string{"ACPMUX_FAKE_ADVERTISE": "1", "ACPMUX_FAKE_FORK": "1"})
	dirs := r.folders(2)
	parent := r.create("fake", dirs)
	if _, err := r.prompt(parent.ID, "remember this"); err != nil {
		t.Fatal(err)
	}
	parentMeta, _ := r.store.Load(parent.ID)
	child, err := r.store.Derive(parent.ID, sessions.Derivation{Origin: sessions.OriginFork})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.mux.Start(child.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.ready(child.ID)
	forks := r.requests("session/fork")
	if len(forks) != 1 {
		t.Fatalf("%d session/fork requests, want 1", len(forks))
	}
	var sid string
	_ = json.Unmarshal(forks[0]["sessionId"], &sid)
	if sid != parentMeta.AgentSessionID {
		t.Fatalf("forked session %q, want the parent's %q", sid, parentMeta.AgentSessionID)
	}
	if got := decodeStrings(t, forks[0]["additionalDirectories"]); !slices.Equal(got, dirs) {
		t.Fatalf("fork additionalDirectories %q", got)
	}
	childMeta, _ := r.store.Load(child.ID)
	if childMeta.AgentSessionID == "" || childMeta.AgentSessionID == parentMeta.AgentSessionID {
		t.Fatalf("fork's session id %q", childMeta.AgentSessionID)
	}
}
