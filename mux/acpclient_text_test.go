package mux

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpmux/acpmux-tui/proto"
)

// controlIn returns the first control character in s (C0 but newline and
// tab when multiline, DEL, C1, or a stray byte), or "" when there is none.
func controlIn(s string, multiline bool) string {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return s[i : i+1]
		case multiline && (r == '\n' || r == '\t'):
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			return string(r)
		}
		i += size
	}
	return ""
}

// checkClean fails for any control character in an entry.
func checkClean(t *testing.T, e proto.Entry) {
	t.Helper()
	for _, f := range []struct {
		name, text string
		multiline  bool
	}{{"text", e.Text, true}, {"title", e.Title, false}, {"status", e.ToolStatus, false}} {
		if c := controlIn(f.text, f.multiline); c != "" {
			t.Errorf("entry %d's %s holds control %q: %q", e.Kind, f.name, c, f.text)
		}
	}
	for _, p := range e.Plan {
		if c := controlIn(p, false); c != "" {
			t.Errorf("plan entry holds control %q: %q", c, p)
		}
	}
}

func TestACPAgentTextReachesTheTranscriptClean(t *testing.T) {
	r := newACPRig(t, nil)
	m := r.create("fake", nil)
	var mu sync.Mutex
	var observed []proto.Entry
	if err := r.mux.Observe(m.ID, func(e proto.Entry) {
		mu.Lock()
		observed = append(observed, e)
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	done := r.promptAsync(m.ID, "osc")
	var card *proto.Permission
	waitFor(t, "the permission card", func() bool {
		card = r.mux.State(m.ID).Permission
		return card != nil
	})
	if card.Title != "Edit main.go second line" {
		t.Errorf("card title %q", card.Title)
	}
	var names []string
	for _, o := range card.Options {
		names = append(names, o.Name)
	}
	if !slices.Equal(names, []string{"Allow", "Reject"}) {
		t.Errorf("option names %q", names)
	}
	if err := r.mux.AnswerPermission(m.ID, "allow_once"); err != nil {
		t.Fatal(err)
	}
	if res := waitResult(t, done); res.err != nil || res.reason != "end_turn" {
		t.Fatalf("turn ended %q %v", res.reason, res.err)
	}
	entries := r.mux.Transcript(m.ID)
	for _, e := range entries {
		checkClean(t, e)
	}
	var agent, tools, plan string
	for _, e := range entries {
		switch e.Kind {
		case proto.EntryAgent:
			agent += e.Text
		case proto.EntryTool:
			tools += e.Title
		case proto.EntryPlan:
			plan += strings.Join(e.Plan, "|")
		}
	}
	for _, want := range []string{"before ", " middle ", " bell back cr split ", " after\n", "osc: allow_once"} {
		if !strings.Contains(agent, want) {
			t.Errorf("agent text %q lost %q", agent, want)
		}
	}
	if tools != "Ran rm" || plan != "[pending] Step one" {
		t.Errorf("tool title %q, plan %q", tools, plan)
	}
	// What the observer saw is clean too, and the agent's stderr reached it.
	waitFor(t, "the agent's stderr line", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.ContainsFunc(observed, func(e proto.Entry) bool {
			return e.Kind == proto.EntryStderr && strings.HasPrefix(e.Text, "acpfake: osc on stderr")
		})
	})
	mu.Lock()
	defer mu.Unlock()
	for _, e := range observed {
		checkClean(t, e)
	}
	for _, e := range r.mux.Transcript(m.ID) {
		if e.Kind == proto.EntryStderr {
			t.Fatalf("a stderr line was kept in the transcript: %q", e.Text)
		}
	}
}

// replay feeds recorded session/update params to a chat with no process, as
// a session/load replay delivers them.
func replay(t *testing.T, updates ...string) []proto.Entry {
	t.Helper()
	c := newACPChat(New(Options{}), "replayed")
	side := agentSide{c}
	for _, raw := range updates {
		var n acp.SessionNotification
		if err := json.Unmarshal([]byte(`{"sessionId":"s1","update":`+raw+`}`), &n); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		side.Update(n)
	}
	return c.entries()
}

func entryTexts(entries []proto.Entry) []string {
	var out []string
	for _, e := range entries {
		kind := map[proto.EntryKind]string{proto.EntryUser: "user", proto.EntryAgent: "agent", proto.EntryThought: "thought"}[e.Kind]
		out = append(out, kind+": "+e.Text)
	}
	return out
}

func TestReplayKeepsPromptsApart(t *testing.T) {
	cases := []struct {
		name    string
		updates []string
		want    []string
	}{{
		// acpfake and agents without message ids: each prompt is one chunk.
		name: "no message ids, the first prompt had no reply",
		updates: []string{
			`{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"what files are here?"}}`,
			`{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"explain main.go"}}`,
			`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"main.go "}}`,
			`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"starts the app"}}`,
			`{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"thanks"}}`,
		},
		want: []string{"user: what files are here?", "user: explain main.go", "agent: main.go starts the app", "user: thanks"},
	}, {
		// opencode and claude-agent-acp tag each chunk with its message's
		// id: one message in two chunks stays one, two messages stay two.
		name: "message ids",
		updates: []string{
			`{"sessionUpdate":"user_message_chunk","messageId":"msg_1","content":{"type":"text","text":"what files "}}`,
			`{"sessionUpdate":"user_message_chunk","messageId":"msg_1","content":{"type":"text","text":"are here?"}}`,
			`{"sessionUpdate":"user_message_chunk","messageId":"msg_2","content":{"type":"text","text":"explain main.go"}}`,
			`{"sessionUpdate":"agent_thought_chunk","messageId":"prt_1","content":{"type":"text","text":"reading"}}`,
			`{"sessionUpdate":"agent_message_chunk","messageId":"msg_3","content":{"type":"text","text":"it starts "}}`,
			`{"sessionUpdate":"agent_message_chunk","messageId":"msg_3","content":{"type":"text","text":"the app"}}`,
			`{"sessionUpdate":"agent_message_chunk","messageId":"msg_4","content":{"type":"text","text":"anything else?"}}`,
		},
		want: []string{"user: what files are here?", "user: explain main.go", "thought: reading", "agent: it starts the app", "agent: anything else?"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := entryTexts(replay(t, tc.updates...)); !slices.Equal(got, tc.want) {
				t.Fatalf("transcript\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestACPLoadedSessionKeepsPromptsApart(t *testing.T) {
	r := newACPRig(t, nil)
	m := r.create("fake", nil)
	// The first prompt gets no reply text (a plan only), the second an echo.
	for _, text := range []string{"what files are here?\nplan", "explain main.go"} {
		if _, err := r.prompt(m.ID, text); err != nil {
			t.Fatal(err)
		}
	}
	r.reopen()
	if err := r.mux.Start(m.ID, 80, 24); err != nil {
		t.Fatal(err)
	}
	r.ready(m.ID)
	got := entryTexts(r.mux.Transcript(m.ID))
	want := []string{"user: what files are here?\nplan", "user: explain main.go", "agent: echo: explain main.go"}
	if !slices.Equal(got, want) {
		t.Fatalf("replayed transcript\n%q\nwant\n%q", got, want)
	}
}
