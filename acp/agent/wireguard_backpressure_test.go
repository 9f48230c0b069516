package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
	acp "github.com/coder/acp-go-sdk"
)

// recordingSink is a notificationSink that records what the guard hands it.
type recordingSink struct {
	mu     sync.Mutex
	events []string // "take METHOD PARAMS" and "flush", in order
	onTake func(i int)
	taken  int
}

func (s *recordingSink) take(method string, params json.RawMessage) {
	s.mu.Lock()
	i := s.taken
	s.taken++
	s.events = append(s.events, "take "+method+" "+string(params))
	s.mu.Unlock()
	if s.onTake != nil {
		s.onTake(i)
	}
}

func (s *recordingSink) flush() {
	s.mu.Lock()
	s.events = append(s.events, "flush")
	s.mu.Unlock()
}

func (s *recordingSink) snapshot() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.events...)
}

func updateLine(i int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":%q}}}}`, burstChunk(i)) + "\n"
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// TestWireGuardBackpressure: however many notifications an agent has
// written, the guard reads at most its buffer ahead of the one being
// applied (the rest waits in the agent's pipe, and then the agent waits);
// they are applied in order, and a response after them passes on only once
// all are applied.
func TestWireGuardBackpressure(t *testing.T) {
	const n = 20_000
	var stream strings.Builder
	ends := make([]int64, n) // where each line ends in the stream
	for i := range ends {
		stream.WriteString(updateLine(i + 1))
		ends[i] = int64(stream.Len())
	}
	response := `{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}`
	stream.WriteString(response + "\n")
	// All of it is there to be read at once: an agent far ahead.
	src := &countingReader{r: strings.NewReader(stream.String())}
	var worst int64
	sink := &recordingSink{}
	sink.onTake = func(i int) {
		worst = max(worst, src.n.Load()-ends[i])
	}
	g := newWireGuard(src, maxMessageBytes, func(r string) { t.Errorf("bad: %s", r) })
	g.sink = sink
	out, err := io.ReadAll(g)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != response+"\n" {
		t.Fatalf("passed on %q, want only the response", out)
	}
	events := sink.snapshot()
	takes := 0
	for _, e := range events {
		if !strings.HasPrefix(e, "take ") {
			continue
		}
		if want := burstChunk(takes + 1); !strings.Contains(e, want) {
			t.Fatalf("notification %d is %q, want the one with %q", takes+1, e, want)
		}
		takes++
	}
	if takes != n || g.notifications.Load() != n {
		t.Fatalf("took %d notifications (counted %d), want %d", takes, g.notifications.Load(), n)
	}
	if events[len(events)-1] != "flush" {
		t.Fatalf("the response passed on before a flush: events end %q", events[len(events)-3:])
	}
	const bound = 64 << 10
	t.Logf("read at most %d bytes ahead of the notification being applied, of %d written (bound %d)", worst, stream.Len(), bound)
	if worst > bound {
		t.Fatalf("read %d bytes ahead of the notification being applied; bound %d", worst, bound)
	}
}

// TestWireGuardFlushesBeforeWaiting: what the sink holds is flushed as soon
// as the guard has no whole line left to read, before it waits for more.
func TestWireGuardFlushesBeforeWaiting(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	sink := &recordingSink{}
	g := newWireGuard(pr, maxMessageBytes, func(r string) { t.Errorf("bad: %s", r) })
	g.sink = sink
	go func() { _, _ = io.ReadAll(g) }()
	if _, err := io.WriteString(pw, updateLine(1)+updateLine(2)+updateLine(3)); err != nil {
		t.Fatal(err)
	}
	// The first flush comes before the first wait, with nothing held.
	wait.Until(t, "three notifications and a flush", func() bool {
		ev := sink.snapshot()
		return len(ev) == 5 && ev[4] == "flush"
	})
	if ev := sink.snapshot(); strings.Contains(strings.Join(ev[1:4], ""), "flush") {
		t.Fatalf("flushed between lines already read: %q", ev)
	}
}

// TestWireGuardTakesWhatTheSDKQueues: the guard keeps from the SDK exactly
// the lines its reader would queue as notifications (no id, or a null id,
// and a method other than $/cancel_request) and passes every other line on.
func TestWireGuardTakesWhatTheSDKQueues(t *testing.T) {
	cases := []struct {
		line  string
		taken bool
	}{
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}`, true},
		{`{"jsonrpc":"2.0","id":null,"method":"session/update","params":{}}`, true},
		{`{"jsonrpc":"2.0","method":"_vendor/ping"}`, true},
		{`{"jsonrpc":"2.0","method":"fs/write_text_file","params":{}}`, true},
		{`{"jsonrpc":"2.0","id":7,"method":"fs/read_text_file","params":{}}`, false},
		{`{"jsonrpc":"2.0","id":"x","method":"session/request_permission","params":{}}`, false},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, false},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}`, false},
		{`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}`, false},
		{`{"jsonrpc":"2.0","method":""}`, false},
		{`{"jsonrpc":"2.0","method":5}`, false},
		{`{"jsonrpc":"2.0","method":"session/update","error":5}`, false},
		{`[1,2]`, false},
		{`"text"`, false},
	}
	for _, c := range cases {
		sink := &recordingSink{}
		g := newWireGuard(strings.NewReader(c.line+"\n"), maxMessageBytes, func(r string) { t.Errorf("%s: bad: %s", c.line, r) })
		g.sink = sink
		out, err := io.ReadAll(g)
		if err != nil {
			t.Fatal(err)
		}
		if taken := sink.taken == 1; taken != c.taken || (taken == (len(out) > 0)) {
			t.Errorf("%s: taken %v, passed on %q; want taken %v", c.line, taken, out, c.taken)
		}
	}
}

