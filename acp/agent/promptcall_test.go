package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// TestPromptLineIsWhatTheSDKWrites: the line written beside the SDK is a
// session/prompt request whose params are what the SDK's encoding of the
// same request says, for text with anything in it and for other blocks.
func TestPromptLineIsWhatTheSDKWrites(t *testing.T) {
	texts := []string{"", "hi", "a \"quoted\" \\ path\nnext\tline", "\x00\x1b[31mred\x7f", "é 😀 \u2028 \ufeff", "bad \xff\xfe utf-8", "<b>&amp;</b>"}
	var reqs []acp.PromptRequest
	for _, s := range texts {
		reqs = append(reqs, acp.PromptRequest{SessionId: acp.SessionId("s \"" + s), Prompt: []acp.ContentBlock{acp.TextBlock(s)}})
	}
	reqs = append(reqs,
		acp.PromptRequest{SessionId: "k", Prompt: []acp.ContentBlock{}},
		acp.PromptRequest{SessionId: "k", Prompt: []acp.ContentBlock{acp.TextBlock("see"), acp.ResourceLinkBlock("a.go", "file:///p/a.go"), acp.TextBlock("and")}},
		acp.PromptRequest{SessionId: "k", Prompt: []acp.ContentBlock{{Text: &acp.ContentBlockText{Text: "noted", Annotations: &acp.Annotations{Priority: acp.Ptr(1.0)}}}}},
	)
	for _, p := range reqs {
		line, err := appendPromptLine(nil, "4503599627370497", p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(string(line), "}\n") || strings.Count(string(line), "\n") != 1 {
			t.Fatalf("not one line: %q", line)
		}
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  string          `json:"method"`
			Params  json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if msg.JSONRPC != "2.0" || string(msg.ID) != "4503599627370497" || msg.Method != acp.AgentMethodSessionPrompt {
			t.Fatalf("envelope of %q", line)
		}
		sdkParams, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var ours, theirs any
		if err := json.Unmarshal(msg.Params, &ours); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(sdkParams, &theirs); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ours, theirs) {
			t.Fatalf("params\n%s\nthe SDK writes\n%s", msg.Params, sdkParams)
		}
	}
}

// promptRig is a Conn over pipes and the agent's end of them.
type promptRig struct {
	conn  *Conn
	chat  *transcriptChat
	lines *bufio.Reader // what the Conn wrote to the agent
	out   io.WriteCloser
}

func newPromptRig(t *testing.T) *promptRig {
	t.Helper()
	toAgentR, toAgentW := io.Pipe()
	fromAgentR, fromAgentW := io.Pipe()
	chat := &transcriptChat{}
	log := slog.New(slog.DiscardHandler)
	client := NewClient(chat, Roots{}, context.Background(), func() int64 { return 0 }, log)
	conn := NewConn(context.Background(), client, toAgentW, fromAgentR, ConnOptions{Log: log})
	t.Cleanup(func() {
		fromAgentW.Close()
		toAgentR.Close()
	})
	return &promptRig{conn: conn, chat: chat, lines: bufio.NewReader(toAgentR), out: fromAgentW}
}

// read returns the next line the agent got, decoded.
func (r *promptRig) read(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		line, _ := r.lines.ReadString('\n')
		got <- line
	}()
	select {
	case line := <-got:
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("the agent got %q: %v", line, err)
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatal("the agent got no line within 10s")
		return nil
	}
}

