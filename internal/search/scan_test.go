package search

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// fakeLive is a server's mux as the search sees it.
type fakeLive struct {
	transcripts map[string][]proto.Entry
	screens     map[string][]string
}

func (f fakeLive) Transcript(id string) []proto.Entry { return f.transcripts[id] }
func (f fakeLive) History(id string, _ int) []string  { return f.screens[id] }

func builtin(t *testing.T, name string) harness.Spec {
	t.Helper()
	for _, s := range harness.Builtins() {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no built-in harness %s", name)
	return harness.Spec{}
}

// writeClaudeLog writes a Claude Code session log where
// harness.ClaudeSessionLog finds it under root.
func writeClaudeLog(t *testing.T, root, id string, lines ...string) {
	t.Helper()
	dir := filepath.Join(root, "projects", "-src-app")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func claudeUser(text string) string {
	b, err := json.Marshal(text)
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf(`{"type":"user","message":{"role":"user","content":%s}}`, b)
}

func search(t *testing.T, words string, chats []Chat, opt Options) proto.SearchResult {
	t.Helper()
	q, err := Parse(Fields(words))
	if err != nil {
		t.Fatal(err)
	}
	return Run(q, chats, opt)
}

func hitsOf(res proto.SearchResult) map[string][]proto.SearchHit {
	out := map[string][]proto.SearchHit{}
	for _, c := range res.Chats {
		out[c.ID] = c.Hits
	}
	return out
}

func TestRunFindsEachPlace(t *testing.T) {
	root := t.TempDir()
	env := []string{"CLAUDE_CONFIG_DIR=" + root}
	writeClaudeLog(t, root, "sess-1", claudeUser("nothing here"), claudeUser("we fixed the zebra parser"),
		// A hostile line: an OSC, a BEL and a right-to-left override
		// inside the word.
		claudeUser("see \x1b]0;evil\x07ze\u202ebra\x07 now"))
	chats := []Chat{
		{Meta: &sessions.Meta{ID: "named", Name: "zebra work", Harness: "shell", Cwd: "/src/app"}, Spec: builtin(t, "shell")},
		{Meta: &sessions.Meta{ID: "titled", Name: "shell titled", Title: "about a Zebra", Harness: "shell", Cwd: "/x"}, Spec: builtin(t, "shell")},
		{Meta: &sessions.Meta{ID: "folder", Name: "f", Harness: "shell", Cwd: "/x", AdditionalDirectories: []string{"/src/zebra"}}, Spec: builtin(t, "shell")},
		{Meta: &sessions.Meta{ID: "logged", Name: "l", Harness: "claude", Cwd: "/src/app", AgentSessionID: "sess-1"}, Spec: builtin(t, "claude"), Env: env},
		{Meta: &sessions.Meta{ID: "acp", Name: "a", Harness: "opencode", Cwd: "/y"}, Spec: builtin(t, "opencode")},
		{Meta: &sessions.Meta{ID: "term", Name: "t", Harness: "shell", Cwd: "/y"}, Spec: builtin(t, "shell")},
		{Meta: &sessions.Meta{ID: "none", Name: "n", Harness: "shell", Cwd: "/y"}, Spec: builtin(t, "shell")},
	}
	live := fakeLive{
		transcripts: map[string][]proto.Entry{"acp": {
			{Kind: proto.EntryUser, Text: "say something"},
			{Kind: proto.EntryAgent, Text: "the ze"}, {Kind: proto.EntryAgent, Text: "bra is striped"}, // one message in two chunks
		}},
		screens: map[string][]string{"term": {"$ ls", "$ echo \x1b]0;x\x07zebra\u202e", "zebra"}},
	}
	res := search(t, "zebra", chats, Options{Live: live})
	got := hitsOf(res)
	want := map[string]proto.SearchWhere{
		"named": proto.SearchName, "titled": proto.SearchTitle, "folder": proto.SearchFolder,
		"logged": proto.SearchLog, "acp": proto.SearchConversation, "term": proto.SearchScreen,
	}
	for id, where := range want {
		if len(got[id]) == 0 || got[id][0].Where != where {
			t.Errorf("chat %s: hits %+v, want one in its %s", id, got[id], where)
		}
	}
	if _, ok := got["none"]; ok {
		t.Errorf("chat none has hits: %+v", got["none"])
	}
	if !res.Screens || res.Hits != 8 {
		t.Errorf("result: screens %v, %d hits; want screens and 8 (two in the log, two on the screen)", res.Screens, res.Hits)
	}
	for _, h := range append(got["term"], got["logged"]...) {
		if why := clean(h.Excerpt); why != "" {
			t.Errorf("%s excerpt %q has %s", h.Where, h.Excerpt, why)
		}
	}
	if len(got["logged"]) != 2 || got["logged"][1].Excerpt != "see zebra now" {
		t.Errorf("log hits %+v, want the hostile line cleaned to %q", got["logged"], "see zebra now")
	}
	if got["acp"][0].Excerpt != "the zebra is striped" {
		t.Errorf("conversation excerpt %q", got["acp"][0].Excerpt)
	}

	// With no server: the files and logs alone.
	res = search(t, "zebra", chats, Options{})
	if got := hitsOf(res); res.Screens || got["term"] != nil || got["acp"] != nil || got["logged"] == nil {
		t.Errorf("files alone: screens %v, hits %+v", res.Screens, got)
	}
	if res := search(t, "giraffe", chats, Options{Live: live}); len(res.Chats) != 0 || res.Hits != 0 {
		t.Errorf("a missing word found %+v", res)
	}
}

func TestRunBoundsHits(t *testing.T) {
	lines := make([]string, 30)
	for i := range lines {
		lines[i] = fmt.Sprintf("zebra %d", i)
	}
	var chats []Chat
	screens := map[string][]string{}
	for i := range 10 {
		id := fmt.Sprintf("c%d", i)
		chats = append(chats, Chat{Meta: &sessions.Meta{ID: id, Name: id, Harness: "shell"}, Spec: builtin(t, "shell")})
		screens[id] = lines
	}
	res := search(t, "zebra", chats, Options{Live: fakeLive{screens: screens}, MaxPerChat: 3, MaxHits: 10, Workers: 1})
	if res.Hits != 10 || !res.Cut {
		t.Fatalf("%d hits, cut %v: want 10, cut", res.Hits, res.Cut)
	}
	if c := res.Chats[0]; len(c.Hits) != 3 || c.More != 27 {
		t.Fatalf("first chat: %d hits, %d more; want 3 and 27", len(c.Hits), c.More)
	}
	if n := len(res.Chats); n != 4 || len(res.Chats[3].Hits) != 1 {
		t.Fatalf("%d chats, the last with %d hits: want 4, the last cut to 1", n, len(res.Chats[len(res.Chats)-1].Hits))
	}
}

func TestRawFilterSkipsOnlyWhatCannotMatch(t *testing.T) {
	root := t.TempDir()
	// The word is escaped in the JSON: the raw filter must let it through.
	writeClaudeLog(t, root, "s", `{"type":"user","message":{"role":"user","content":"caf\u00e9 <b>"}}`)
	chats := []Chat{{Meta: &sessions.Meta{ID: "c", Name: "c", Harness: "claude", AgentSessionID: "s"}, Spec: builtin(t, "claude"), Env: []string{"CLAUDE_CONFIG_DIR=" + root}}}
	for _, w := range []string{"café", "<b>", "caf", "CAFÉ"} {
		want := 1
		if w == "CAFÉ" {
			want = 0 // a capital: as written
		}
		if res := search(t, w, chats, Options{}); res.Hits != want {
			t.Errorf("%q: %d hits, want %d", w, res.Hits, want)
		}
	}
}