// TestWireGuardNamesTheBadLine: the reason a guard gives up says what the
// agent did, and the chat's error says it in those words.
func TestWireGuardNamesTheBadLine(t *testing.T) {
	cases := []struct{ input, want string }{
		{"not json {\n", `sent invalid JSON: "not json {"`},
		{strings.Repeat("x", 300) + "\n", "sent a line over 256 bytes"},
		{`{"a":1}` + "\n" + strings.Repeat(" ", 100) + "[" + strings.Repeat("1,", 200) + "1]\n", "sent a line over 256 bytes"},
	}
	for _, c := range cases {
		var reason string
		g := newWireGuard(strings.NewReader(c.input), 256, func(r string) { reason = r })
		_, _ = io.ReadAll(g)
		if reason != "agent "+c.want || !strings.HasPrefix(g.why.In("during the turn"), "agent "+c.want[:12]) {
			t.Errorf("%.20q: reason %q (%q), want %q", c.input, reason, g.why.In("during the turn"), "agent "+c.want)
		}
	}
}

// fakeClient records the session updates it is given.
type fakeClient struct {
	acp.Client
	updates []acp.SessionNotification
}

func (f *fakeClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	f.updates = append(f.updates, n)
	return nil
}

// TestUpdateApplierJoinsOnlyPlainChunksOfOneMessage: back-to-back text
// chunks of one message become one update with their text in order;
// anything else (another kind, another message id, annotations, a tool
// call, a flush) ends the join, and no update is lost or reordered.
func TestUpdateApplierJoinsOnlyPlainChunksOfOneMessage(t *testing.T) {
	agent := func(text string, id *string) acp.SessionUpdate {
		u := acp.UpdateAgentMessageText(text)
		u.AgentMessageChunk.MessageId = id
		return u
	}
	m1, m2 := acp.Ptr("m1"), acp.Ptr("m2")
	// (The SDK's encoder leaves annotations out, so this one is written out.)
	annotated := json.RawMessage(`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"F","annotations":{"priority":1}}}}`)
	steps := []any{
		agent("A", nil), agent("B", nil),
		acp.UpdateAgentThoughtText("C1"), acp.UpdateAgentThoughtText("C2"),
		agent("D", m1), agent("E", m1), agent("G", m2),
		annotated, agent("H", nil),
		acp.StartToolCall("t1", "tool"), agent("I", nil),
		"flush", agent("J", nil), acp.UpdateUserMessageText("U1"), acp.UpdateUserMessageText("U2"),
		agent("K", nil), "flush",
	}
	client := &fakeClient{}
	var logged []string
	a := &updateApplier{ctx: context.Background(), client: client, log: func(msg string, _ ...any) { logged = append(logged, msg) }}
	for _, s := range steps {
		switch s := s.(type) {
		case string:
			a.flush()
		case json.RawMessage:
			a.take(acp.ClientMethodSessionUpdate, s)
		case acp.SessionUpdate:
			params, err := json.Marshal(acp.SessionNotification{SessionId: "s", Update: s})
			if err != nil {
				t.Fatal(err)
			}
			a.take(acp.ClientMethodSessionUpdate, params)
		}
	}
	a.take("_vendor/ping", nil)
	a.take(acp.ClientMethodSessionUpdate, json.RawMessage(`{"sessionId":5}`))
	var got []string
	for _, n := range client.updates {
		u := n.Update
		switch {
		case u.AgentMessageChunk != nil:
			got = append(got, "agent:"+u.AgentMessageChunk.Content.Text.Text)
		case u.AgentThoughtChunk != nil:
			got = append(got, "thought:"+u.AgentThoughtChunk.Content.Text.Text)
		case u.UserMessageChunk != nil:
			got = append(got, "user:"+u.UserMessageChunk.Content.Text.Text)
		case u.ToolCall != nil:
			got = append(got, "tool")
		}
	}
	want := []string{"agent:AB", "thought:C1C2", "agent:DE", "agent:G", "agent:F", "agent:H", "tool", "agent:I",
		"agent:J", "user:U1", "user:U2", "agent:K"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("updates %q\nwant    %q", got, want)
	}
	if len(logged) != 2 {
		t.Fatalf("logged %q, want the two dropped notifications", logged)
	}

	// Joined text is bounded: a long run becomes several updates.
	client.updates = nil
	chunk := strings.Repeat("x", 1000)
	for range 200 {
		params, _ := json.Marshal(acp.SessionNotification{SessionId: "s", Update: agent(chunk, nil)})
		a.take(acp.ClientMethodSessionUpdate, params)
	}
	a.flush()
	total := 0
	for _, n := range client.updates {
		l := len(n.Update.AgentMessageChunk.Content.Text.Text)
		if l > maxJoinedChunk {
			t.Fatalf("an update of %d bytes, over %d", l, maxJoinedChunk)
		}
		total += l
	}
	if total != 200*len(chunk) || len(client.updates) < 3 {
		t.Fatalf("%d updates with %d bytes, want %d bytes in several", len(client.updates), total, 200*len(chunk))
	}
}

