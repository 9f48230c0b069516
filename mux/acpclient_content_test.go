package mux

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
)

// These tests hold what an ACP chat keeps of a rich agent (the fake's
// rich.go commands): the content and kind of its tool calls, its slash
// commands, what a permission request will do, the size of a message too
// big to keep, and the files a prompt links; all of it cleaned and bounded
// where it enters.

// lastTool is the transcript's last tool call entry.
func lastTool(t *testing.T, entries []proto.Entry) proto.Entry {
	t.Helper()
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Kind == proto.EntryTool {
			return entries[i]
		}
	}
	t.Fatalf("no tool call in the transcript: %+v", entries)
	return proto.Entry{}
}

// checkNoControls fails on any control character but newline and tab, or any
// bidirectional control, in any string of v as JSON.
func checkNoControls(t *testing.T, what string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var walk func(x any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			for _, r := range x {
				if r != '\n' && r != '\t' && (unicode.IsControl(r) || plaintext.IsBidi(r)) {
					t.Errorf("%s holds %U in %q", what, r, x)
					return
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	var decoded any
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatal(err)
	}
	walk(decoded)
}

func TestACPToolCallsKeepTheirKindAndContent(t *testing.T) {
	r := newACPRig(t, nil)
	m := r.create("fake", nil)
	cwd := r.loadMeta(m.ID).Cwd
	var mu sync.Mutex
	var streamed []proto.Entry
	r.ready(m.ID)
	if err := r.mux.Observe(m.ID, func(e proto.Entry) {
		mu.Lock()
		streamed = append(streamed, e)
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}

	if _, err := r.prompt(m.ID, "edit-diff"); err != nil {
		t.Fatal(err)
	}
	edit := lastTool(t, r.mux.Transcript(m.ID))
	if edit.ToolKind != "edit" || edit.ToolStatus != "completed" || edit.Title != "Edit parser.go" {
		t.Fatalf("edit call %q kind %q status %q, want Edit parser.go, edit, completed", edit.Title, edit.ToolKind, edit.ToolStatus)
	}
	if len(edit.Content) != 2 {
		t.Fatalf("edit call content %+v, want two diffs", edit.Content)
	}
	changed, added := edit.Content[0], edit.Content[1]
	if changed.Type != proto.ToolContentDiff || changed.Path != filepath.Join(cwd, "parser.go") || changed.OldText == nil ||
		!strings.Contains(*changed.OldText, "strings.Fields") || !strings.Contains(changed.NewText, "return tokens(s)") || changed.Size != 0 {
		t.Errorf("the changed file's diff is %+v", changed)
	}
	if added.Type != proto.ToolContentDiff || added.Path != filepath.Join(cwd, "lexer.go") || added.OldText != nil ||
		!strings.Contains(added.NewText, "func tokens") {
		t.Errorf("the new file's diff is %+v (OldText must be nil for a new file)", added)
	}
	// The stream carries each update's own content: the last one has both.
	mu.Lock()
	var withContent []proto.Entry
	for _, e := range streamed {
		if e.Kind == proto.EntryTool && e.Content != nil {
			withContent = append(withContent, e)
		}
	}
	mu.Unlock()
	if len(withContent) != 1 || len(withContent[0].Content) != 2 || withContent[0].ToolKind != "" {
		t.Errorf("streamed tool updates with content: %+v, want the completing update with the two diffs (and no kind: it gave none)", withContent)
	}

	if _, err := r.prompt(m.ID, "execute"); err != nil {
		t.Fatal(err)
	}
	run := lastTool(t, r.mux.Transcript(m.ID))
	if run.ToolKind != "execute" || run.ToolStatus != "completed" || len(run.Content) != 1 || run.Content[0].Type != proto.ToolContentText {
		t.Fatalf("execute call %+v, want kind execute, completed, one text content", run)
	}
	if lines := strings.Count(run.Content[0].Text, "\n"); lines != 82 || !strings.HasSuffix(run.Content[0].Text, "0.012s\n") {
		t.Errorf("the command's output has %d lines, want 82 ending with the ok line:\n%s", lines, run.Content[0].Text)
	}

	if _, err := r.prompt(m.ID, "execute-fail"); err != nil {
		t.Fatal(err)
	}
	failed := lastTool(t, r.mux.Transcript(m.ID))
	if failed.ToolStatus != "failed" || len(failed.Content) != 1 || !strings.Contains(failed.Content[0].Text, "undefined: tokens") {
		t.Errorf("failed call %+v, want failed with the build error", failed)
	}

	if _, err := r.prompt(m.ID, "terminal-content"); err != nil {
		t.Fatal(err)
	}
	term := lastTool(t, r.mux.Transcript(m.ID))
	if len(term.Content) != 1 || term.Content[0] != (proto.ToolContent{Type: proto.ToolContentTerminal, TerminalID: "term-1"}) {
		t.Errorf("terminal call content %+v, want terminal term-1", term.Content)
	}
}

func TestACPCommandsReachTheState(t *testing.T) {
	r := newACPRig(t, map[string]string{"ACPMUX_FAKE_COMMANDS": "1"})
	m := r.create("fake", nil)
	r.ready(m.ID)
	want := []proto.Command{
		{Name: "review", Description: "Review the changes of this chat"},
		{Name: "test", Description: "Run the tests", Hint: "package pattern"},
		{Name: "explain", Description: "Explain a piece of code", Hint: "what to explain"},
	}
	waitFor(t, "the commands the fake offers after session/new", func() bool {
		return slices.Equal(r.mux.State(m.ID).Commands, want)
	})

	// A name with an escape, a space or a bidi control, an empty one and
	// one listed twice are dropped; escapes go from the rest.
	if _, err := r.prompt(m.ID, "hostile-commands"); err != nil {
		t.Fatal(err)
	}
	got := r.mux.State(m.ID).Commands
	if !slices.Equal(got, []proto.Command{{Name: "ok", Description: "fine evil", Hint: "hint evil"}}) {
		t.Errorf("hostile commands kept as %+v, want only ok, cleaned", got)
	}
	checkNoControls(t, "the state's commands", got)

	if _, err := r.prompt(m.ID, "commands-withdraw"); err != nil {
		t.Fatal(err)
	}
	if got := r.mux.State(m.ID).Commands; got != nil {
		t.Errorf("after an empty available_commands_update the state has %+v", got)
	}
}

func TestACPPermissionCarriesWhatTheCallWillDo(t *testing.T) {
	r := newACPRig(t, nil)
	m := r.create("fake", nil)
	cwd := r.loadMeta(m.ID).Cwd
	done := make(chan error, 1)
	go func() { _, err := r.prompt(m.ID, "permission-edit"); done <- err }()
	waitFor(t, "the permission card of the edit", func() bool { return r.mux.State(m.ID).Permission != nil })
	card := r.mux.State(m.ID).Permission
	if card.Kind != "edit" || len(card.Content) != 1 {
		t.Fatalf("card kind %q content %+v, want edit with one diff", card.Kind, card.Content)
	}
	d := card.Content[0]
	if d.Type != proto.ToolContentDiff || d.Path != filepath.Join(cwd, "main.go") || d.OldText == nil ||
		*d.OldText != "package main\n\nfunc main() {}\n" || d.NewText != "package main\n\nfunc main() { run() }\n" {
		t.Errorf("card diff %+v", d)
	}
	if err := r.mux.AnswerPermission(m.ID, "allow_once"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := r.lastAgentText(m.ID); got != "permission: allow_once" {
		t.Errorf("agent said %q", got)
	}
}

// TestACPHostileContentIsCleaned: escapes, OSC, C1 and bidi controls
// inside a diff's path and texts, a tool's output and a terminal id are
// gone from the transcript; the text around them stays.
func TestACPHostileContentIsCleaned(t *testing.T) {
	r := newACPRig(t, nil)
	m := r.create("fake", nil)
	cwd := r.loadMeta(m.ID).Cwd
	if _, err := r.prompt(m.ID, "hostile-diff"); err != nil {
		t.Fatal(err)
	}
	call := lastTool(t, r.mux.Transcript(m.ID))
	checkNoControls(t, "the tool call", call)
	old := "old evil\n"
	want := []proto.ToolContent{
		{Type: proto.ToolContentDiff, Path: filepath.Join(cwd, "xevil.go"), OldText: &old, NewText: "new evil\nline\ttab\n"},
		{Type: proto.ToolContentText, Text: "out evil\n"},
		{Type: proto.ToolContentTerminal, TerminalID: "termevil"},
	}
	if !slices.EqualFunc(call.Content, want, proto.ToolContent.Equal) {
		t.Errorf("hostile content kept as %+v, want %+v", call.Content, want)
	}
	if call.Title != "Edit evil" {
		t.Errorf("title %q", call.Title)
	}
}

// TestACPBigMessageAndDiffKeepTheirSize: a 10 MB message keeps its first
// MiB and says how big it was; so does a diff past its bound; the stream
// past the message's bound carries its size, not its text.
func TestACPBigMessageAndDiffKeepTheirSize(t *testing.T) {
	r := newACPRig(t, nil)
	m := r.create("fake", nil)
	r.ready(m.ID)
	var mu sync.Mutex
	var last proto.Entry
	if err := r.mux.Observe(m.ID, func(e proto.Entry) {
		if e.Kind == proto.EntryAgent {
			mu.Lock()
			last = e
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	const big = 10 << 20
	if _, err := r.prompt(m.ID, "big-message 10485760"); err != nil {
		t.Fatal(err)
	}
	msg := r.mux.Transcript(m.ID)
	var agentMsg proto.Entry
	for _, e := range msg {
		if e.Kind == proto.EntryAgent {
			agentMsg = e
		}
	}
	if agentMsg.Size != big || len(agentMsg.Text) > 1<<20 || len(agentMsg.Text) < 1<<20-64 {
		t.Errorf("the 10 MB message kept %d bytes with size %d, want about 1 MiB and size %d", len(agentMsg.Text), agentMsg.Size, big)
	}
	mu.Lock()
	if last.Size != big || last.Text != "" {
		t.Errorf("the last streamed chunk has %d bytes of text and size %d, want none and %d", len(last.Text), last.Size, big)
	}
	mu.Unlock()

	const diff = 3 << 20
	if _, err := r.prompt(m.ID, "big-diff 3145728"); err != nil {
		t.Fatal(err)
	}
	c := lastTool(t, r.mux.Transcript(m.ID)).Content
	if len(c) != 1 || len(c[0].NewText) != proto.MaxToolContentText || c[0].Size != diff+int64(len("small\n")) || c[0].OldText == nil || *c[0].OldText != "small\n" {
		t.Errorf("the big diff kept %d bytes with size %d, want %d and %d", len(c[0].NewText), c[0].Size, proto.MaxToolContentText, diff+len("small\n"))
	}
}

// TestACPPromptLinksReachTheAgent: a prompt's links go to the agent as
// resource_link blocks after its text (the fake's links command lists
// them), the transcript's user entry keeps them, and an invalid link is
// refused before anything is sent.
func TestACPPromptLinksReachTheAgent(t *testing.T) {
	r := newACPRig(t, nil)
	m := r.create("fake", nil)
	links := []proto.Link{{URI: "file:///src/app/main.go", Name: "main.go"}, {URI: "file:///src/app/docs/a%20b.md", Name: "a b.md"}}
	ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
	defer cancel()
	if _, err := r.mux.Prompt(ctx, m.ID, "links", links...); err != nil {
		t.Fatal(err)
	}
	if got, want := r.lastAgentText(m.ID), "links: main.go file:///src/app/main.go - | a b.md file:///src/app/docs/a%20b.md -"; got != want {
		t.Errorf("the agent heard %q, want %q", got, want)
	}
	prompts := r.requests("session/prompt")
	var blocks []map[string]any
	if err := json.Unmarshal(prompts[len(prompts)-1]["prompt"], &blocks); err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 3 || blocks[0]["type"] != "text" || blocks[1]["type"] != "resource_link" || blocks[1]["uri"] != links[0].URI ||
		blocks[2]["name"] != "a b.md" {
		t.Errorf("session/prompt blocks %v, want the text then a resource_link per link", blocks)
	}
	var user proto.Entry
	for _, e := range r.mux.Transcript(m.ID) {
		if e.Kind == proto.EntryUser {
			user = e
		}
	}
	if !slices.Equal(user.Links, links) {
		t.Errorf("the user entry keeps links %+v, want %+v", user.Links, links)
	}

	sent := len(r.requests("session/prompt"))
	for _, bad := range []proto.Link{
		{URI: "https://example.com/x", Name: "x"},
		{URI: "file://host/etc/passwd", Name: "passwd"},
		{URI: "file:relative.go", Name: "relative.go"},
		{URI: "file:///a.go", Name: "a\x1b]0;X\a.go"},
		{URI: "file:///a.go", Name: ""},
	} {
		if _, err := r.mux.Prompt(ctx, m.ID, "hello", bad); err == nil {
			t.Errorf("link %+v was taken", bad)
		}
	}
	if n := len(r.requests("session/prompt")); n != sent {
		t.Errorf("%d session/prompt sent for refused links", n-sent)
	}
}
