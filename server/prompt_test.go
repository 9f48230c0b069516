package server

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/testharness/startrecord"
	"github.com/acpmux/acpmux-tui/mux"
	"github.com/acpmux/acpmux-tui/proto"
)

var (
	acpFakeOnce sync.Once
	acpFake     string
	acpFakeErr  error
)

// buildACPFake builds the fake ACP agent once, beside the pty fake (in the
// folder TestMain removes).
func buildACPFake(t *testing.T) string {
	t.Helper()
	acpFakeOnce.Do(func() {
		acpFake = filepath.Join(filepath.Dir(fakeHarness), "acpfake")
		out, err := exec.Command("go", "build", "-o", acpFake, "../internal/testharness/acpfake").CombinedOutput()
		if err != nil {
			acpFakeErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if acpFakeErr != nil {
		t.Fatalf("build acpfake: %v", acpFakeErr)
	}
	return acpFake
}

// raceEnabled reports whether the test binary has the race detector, which
// makes each update of a burst about ten times dearer.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// promptRig is a server whose default harness, "fake", is the fake ACP
// agent, with one chat made on it.
type promptRig struct {
	*rig
	chat    string
	starts  string // the agent's start records
	muxOpts mux.Options
}

func newPromptRig(t *testing.T, server ...func(*Server)) *promptRig {
	t.Helper()
	fake := buildACPFake(t)
	p := &promptRig{starts: filepath.Join(t.TempDir(), "acp-starts.jsonl")}
	state := t.TempDir()
	p.rig = newRig(t, rigOpt{server: func(s *Server) {
		for _, f := range server {
			f(s)
		}
	}, opt: func(o *Options) {
		cfg := config.Defaults()
		cfg.DefaultHarness = "fake"
		cfg.Harness = map[string]config.HarnessConfig{
			"fake": {Command: fake, Transport: harness.TransportACP,
				Env: map[string]string{"ACPMUX_FAKE_STATE": state, "ACPMUX_FAKE_RECORD": p.starts},
				// Its state and its records are the harness's own: a
				// sandboxed chat (a web caller's) may write them.
				SandboxState: []string{state + "/", filepath.Dir(p.starts) + "/"}},
			"shell": {Command: fakeHarness, Env: map[string]string{"ACPMUX_FAKE_MODE": "echo"}},
		}
		table, err := harness.NewTable(cfg)
		if err != nil {
			t.Fatal(err)
		}
		o.Config, o.Table = cfg, table
		o.Mux = mux.New(mux.Options{Store: o.Store, Table: table, Config: cfg, Grace: 2 * time.Second, BackoffBase: time.Millisecond, Wrapper: os.Args[0]})
		// A test's client may read nothing for a while on purpose: a write
		// timeout would drop it for that.
		o.WriteTimeout = hangDeadline
	}})
	var c proto.ChatJSON
	p.dial().ok(proto.MethodNew, proto.NewParams{Harness: "fake"}, &c)
	if c.Harness != "fake" {
		t.Fatalf("new chat runs %q, want the fake ACP agent", c.Harness)
	}
	p.chat = c.ID
	return p
}

// stream is a raw connection that keeps what it is sent of one chat while
// it waits for its answers.
type stream struct {
	t       *testing.T
	w       *wire
	chat    string
	entries []proto.ObservedEntry
	batches int // notifications read
}

// line is anything the server writes: an answer or a notification.
type line struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *wireError      `json:"error"`
}

func (p *promptRig) stream() *stream {
	return &stream{t: p.t, w: p.dial(), chat: p.chat}
}

// request sends a call and returns its id, without waiting.
func (s *stream) request(method string, params any) string {
	s.t.Helper()
	s.w.next++
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.w.next, "method": method, "params": params})
	if err != nil {
		s.t.Fatal(err)
	}
	s.w.send(string(b))
	return fmt.Sprint(s.w.next)
}