// TestACPClientHandlesNoOtherNotification: the wire guard drops every
// notification but session/update, which is right only while Client has
// no handler the SDK would call for another one.
func TestACPClientHandlesNoOtherNotification(t *testing.T) {
	var client any = &Client{}
	if _, ok := client.(acp.ExtensionMethodHandler); ok {
		t.Fatal("Client handles extension methods: the wire guard must pass their notifications on")
	}
	if _, ok := client.(interface {
		UnstableCompleteElicitation(context.Context, acp.UnstableCompleteElicitationNotification) error
	}); ok {
		t.Fatal("Client handles elicitation/complete: the wire guard must pass it on")
	}
}

// BenchmarkWireGuardBurst is our side of a burst: b.N agent message chunks
// read, decoded, joined and applied to a transcript, as the fake agent's
// burst command sends them.
func BenchmarkWireGuardBurst(b *testing.B) {
	var stream strings.Builder
	for i := range b.N {
		stream.WriteString(updateLine(i%999_999 + 1))
	}
	client := NewClient(&transcriptChat{}, Roots{}, context.Background(), func() int64 { return 0 }, slog.New(slog.DiscardHandler))
	g := newWireGuard(strings.NewReader(stream.String()), maxMessageBytes, func(r string) { b.Fatal(r) })
	g.sink = &updateApplier{ctx: context.Background(), client: client, log: func(string, ...any) {}}
	b.SetBytes(int64(stream.Len() / max(b.N, 1)))
	b.ResetTimer()
	if _, err := io.Copy(io.Discard, g); err != nil {
		b.Fatal(err)
	}
}

// burstChunk is the text of the i-th update of a burst, as the fake
// agent's burst command writes it.
func burstChunk(i int) string { return fmt.Sprintf("u%06d ", i) }

// transcriptChat is a Chat that keeps a transcript and asks nobody.
type transcriptChat struct {
	mu  sync.Mutex
	log Transcript
}

func (c *transcriptChat) Update(n acp.SessionNotification) {
	c.mu.Lock()
	c.log.Apply(n.Update)
	c.mu.Unlock()
}

func (c *transcriptChat) Ask(context.Context, proto.Permission) string { return "" }
func (c *transcriptChat) Wrote(string)                                 {}
func (c *transcriptChat) TerminalOutput(string, string)                {}
func (c *transcriptChat) Forwarder(string) Forwarder                   { return nil }