func (r *promptRig) write(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(r.out, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// prompt starts a prompt and returns where it ends.
func (r *promptRig) prompt(ctx context.Context, text string) chan promptEnd {
	done := make(chan promptEnd, 1)
	go func() {
		resp, err := r.conn.Prompt(ctx, acp.PromptRequest{SessionId: "s1", Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
		done <- promptEnd{resp, err}
	}()
	return done
}

type promptEnd struct {
	resp acp.PromptResponse
	err  error
}

func (r *promptRig) ended(t *testing.T, done chan promptEnd) promptEnd {
	t.Helper()
	select {
	case e := <-done:
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("the prompt had not returned 10s after its end")
		return promptEnd{}
	}
}

// TestPromptBesideTheSDK: a prompt's answer comes back to Prompt after the
// updates the agent sent before it are applied; an error answer is the
// agent's error; a cancelled prompt tells the agent with $/cancel_request
// and session/cancel and ends cancelled, and its late answer harms
// nothing; an agent whose output ends ends the prompt.
func TestPromptBesideTheSDK(t *testing.T) {
	r := newPromptRig(t)

	done := r.prompt(context.Background(), "hello")
	req := r.read(t)
	id := string(req["id"])
	if n, err := strconv.ParseUint(id, 10, 64); err != nil || n <= promptIDBase || n >= 1<<53 {
		t.Fatalf("the prompt's id %s: want a number above the SDK's ids and exact in JavaScript", id)
	}
	if string(req["method"]) != `"session/prompt"` {
		t.Fatalf("method %s", req["method"])
	}
	// In one write: the guard has the answer in hand as it takes the
	// update, which it may hold back to join the next chunk.
	r.write(t, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi there"}}}}`+"\n"+
		`{"jsonrpc":"2.0","id":`+id+`,"result":{"stopReason":"end_turn"}}`)
	e := r.ended(t, done)
	if e.err != nil || e.resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("the answer: %+v, %v", e.resp, e.err)
	}
	r.chat.mu.Lock()
	entries := r.chat.log.Entries()
	r.chat.mu.Unlock()
	if len(entries) != 1 || entries[0].Text != "hi there" {
		t.Fatalf("the update before the answer was not applied when Prompt returned: %+v", entries)
	}

	done = r.prompt(context.Background(), "fail")
	id = string(r.read(t)["id"])
	r.write(t, `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32000,"message":"nope"}}`)
	var re *acp.RequestError
	if e := r.ended(t, done); !errors.As(e.err, &re) || re.Code != -32000 || re.Message != "nope" {
		t.Fatalf("an error answer came back as %v", e.err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done = r.prompt(ctx, "slow")
	id = string(r.read(t)["id"])
	cancel()
	told := r.read(t)
	var params struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if err := json.Unmarshal(told["params"], &params); err != nil || string(told["method"]) != `"$/cancel_request"` || string(params.RequestID) != id {
		t.Fatalf("after the cancel the agent got %s %s, want $/cancel_request of %s", told["method"], told["params"], id)
	}
	if m := r.read(t); string(m["method"]) != `"session/cancel"` {
		t.Fatalf("then %s, want session/cancel", m["method"])
	}
	if e := r.ended(t, done); !errors.As(e.err, &re) || re.Code != -32800 {
		t.Fatalf("a cancelled prompt ended with %v, want the SDK's cancelled request", e.err)
	}
	r.write(t, `{"jsonrpc":"2.0","id":`+id+`,"result":{"stopReason":"cancelled"}}`)

	done = r.prompt(context.Background(), "last")
	r.read(t)
	r.out.Close()
	if e := r.ended(t, done); e.err == nil || !strings.Contains(e.err.Error(), "peer disconnected") {
		t.Fatalf("a prompt whose agent's output ended: %v", e.err)
	}
}

// orderSink checks that nothing taken is still held when a prompt's
// answer has been handed over.
type orderSink struct {
	t      *testing.T
	answer chan acp.PromptResponse
	held   int
}

func (s *orderSink) take(string, json.RawMessage) { s.held++ }

func (s *orderSink) flush() {
	if s.held > 0 && len(s.answer) > 0 {
		s.t.Error("the prompt's answer was handed over before the updates sent before it were applied")
	}
	s.held = 0
}

// TestWireGuardAppliesUpdatesBeforeAPromptsAnswer: read in one go, an
// update and then the answer to a prompt sent beside the SDK: the update
// is applied before the answer is handed over, and the answer never
// reaches the SDK; an answer to any other id still does.
func TestWireGuardAppliesUpdatesBeforeAPromptsAnswer(t *testing.T) {
	calls := &promptCalls{}
	answer := make(chan acp.PromptResponse, 1)
	id, _, _ := calls.open(func(resp acp.PromptResponse, err error) {
		if err != nil {
			t.Errorf("the prompt heard %v", err)
		}
		answer <- resp
	})
	other := `{"jsonrpc":"2.0","id":7,"result":{}}` + "\n"
	in := updateLine(1) + `{"jsonrpc":"2.0","id":` + id + `,"result":{"stopReason":"end_turn"}}` + "\n" + other
	g := newWireGuard(strings.NewReader(in), maxMessageBytes, func(r string) { t.Errorf("bad: %s", r) })
	g.sink = &orderSink{t: t, answer: answer}
	g.calls = calls
	passed, err := io.ReadAll(g)
	if err != nil {
		t.Fatal(err)
	}
	if string(passed) != other {
		t.Fatalf("passed on to the SDK: %q, want only the answer of another id", passed)
	}
	select {
	case resp := <-answer:
		if resp.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("the answer handed over: %+v", resp)
		}
	default:
		t.Fatal("the prompt's answer was not handed over")
	}
}

var promptResults = []string{
	`{"stopReason":"end_turn"}`, ` { "stopReason" : "cancelled" } `, `{"stopReason":"max_tokens","usage":{"inputTokens":3,"outputTokens":4,"totalTokens":7}}`,
	`{"_meta":{"a":1},"stopReason":"refusal"}`, `{"stopReason":"a","stopReason":"b"}`, `{"StopReason":"end_turn"}`,
	`{"stopReason":"\u0065nd_turn"}`, `{"stopReason":7}`, `{"stopReason":null}`, `{}`, `null`, `[]`, ``,
}

// checkPromptResponse: a result reads as the SDK's decoding reads it.
func checkPromptResponse(t *testing.T, result []byte) {
	t.Helper()
	if len(result) > 0 && !json.Valid(result) {
		return // refused by the guard before it comes here
	}
	var want acp.PromptResponse
	wantErr := len(result) > 0 && json.Unmarshal(result, &want) != nil
	got, err := promptResponse(result)
	if (err != nil) != wantErr || err == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: read %+v (%v), the SDK reads %+v (error %v)", result, got, err, want, wantErr)
	}
}

// TestPromptResponseReadsWhatTheSDKReads: the answer to a prompt, read
// straight or not, is what the SDK decodes of it.
func TestPromptResponseReadsWhatTheSDKReads(t *testing.T) {
	for _, r := range promptResults {
		checkPromptResponse(t, []byte(r))
	}
}

func FuzzPromptResponse(f *testing.F) {
	for _, r := range promptResults {
		f.Add([]byte(r))
	}
	f.Fuzz(func(t *testing.T, result []byte) { checkPromptResponse(t, result) })
}

// TestPromptAnswerBeforeTheEndIsTheAnswer: an agent that answers and then
// ends its output at once (a crash, an exit) gave the answer: the prompt
// ends with it, not with the end of the connection, every time.
func TestPromptAnswerBeforeTheEndIsTheAnswer(t *testing.T) {
	for i := range 50 {
		r := newPromptRig(t)
		done := r.prompt(context.Background(), "last words")
		id := string(r.read(t)["id"])
		r.write(t, `{"jsonrpc":"2.0","id":`+id+`,"result":{"stopReason":"refusal"}}`)
		r.out.Close()
		if e := r.ended(t, done); e.err != nil || e.resp.StopReason != acp.StopReasonRefusal {
			t.Fatalf("round %d: %+v, %v; want the answer sent before the end", i, e.resp, e.err)
		}
	}
}

// TestPromptWaitsOnceItsLineIsOut: a prompt tells its caller it waits
// (Waiting) once the agent has its line, not before: the rig's pipe takes
// a write only as the agent reads it.
func TestPromptWaitsOnceItsLineIsOut(t *testing.T) {
	r := newPromptRig(t)
	told := make(chan struct{})
	done := r.prompt(WithWaiting(context.Background(), func() { close(told) }), "hello")
	select {
	case <-told:
		t.Fatal("the prompt said it waits before the agent read its line")
	case <-done:
		t.Fatal("the prompt ended before the agent read its line")
	default:
	}
	id := string(r.read(t)["id"])
	select {
	case <-told:
	case <-time.After(10 * time.Second):
		t.Fatal("the prompt had not said it waits 10s after the agent read its line")
	}
	r.write(t, `{"jsonrpc":"2.0","id":`+id+`,"result":{"stopReason":"end_turn"}}`)
	if e := r.ended(t, done); e.err != nil {
		t.Fatal(e.err)
	}
}

// TestPromptThenReturnsOnceSent: PromptThen returns with its prompt on the
// wire and its answer to come, heard once on the guard's goroutine; a
// prompt to a connection that has ended hears so at once, not never.
func TestPromptThenReturnsOnceSent(t *testing.T) {
	r := newPromptRig(t)
	heard := make(chan promptEnd, 2)
	sent := make(chan struct{})
	go func() {
		r.conn.PromptThen(context.Background(), acp.PromptRequest{SessionId: "s1", Prompt: []acp.ContentBlock{acp.TextBlock("hi")}},
			func(resp acp.PromptResponse, err error) { heard <- promptEnd{resp, err} })
		close(sent)
	}()
	id := string(r.read(t)["id"])
	select {
	case <-sent:
	case <-time.After(10 * time.Second):
		t.Fatal("PromptThen had not returned 10s after the agent read its line")
	}
	if len(heard) != 0 {
		t.Fatal("the prompt heard an end before the agent answered")
	}
	r.write(t, `{"jsonrpc":"2.0","id":`+id+`,"result":{"stopReason":"end_turn"}}`)
	if e := r.ended(t, heard); e.err != nil || e.resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("the answer: %+v, %v", e.resp, e.err)
	}

	r.out.Close()
	select {
	case <-r.conn.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the connection had not ended 10s after the agent's output")
	}
	go func() { _, _ = io.Copy(io.Discard, r.lines) }() // the agent still reads
	r.conn.PromptThen(context.Background(), acp.PromptRequest{SessionId: "s1", Prompt: []acp.ContentBlock{acp.TextBlock("late")}},
		func(resp acp.PromptResponse, err error) { heard <- promptEnd{resp, err} })
	if e := r.ended(t, heard); e.err == nil || !strings.Contains(e.err.Error(), "peer disconnected") {
		t.Fatalf("a prompt after the end: %v", e.err)
	}
	if len(heard) != 0 {
		t.Fatal("a prompt heard its end twice")
	}
}