// next reads one line, keeping the chat's entries it carries.
func (s *stream) next() line {
	s.t.Helper()
	s.w.nc.SetReadDeadline(time.Now().Add(hangDeadline))
	b, err := s.w.r.ReadBytes('\n')
	if err != nil {
		s.t.Fatalf("read: %v (after %d entries)", err, len(s.entries))
	}
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		s.t.Fatalf("not JSON: %v\n%s", err, b)
	}
	if l.Method == proto.MethodEntries {
		var p proto.EntriesParams
		if err := json.Unmarshal(l.Params, &p); err != nil {
			s.t.Fatalf("entries: %v\n%s", err, l.Params)
		}
		if p.ID != s.chat {
			s.t.Fatalf("entries of chat %q, observing %q", p.ID, s.chat)
		}
		s.entries = append(s.entries, p.Entries...)
		s.batches++
	}
	return l
}

// answer reads until the answer to the call id.
func (s *stream) answer(id string) line {
	s.t.Helper()
	for {
		if l := s.next(); l.Method == "" && string(l.ID) == id {
			return l
		}
	}
}

// call sends a call, reads until its answer and fails the test on an
// error.
func (s *stream) call(method string, params, result any) {
	s.t.Helper()
	l := s.answer(s.request(method, params))
	if l.Error != nil {
		s.t.Fatalf("%s: error %d %s %s", method, l.Error.Code, l.Error.Message, l.Error.Data)
	}
	if result != nil {
		if err := json.Unmarshal(l.Result, result); err != nil {
			s.t.Fatalf("%s: %v\n%s", method, err, l.Result)
		}
	}
}

// until reads until an entry that satisfies ok has arrived.
func (s *stream) until(what string, ok func(proto.ObservedEntry) bool) {
	s.t.Helper()
	for i := 0; ; i++ {
		for ; i < len(s.entries); i++ {
			if ok(s.entries[i]) {
				return
			}
		}
		s.next()
		i--
	}
}

// fails sends a call that must fail with code and returns its error.
func (s *stream) fails(code int, method string, params any) *wireError {
	s.t.Helper()
	l := s.answer(s.request(method, params))
	if l.Error == nil || l.Error.Code != code {
		s.t.Fatalf("%s: answered %s %+v, want error %d", method, l.Result, l.Error, code)
	}
	return l.Error
}

func (s *stream) observe() {
	s.t.Helper()
	s.call(proto.MethodObserve, proto.ChatParams{ID: s.chat}, nil)
}

func (s *stream) prompt(text string, refuse bool) string {
	s.t.Helper()
	var res proto.PromptResult
	s.call(proto.MethodPrompt, proto.PromptParams{ID: s.chat, Text: text, RefusePermissions: refuse}, &res)
	return res.StopReason
}

// turns are the entries of each turn, from its start to its end mark
// (stderr lines left out), in order.
func (s *stream) turns() [][]proto.ObservedEntry {
	var out [][]proto.ObservedEntry
	var cur []proto.ObservedEntry
	in := false
	for _, e := range s.entries {
		switch {
		case e.Kind == proto.EntryTurnStarted:
			in, cur = true, []proto.ObservedEntry{e}
		case e.Kind == proto.EntryTurnEnded && in:
			out = append(out, append(cur, e))
			in = false
		case in && e.Kind != proto.EntryStderr:
			cur = append(cur, e)
		}
	}
	return out
}

// agentText joins the agent's text of a turn.
func agentText(turn []proto.ObservedEntry) string {
	var b strings.Builder
	for _, e := range turn {
		if e.Kind == proto.EntryAgent {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

func kinds(entries []proto.ObservedEntry) string {
	var k []string
	for _, e := range entries {
		k = append(k, e.Kind.String())
	}
	return strings.Join(k, " ")
}

// TestPromptReplyStreamsToTheObserverInOrder: the turn's updates reach the
// connection that runs it, between the turn's marks and in the agent's
// order, all before the prompt's answer; a loaded session's replay and the
// agent's stderr come too, outside the turn.
func TestPromptReplyStreamsToTheObserverInOrder(t *testing.T) {
	p := newPromptRig(t)
	s := p.stream()
	s.observe()
	s.call(proto.MethodReady, proto.ChatParams{ID: p.chat}, nil)
	if reason := s.prompt("think", false); reason != "end_turn" {
		t.Fatalf("stop reason %q", reason)
	}
	if reason := s.prompt("tool", false); reason != "end_turn" {
		t.Fatalf("stop reason %q", reason)
	}
	turns := s.turns()
	if len(turns) != 2 {
		t.Fatalf("%d turns streamed before the answers, want 2: %s", len(turns), kinds(s.entries))
	}
	if got, want := kinds(turns[0]), "turnStarted thought agent turnEnded"; got != want {
		t.Fatalf("first turn streamed %q, want %q", got, want)
	}
	start, end := turns[0][0], turns[0][3]
	if !start.Own || start.Text != "think" || end.StopReason != "end_turn" || end.Error != "" {
		t.Fatalf("turn marks %+v %+v", start, end)
	}
	if turns[0][1].Text != "pondering" || !strings.HasPrefix(agentText(turns[0]), "echo: ") || !strings.HasSuffix(agentText(turns[0]), "think") {
		t.Fatalf("first turn: thought %q, reply %q", turns[0][1].Text, agentText(turns[0]))
	}
	var statuses []string
	for _, e := range turns[1] {
		if e.Kind == proto.EntryTool {
			statuses = append(statuses, e.ToolStatus)
		}
	}
	if got := strings.Join(statuses, " "); got != "pending in_progress completed" {
		t.Fatalf("tool updates %q, want them in the agent's order", got)
	}
	var stderr []string
	for _, e := range s.entries {
		if e.Kind == proto.EntryStderr {
			stderr = append(stderr, e.Text)
		}
	}
	if len(stderr) == 0 || !strings.Contains(strings.Join(stderr, "\n"), "acpfake: starting pid") {
		t.Fatalf("the agent's stderr did not stream: %q", stderr)
	}

	// Stopped and started again, the agent loads the session and replays
	// it: the replay arrives before ready's answer, outside any turn.
	again := p.stream()
	again.call(proto.MethodStop, proto.ChatParams{ID: p.chat}, nil)
	again.observe()
	again.call(proto.MethodReady, proto.ChatParams{ID: p.chat}, nil)
	var replayed strings.Builder
	for _, e := range again.entries {
		if e.Kind == proto.EntryTurnStarted {
			t.Fatalf("a turn mark in the replay: %s", kinds(again.entries))
		}
		if e.Kind == proto.EntryAgent {
			replayed.WriteString(e.Text)
		}
	}
	if !strings.Contains(replayed.String(), "echo: ") {
		t.Fatalf("the replay did not reach the observer before ready answered: %s", kinds(again.entries))
	}
}

// TestPromptBurstArrivesCompleteThroughTheSocket: 100,000 updates sent
// back to back reach the observer complete and in order, in far fewer
// notifications than updates, and the client is not dropped.
func TestPromptBurstArrivesCompleteThroughTheSocket(t *testing.T) {
	n := 100_000
	if raceEnabled() {
		n = 25_000 // the race detector makes each update ~10x dearer
	}
	p := newPromptRig(t)
	s := p.stream()
	s.observe()
	// This one reads nothing until the turn has ended.
	stalled := p.stream()
	stalled.observe()
	if reason := s.prompt(fmt.Sprintf("burst %d", n), true); reason != "end_turn" {
		t.Fatalf("stop reason %q", reason)
	}
	stalled.until("the burst's end", func(e proto.ObservedEntry) bool { return e.Kind == proto.EntryTurnEnded })
	var want strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&want, "u%06d ", i)
	}
	for name, o := range map[string]*stream{"the reader": s, "the stalled reader": stalled} {
		turns := o.turns()
		if len(turns) != 1 {
			t.Fatalf("%s: %d turns, want 1", name, len(turns))
		}
		for _, e := range turns[0] {
			if e.Kind == proto.EntryMissed {
				t.Fatalf("%s missed %d updates", name, e.Count)
			}
		}
		if got := agentText(turns[0]); got != want.String() {
			i := 0
			for i < len(got) && i < want.Len() && got[i] == want.String()[i] {
				i++
			}
			t.Fatalf("%s: %d bytes of reply, want %d; first difference at byte %d", name, len(got), want.Len(), i)
		}
		t.Logf("%s: %d updates in %d notifications", name, n, o.batches)
	}
	// Still connected, and the agent still takes prompts.
	if reason := s.prompt("still there?", true); reason != "end_turn" || agentText(s.turns()[1]) != "echo: still there?" {
		t.Fatalf("after the burst: %q %q", reason, agentText(s.turns()[1]))
	}
}

// TestPromptRefusesPermissionsOrWaitsForAnAnswer: a turn that refuses
// permissions refuses each request and tells the observer; a turn that
// does not waits until a client answers with one of the request's options.
func TestPromptRefusesPermissionsOrWaitsForAnAnswer(t *testing.T) {
	p := newPromptRig(t)
	s := p.stream()
	s.observe()
	s.prompt("perms 3", true)
	turn := s.turns()[0]
	var refused []string
	for _, e := range turn {
		if e.Kind == proto.EntryRefused {
			refused = append(refused, e.Title)
		}
	}
	if len(refused) != 3 || agentText(turn) != "perms: Tool 1=reject_once; Tool 2=reject_once; Tool 3=reject_once" {
		t.Fatalf("refused %q, reply %q", refused, agentText(turn))
	}

	// Without refusal the request waits for an answer, from any client.
	asker := p.stream()
	id := asker.request(proto.MethodPrompt, proto.PromptParams{ID: p.chat, Text: "permission"})
	waitFor(t, "the permission request to wait for an answer", func() bool {
		return p.srv.opt.Mux.State(p.chat).Permission != nil
	})
	var list proto.ListResult
	s.call(proto.MethodList, nil, &list)
	if len(list.Chats) != 1 || list.Chats[0].Status != "asking" || list.Chats[0].StatusFrom != "acp" {
		t.Fatalf("list while the agent asks: %+v", list.Chats)
	}
	s.fails(proto.CodeInvalidParams, proto.MethodAnswerPermission, proto.AnswerPermissionParams{ID: p.chat, OptionID: "not_offered"})
	s.call(proto.MethodAnswerPermission, proto.AnswerPermissionParams{ID: p.chat, OptionID: "allow_once"}, nil)
	if l := asker.answer(id); l.Error != nil || string(l.Result) != `{"stopReason":"end_turn"}` {
		t.Fatalf("the answered turn: %s %+v", l.Result, l.Error)
	}
	s.until("the answered turn's end", func(e proto.ObservedEntry) bool { return e.Kind == proto.EntryTurnEnded && len(s.turns()) == 2 })
	second := s.turns()[1]
	if agentText(second) != "permission: allow_once" || second[0].Own {
		t.Fatalf("the observer saw %q (own %v)", agentText(second), second[0].Own)
	}
	for _, e := range second {
		if e.Kind == proto.EntryRefused {
			t.Fatal("a refusal in a turn that does not refuse")
		}
	}
	s.fails(proto.CodeFailed, proto.MethodAnswerPermission, proto.AnswerPermissionParams{ID: p.chat, OptionID: "allow_once"})
}

// TestPromptCancelAndATurnThatOutlivesItsConnection: a turn whose client
// goes away runs on in the server; a second turn is refused meanwhile;
// cancel from another client ends it with "cancelled".
func TestPromptCancelAndATurnThatOutlivesItsConnection(t *testing.T) {
	p := newPromptRig(t)
	s := p.stream()
	s.observe()
	gone := p.stream()
	gone.observe()
	gone.request(proto.MethodPrompt, proto.PromptParams{ID: p.chat, Text: "slow", RefusePermissions: true})
	s.until("the slow turn's first chunk", func(e proto.ObservedEntry) bool { return e.Kind == proto.EntryAgent && e.Text == "working slowly" })
	gone.w.nc.Close()
	// Its watcher ends when the server has seen it go.
	waitFor(t, "the server to see the client go", func() bool { return p.watchers() == 1 })
	if !p.srv.opt.Mux.State(p.chat).TurnActive {
		t.Fatal("the turn ended with its client")
	}
	e := s.fails(proto.CodeFailed, proto.MethodPrompt, proto.PromptParams{ID: p.chat, Text: "second"})
	if !strings.Contains(e.Message, "already running") {
		t.Fatalf("a second turn: %q", e.Message)
	}
	s.call(proto.MethodCancel, proto.ChatParams{ID: p.chat}, nil)
	s.until("the turn's end", func(e proto.ObservedEntry) bool { return e.Kind == proto.EntryTurnEnded })
	if end := s.turns()[0]; end[len(end)-1].StopReason != "cancelled" {
		t.Fatalf("the cancelled turn ended %+v", end[len(end)-1])
	}
	if reason := s.prompt("after", true); reason != "end_turn" {
		t.Fatalf("the turn after the cancel: %q", reason)
	}
	// A cancel with no turn running does nothing.
	s.call(proto.MethodCancel, proto.ChatParams{ID: p.chat}, nil)
}

// TestPromptTwoObserversSeeOneTurn: both observers get the whole turn; only
// the one that asked for it sees it marked as its own; one that stops
// observing gets no more.
func TestPromptTwoObserversSeeOneTurn(t *testing.T) {
	p := newPromptRig(t)
	a, b := p.stream(), p.stream()
	a.observe()
	b.observe()
	a.prompt("think", true)
	b.until("the turn's end", func(e proto.ObservedEntry) bool { return e.Kind == proto.EntryTurnEnded })
	ta, tb := a.turns(), b.turns()
	if len(ta) != 1 || len(tb) != 1 || kinds(ta[0]) != kinds(tb[0]) || agentText(ta[0]) != agentText(tb[0]) {
		t.Fatalf("observers saw %q %q and %q %q", kinds(ta[0]), agentText(ta[0]), kinds(tb[0]), agentText(tb[0]))
	}
	if !ta[0][0].Own || tb[0][0].Own {
		t.Fatalf("own marks: asker %v, other %v", ta[0][0].Own, tb[0][0].Own)
	}
	b.call(proto.MethodUnobserve, proto.ChatParams{ID: p.chat}, nil)
	a.prompt("again", true)
	b.call(proto.MethodHello, struct{}{}, nil) // anything sent before it has been read
	if n := len(b.turns()); n != 1 {
		t.Fatalf("%d turns seen, the last after unobserve", n)
	}
}

// TestPromptTwiceReusesTheRunningAgent: the server keeps the agent between
// turns, whichever connection sends them: one process, one start.
func TestPromptTwiceReusesTheRunningAgent(t *testing.T) {
	p := newPromptRig(t)
	first := p.stream()
	first.observe()
	first.prompt("one", true)
	pid := p.srv.opt.Mux.State(p.chat).Pid
	first.w.nc.Close()
	second := p.stream()
	second.observe()
	second.call(proto.MethodReady, proto.ChatParams{ID: p.chat}, nil)
	second.prompt("two", true)
	if got := agentText(second.turns()[0]); got != "echo: two" {
		t.Fatalf("second turn %q", got)
	}
	recs, err := startrecord.Read(p.starts)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || p.srv.opt.Mux.State(p.chat).Pid != pid {
		t.Fatalf("%d agent starts, pid %d then %d: want one agent for both turns", len(recs), pid, p.srv.opt.Mux.State(p.chat).Pid)
	}
}

// TestPromptMethodsRefuseBadParams: unknown chats, pty chats and missing
// ids are refused without starting anything.
func TestPromptMethodsRefuseBadParams(t *testing.T) {
	p := newPromptRig(t)
	w := p.dial()
	w.fails(proto.CodeInvalidParams, proto.MethodObserve, proto.ChatParams{})
	w.fails(proto.CodeChatNotFound, proto.MethodObserve, proto.ChatParams{ID: "nosuch"})
	w.fails(proto.CodeChatNotFound, proto.MethodPrompt, proto.PromptParams{ID: "../etc", Text: "hi"})
	w.fails(proto.CodeInvalidParams, proto.MethodPrompt, map[string]any{"id": p.chat, "text": 3})
	w.fails(proto.CodeFailed, proto.MethodAnswerPermission, proto.AnswerPermissionParams{ID: p.chat})
	var shell proto.ChatJSON
	w.ok(proto.MethodNew, proto.NewParams{Harness: "shell"}, &shell)
	if e := w.fails(proto.CodeFailed, proto.MethodObserve, proto.ChatParams{ID: shell.ID}); !strings.Contains(e.Message, "does not speak ACP") {
		t.Fatalf("observe a pty chat: %q", e.Message)
	}
	w.fails(proto.CodeFailed, proto.MethodPrompt, proto.PromptParams{ID: shell.ID, Text: "hi"})
	if recs, _ := startrecord.Read(p.starts); len(recs) != 0 {
		t.Fatalf("%d agents started by refused calls", len(recs))
	}
	p.srv.prompts.mu.Lock()
	n := len(p.srv.prompts.feeds)
	p.srv.prompts.mu.Unlock()
	if n > 1 {
		t.Fatalf("%d feeds kept for refused ids", n)
	}
	if st := p.srv.opt.Mux.State(shell.ID); st.Pid != 0 {
		t.Fatalf("a refused prompt started the pty chat: %+v", st)
	}
}

// watchers counts the connections that observe the rig's chat.
func (p *promptRig) watchers() int {
	p.srv.prompts.mu.Lock()
	f := p.srv.prompts.feeds[p.chat]
	p.srv.prompts.mu.Unlock()
	if f == nil {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.watchers)
}

// TestWatcherOverflowSaysWhatItDropped: a backlog over its bound drops
// updates until it has been sent, then says how many it dropped, in their
// place; turn marks are never dropped; chunks of one message join.
func TestWatcherOverflowSaysWhatItDropped(t *testing.T) {
	w := &watcher{wake: make(chan struct{}, 1)}
	var got []proto.ObservedEntry
	sendAll := func() {
		for batch := w.take(); batch != nil; batch = w.take() {
			got = append(got, batch...)
			w.queued()
		}
	}
	chunk := strings.Repeat("x", 1000)
	pushed := 0
	for w.missed == 0 {
		w.push(proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryTool, Title: chunk}}, false)
		pushed++
	}
	kept := pushed - 1
	w.push(proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryTool, Title: "dropped too"}}, false)
	// A batch sent makes room, but the gap goes on until the backlog has
	// been sent: one mark per gap, not one per batch.
	got = append(got, w.take()...)
	w.queued()
	w.push(proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryTool, Title: "dropped as well"}}, false)
	w.push(proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryTurnEnded}, StopReason: "end_turn"}, true)
	w.push(proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryAgent, Text: "after "}}, false)
	w.push(proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryAgent, Text: "the gap"}}, false)
	sendAll()
	if len(got) != kept+3 {
		t.Fatalf("%d entries sent, want the %d kept, the mark, the turn's end and the joined text", len(got), kept)
	}
	if tail := kinds(got[kept:]); tail != "missed turnEnded agent" || got[kept].Count != 3 || got[kept+2].Text != "after the gap" {
		t.Fatalf("after the kept entries: %s (missed %d, text %q)", tail, got[kept].Count, got[kept+2].Text)
	}
	if w.size != 0 || len(w.backlog) != 0 {
		t.Fatalf("backlog left: %d entries, size %d", len(w.backlog), w.size)
	}

	// A gap at the end of a backlog is told once the backlog is sent.
	for w.missed == 0 {
		w.push(proto.ObservedEntry{Entry: proto.Entry{Kind: proto.EntryTool, Title: chunk}}, false)
	}
	got = got[:0]
	sendAll()
	if last := got[len(got)-1]; last.Kind != proto.EntryMissed || last.Count != 1 {
		t.Fatalf("the backlog ended with %+v, want the missed mark", last)
	}
	select {
	case <-w.sent():
	default:
		t.Fatal("an empty backlog is not sent")
	}
}
