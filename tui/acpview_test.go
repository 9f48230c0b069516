package tui

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	"github.com/acpmux/acpmux-tui/tui/transcript"
)

// The ACP chat goldens: a focused chat whose transcript holds each kind
// of entry and whose agent asks to edit a file, at 120x72, folded and
// opened by the fold key, with the ASCII profile and with 256 colours.

const acpGoldenW, acpGoldenH = 120, 72

func acpPtr(s string) *string { return &s }

// acpReport is an agent's markdown with each kind of block.
const acpReport = "# Parser report\n\n" +
	"The tokenizer is **flaky** on *nested* quotes: `scan()` loses its place ([issue](https://example.org/i/7)).\n\n" +
	"1. read `parser.go`\n2. fixed the quote state\n   - nested quotes\n\n" +
	"| test | before | after |\n| :--- | ---: | :---: |\n| TestQuotes | fail | ok |\n\n" +
	"```go\nfunc (s *scanner) quote() string {\n\ts.state = 0 // the bug\n\treturn \"\\\"\"\n}\n```"

// acpEntries is a transcript holding each kind of entry.
func acpEntries() []proto.Entry {
	at := goldenNow
	old := "package parser\n\nfunc scan() {\n\tstate := 1\n}\n"
	return []proto.Entry{
		{Kind: proto.EntryUser, Text: "Why is the parser flaky?", At: at, Links: []proto.Link{{URI: "file:///home/me/src/app/main.go", Name: "main.go"}}},
		{Kind: proto.EntryThought, Text: strings.Repeat("thinking ", 37), At: at},
		{Kind: proto.EntryTool, Title: "Edit parser.go", ToolKind: "edit", ToolStatus: "completed", At: at,
			Locations: []proto.Location{{Path: "parser.go"}},
			Content: []proto.ToolContent{{Type: proto.ToolContentDiff, Path: "parser.go", OldText: acpPtr(old),
				NewText: strings.Replace(old, "state := 1", "state := 0", 1)}}},
		{Kind: proto.EntryTool, Title: "Write quote_test.go", ToolKind: "edit", ToolStatus: "in_progress", At: at,
			Content: []proto.ToolContent{{Type: proto.ToolContentDiff, Path: "quote_test.go", NewText: "package parser\n\nfunc TestQuotes() {}\n"}}},
		{Kind: proto.EntryTool, Title: "go test ./parser", ToolKind: "execute", ToolStatus: "failed", At: at,
			Content: []proto.ToolContent{{Type: proto.ToolContentTerminal, Text: "--- FAIL: TestQuotes\nFAIL\tparser\t0.004s\n"}}},
		{Kind: proto.EntryTool, Title: "go vet ./parser", ToolKind: "execute", ToolStatus: "completed", At: at,
			Content: []proto.ToolContent{{Type: proto.ToolContentTerminal, Text: "ok\n"}}},
		{Kind: proto.EntryPlan, At: at, PlanItems: []proto.PlanItem{
			{Content: "Find the flaky test", Priority: "high", Status: "completed"},
			{Content: "Fix the quote state", Priority: "medium", Status: "in_progress"},
			{Content: "Write a regression test", Priority: "low", Status: "pending"},
		}},
		{Kind: proto.EntryAgent, Text: acpReport, At: at},
	}
}

// acpAsking is the chat's state: a turn running, the agent asking to
// edit a file.
func acpAsking() proto.State {
	old := "a\nb\n"
	return proto.State{Status: proto.StatusRunning, TurnActive: true, Transport: "acp", Permission: &proto.Permission{
		Title: "Edit main.go", Kind: "edit", Pending: 1, Seq: 1,
		Options: []proto.PermissionOption{{ID: "allow", Name: "Allow"}, {ID: "reject", Name: "Reject"}},
		Content: []proto.ToolContent{{Type: proto.ToolContentDiff, Path: "main.go", OldText: &old, NewText: "a\nB\nc\n"}},
	}}
}

// acpGoldenModel is the app on one ACP chat holding acpEntries, drawn by
// r (with colour when colour is set).
func acpGoldenModel(t *testing.T, r *lipgloss.Renderer, colour bool) *Model {
	t.Helper()
	entries := []sessions.Entry{{ID: "p4rs3r", Meta: &sessions.Meta{ID: "p4rs3r", Name: "fix the parser", Harness: "claude-acp", Cwd: "/home/me/src/app"}}}
	fake := newFakeMux(nil)
	fake.transcripts["p4rs3r"] = acpEntries()
	fake.states["p4rs3r"] = acpAsking()
	return goldenModelWith(t, entries, fake, func(o *Options) { o.Renderer, o.NoColor = r, !colour })
}

// runACPGolden focuses the chat, sends keys, waits for want and compares
// the final frame with the golden file.
func runACPGolden(t *testing.T, m *Model, want string, keys ...tea.KeyMsg) {
	t.Helper()
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(acpGoldenW, acpGoldenH))
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	for _, k := range keys {
		tm.Send(k)
	}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(want)) },
		teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	teatest.RequireEqualOutput(t, []byte(final.View()))
}

func colourRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.ANSI256)
	r.SetHasDarkBackground(true)
	return r
}

var keyFold = tea.KeyMsg{Type: tea.KeyCtrlO}

func TestGoldenACPChat(t *testing.T) {
	runACPGolden(t, acpGoldenModel(t, asciiRenderer(), false), "+B")
}

func TestGoldenACPChatOpened(t *testing.T) {
	runACPGolden(t, acpGoldenModel(t, asciiRenderer(), false), "thinking", keyFold)
}

func TestGoldenACPChatColour(t *testing.T) {
	runACPGolden(t, acpGoldenModel(t, colourRenderer(), true), "Allow")
}

func TestGoldenACPChatColourOpened(t *testing.T) {
	runACPGolden(t, acpGoldenModel(t, colourRenderer(), true), "thinking", keyFold)
}

// setTranscript gives the rig's chat entries and state and tells the app.
func (r *rig) setTranscript(id string, st proto.State, entries []proto.Entry) {
	r.fake.mu.Lock()
	r.fake.transcripts[id] = entries
	r.fake.mu.Unlock()
	r.fake.set(id, st, "")
	r.m.Update(chatsChangedMsg{ids: []string{id}})
}

// TestACPFoldKeyOpensCardsAndThoughts: ctrl+o in a focused ACP chat opens
// every completed card and thought, and folds them again; it is never
// typed into the prompt.
func TestACPFoldKeyOpensCardsAndThoughts(t *testing.T) {
	r, id := openACP(t)
	r.m.Update(tea.WindowSizeMsg{Width: 120, Height: 60})
	running := proto.State{Status: proto.StatusRunning, TurnActive: true}
	r.setTranscript(id, running, acpEntries())
	// The whole transcript, as laid out: the pane shows its end.
	all := func() string {
		tv := r.m.pane.transcript
		return ansi.Strip(strings.Join(tv.Window(0, tv.Len()), "\n"))
	}
	v := all()
	if !strings.Contains(v, "▸ thought · 333 chars") || !strings.Contains(v, "✎ Edit parser.go ✓ · parser.go") || strings.Contains(v, "state := 0") {
		t.Fatalf("folded:\n%s", v)
	}
	if h := ansi.Strip(r.m.View()); !strings.Contains(h, "ctrl+o open/fold cards") {
		t.Errorf("the help bar does not name the fold key:\n%s", h)
	}
	r.key(keyFold)
	v = all()
	if !strings.Contains(v, "▾ thought") || !strings.Contains(v, "+    state := 0") {
		t.Fatalf("ctrl+o did not open them:\n%s", v)
	}
	if !strings.Contains(ansi.Strip(r.m.View()), "+    state := 0") {
		t.Fatal("the pane does not show the opened card")
	}
	r.key(keyFold)
	v = all()
	if strings.Contains(v, "▾ thought") || strings.Contains(v, "state := 0") {
		t.Fatalf("ctrl+o again did not fold them:\n%s", v)
	}
	if strings.Contains(r.m.pane.input.Value(), "\x0f") {
		t.Error("ctrl+o was typed into the prompt")
	}
}

// TestACPScrolledBackStaysPut: scrolled back while the agent writes, the
// lines the user reads stay where they are.
func TestACPScrolledBackStaysPut(t *testing.T) {
	r, id := openACP(t)
	running := proto.State{Status: proto.StatusRunning, TurnActive: true}
	var entries []proto.Entry
	for i := range 40 {
		entries = append(entries, proto.Entry{Kind: proto.EntryAgent, Text: "line " + string(rune('A'+i%26)) + strings.Repeat("x", i)})
	}
	r.setTranscript(id, running, entries)
	r.m.pane.ScrollBy(10)
	before := r.m.pane.View()
	// The agent writes: its last message grows, a tool card comes.
	entries[len(entries)-1].Text += "\n\nmore words\n\nand more"
	entries = append(entries, proto.Entry{Kind: proto.EntryTool, Title: "Read x", ToolStatus: "in_progress"})
	r.setTranscript(id, running, entries)
	after := r.m.pane.View()
	if strings.Join(before[:8], "\n") != strings.Join(after[:8], "\n") {
		t.Fatalf("the lines moved while scrolled back:\n%s\n--- after:\n%s", strings.Join(before[:8], "\n"), strings.Join(after[:8], "\n"))
	}
	if r.m.pane.Scrolled() <= 10 {
		t.Fatalf("the offset did not grow: %d", r.m.pane.Scrolled())
	}
	// At the bottom, the pane follows the agent.
	r.m.pane.ScrollBy(-1000)
	entries = append(entries, proto.Entry{Kind: proto.EntryAgent, Text: "the newest words"})
	r.setTranscript(id, running, entries)
	if !strings.Contains(strings.Join(r.m.pane.View(), "\n"), "the newest words") {
		t.Fatal("the live pane does not show what the agent wrote last")
	}
}

// TestACPPermissionCardShowsTheEdit: the card shows the diff of the edit
// it asks about above its options, bounded with a count of the rest.
func TestACPPermissionCardShowsTheEdit(t *testing.T) {
	r, id := openACP(t)
	st := acpAsking()
	st.Permission.Content = []proto.ToolContent{{Type: proto.ToolContentDiff, Path: "gen.go", NewText: strings.Repeat("var x = 1\n", 40)}}
	r.setTranscript(id, st, nil)
	v := ansi.Strip(r.m.View())
	for _, want := range []string{"⚠ permission: Edit main.go", "gen.go (new file)", "+var x = 1", " more lines", "1 Allow · 2 Reject"} {
		if !strings.Contains(v, want) {
			t.Errorf("%q not on the card:\n%s", want, v)
		}
	}
	if i, j := strings.Index(v, "gen.go (new file)"), strings.Index(v, "1 Allow"); i < 0 || j < i {
		t.Error("the diff is not above the options")
	}
	st.Permission = &proto.Permission{Title: "Run make", Kind: "execute", Seq: 2, Pending: 1,
		Options: []proto.PermissionOption{{ID: "allow", Name: "Allow"}},
		Content: []proto.ToolContent{{Type: proto.ToolContentText, Text: "make clean all"}}}
	r.setTranscript(id, st, nil)
	if v := ansi.Strip(r.m.View()); !strings.Contains(v, "│ make clean all") {
		t.Errorf("the command is not on the card:\n%s", v)
	}
}

// sgrSeq matches an SGR sequence.
var sgrSeq = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// TestACPHostileMessageDrawnSafely: escapes, OSC 52 and 8 and a bidi
// override inside a code fence and a diff, and a 10 MB message: the frame
// holds no sequence but SGR, and the 10 MB message lays out a bounded
// number of lines, folded with its size.
func TestACPHostileMessageDrawnSafely(t *testing.T) {
	r, id := openACP(t)
	evil := "\x1b[2J\x1b]52;c;cHduZWQ=\x07\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\\u202eevil"
	huge := strings.Repeat("# heading\n\nsome *markdown* text\n\n", 10<<20/33+1)
	entries := []proto.Entry{
		{Kind: proto.EntryAgent, Text: "```sh\necho " + evil + "\n```\n"},
		{Kind: proto.EntryTool, Title: "Edit", ToolStatus: "failed", Content: []proto.ToolContent{
			{Type: proto.ToolContentDiff, Path: "x.go", OldText: acpPtr("a\n"), NewText: "a\n" + evil + "\n"}}},
		{Kind: proto.EntryAgent, Text: huge},
	}
	r.setTranscript(id, proto.State{Status: proto.StatusRunning}, entries)
	frame := r.m.View()
	if rest := sgrSeq.ReplaceAllString(frame, ""); strings.ContainsAny(rest, "\x1b\x07\u202e") {
		t.Fatalf("a sequence other than SGR reached the frame:\n%q", frame)
	}
	if !strings.Contains(frame, "(10.0 MB, ") || !strings.Contains(frame, "lines not shown; ctrl+o shows more)") {
		t.Fatalf("the 10 MB message is not folded with its size:\n%s", frame)
	}
	if n := r.m.pane.transcript.Len(); n > 100 {
		t.Fatalf("the folded 10 MB message laid out %d lines", n)
	}
	r.key(keyFold)
	if n := r.m.pane.transcript.Len(); n > 2*2000+100 {
		t.Fatalf("the opened 10 MB message laid out %d lines", n)
	}
}

// TestACPCopyToClipboard: ctrl+y puts the last agent message's markdown
// on the terminal's clipboard (OSC 52 between frames), alt+y its last code
// block; with none, nothing is written and the status line says so.
func TestACPCopyToClipboard(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "agent", Harness: "opencode"})
	var emitted []string
	r.open(Options{Emit: func(seq string) {
		if strings.HasPrefix(seq, "\x1b]52;") { // not the window's title
			emitted = append(emitted, seq)
		}
	}})
	r.key(keyEnter)
	r.setTranscript(a.ID, proto.State{Status: proto.StatusRunning}, []proto.Entry{
		{Kind: proto.EntryAgent, Text: "first"},
		{Kind: proto.EntryUser, Text: "again"},
		{Kind: proto.EntryAgent, Text: "# Done\n\n```go\nx := 1\n```\n\n```sh\nmake\n```\n"},
		{Kind: proto.EntryTool, Title: "Read", ToolStatus: "completed"},
	})
	r.key(tea.KeyMsg{Type: tea.KeyCtrlY})
	want := osc52("# Done\n\n```go\nx := 1\n```\n\n```sh\nmake\n```\n")
	if len(emitted) != 1 || emitted[0] != want || !strings.Contains(r.m.View(), "copied the agent's message to the clipboard") {
		t.Fatalf("ctrl+y wrote %q, want %q", emitted, want)
	}
	r.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y"), Alt: true})
	if len(emitted) != 2 || emitted[1] != osc52("make") {
		t.Fatalf("alt+y wrote %q", emitted)
	}
	if strings.Contains(r.m.pane.input.Value(), "y") {
		t.Error("alt+y was typed into the prompt")
	}
	r.setTranscript(a.ID, proto.State{Status: proto.StatusRunning}, []proto.Entry{{Kind: proto.EntryAgent, Text: "no code"}})
	r.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y"), Alt: true})
	if len(emitted) != 2 || !strings.Contains(r.m.View(), "nothing copied: no code block") {
		t.Fatalf("alt+y with no code block wrote %q:\n%s", emitted, r.m.View())
	}
}

// TestACPFindInTranscript: ctrl+f opens the search line; typing finds the
// newest match and scrolls to it, highlighted; enter goes to the older
// one, ctrl+p back; ctrl+y copies the message holding the match; esc
// closes the line and keys go to the prompt again.
func TestACPFindInTranscript(t *testing.T) {
	r := newRig(t, nil)
	a := r.create(sessions.NewChat{Name: "agent", Harness: "opencode"})
	var emitted []string
	r.open(Options{Emit: func(seq string) {
		if strings.HasPrefix(seq, "\x1b]52;") {
			emitted = append(emitted, seq)
		}
	}})
	r.key(keyEnter)
	entries := []proto.Entry{{Kind: proto.EntryAgent, Text: "the needle is here, early"}}
	for i := range 30 {
		entries = append(entries, proto.Entry{Kind: proto.EntryAgent, Text: "filler " + strings.Repeat("x", i)})
	}
	entries = append(entries, proto.Entry{Kind: proto.EntryAgent, Text: "a NEEDLE again, late"}, proto.Entry{Kind: proto.EntryUser, Text: "last"})
	r.setTranscript(a.ID, proto.State{Status: proto.StatusRunning}, entries)
	r.key(tea.KeyMsg{Type: tea.KeyCtrlF})
	if v := r.m.View(); !strings.Contains(v, "find: ▏ · type to search") || !strings.Contains(v, "older match") {
		t.Fatalf("ctrl+f did not open the search line:\n%s", v)
	}
	r.typeText("needle")
	v := r.m.View()
	if !strings.Contains(v, "find: needle▏ · 2 of 2") || !strings.Contains(v, "a NEEDLE again, late") {
		t.Fatalf("the newest match is not shown:\n%s", v)
	}
	if r.m.pane.input.Value() != "" {
		t.Fatalf("the search went into the prompt: %q", r.m.pane.input.Value())
	}
	r.key(keyEnter)
	v = r.m.View()
	if !strings.Contains(v, "1 of 2") || !strings.Contains(v, "the needle is here, early") || r.m.pane.Scrolled() == 0 {
		t.Fatalf("enter did not go to the older match:\n%s", v)
	}
	r.key(tea.KeyMsg{Type: tea.KeyCtrlY})
	if len(emitted) != 1 || emitted[0] != osc52("the needle is here, early") {
		t.Fatalf("ctrl+y in the search copied %q", emitted)
	}
	r.key(tea.KeyMsg{Type: tea.KeyCtrlP})
	if v := r.m.View(); !strings.Contains(v, "2 of 2") {
		t.Fatalf("ctrl+p did not go back to the newer match:\n%s", v)
	}
	r.key(keyEscK)
	r.typeText("hi")
	if v := r.m.View(); strings.Contains(v, "find:") || r.m.pane.input.Value() != "hi" {
		t.Fatalf("esc did not close the search line (prompt %q):\n%s", r.m.pane.input.Value(), v)
	}
}

// TestACPFindHighlightsMatches: each match is drawn reversed, the one
// shown in the warning colour too, whatever styles the line had.
func TestACPFindHighlightsMatches(t *testing.T) {
	st := NewStyles(colourRenderer(), true)
	p := &ChatPane{c: &Common{Styles: st}, find: finder{on: true, query: "THE w", hits: []transcript.Hit{{Line: 3}}}}
	line := "find " + st.Bold.Render("the") + " word, the word"
	shown, other := p.findMark(line, 3), p.findMark(line, 4)
	if want := "find " + st.Redacted.Render("the w") + "ord, " + st.Redacted.Render("the w") + "ord"; shown != want {
		t.Errorf("the shown match's line:\n%q\nwant\n%q", shown, want)
	}
	if want := "find " + st.Cursor.Render("the w") + "ord, " + st.Cursor.Render("the w") + "ord"; other != want {
		t.Errorf("another match's line:\n%q\nwant\n%q", other, want)
	}
	if got := p.findMark("nothing here", 5); got != "nothing here" {
		t.Errorf("a line without a match changed: %q", got)
	}
}

// TestACPStoppedChatCanBeRead: a stopped ACP chat takes no prompt, but its
// conversation is there to read: ctrl+o opens the cards, ctrl+f finds in
// the transcript (enter goes to the older match, not a restart), esc
// closes the search, and any other key still says how to start it.
func TestACPStoppedChatCanBeRead(t *testing.T) {
	r, id := openACP(t)
	r.m.Update(tea.WindowSizeMsg{Width: 120, Height: 60})
	entries := append(acpEntries(), proto.Entry{Kind: proto.EntryAgent, Text: "a needle, late"})
	r.setTranscript(id, proto.State{Status: proto.StatusExited, Exit: "exit status 0"}, entries)
	if !r.m.pane.Stopped() {
		t.Fatal("the chat is not taken for stopped")
	}
	all := func() string {
		tv := r.m.pane.transcript
		return ansi.Strip(strings.Join(tv.Window(0, tv.Len()), "\n"))
	}
	r.key(keyFold)
	if v := all(); !strings.Contains(v, "+    state := 0") {
		t.Fatalf("ctrl+o did not open the stopped chat's cards:\n%s", v)
	}
	r.key(tea.KeyMsg{Type: tea.KeyCtrlF})
	r.typeText("needle")
	if v := r.m.View(); !strings.Contains(v, "find: needle▏ · 1 of 1") {
		t.Fatalf("ctrl+f did not search the stopped chat:\n%s", v)
	}
	before := len(r.fake.Calls())
	r.key(keyEnter)
	if slices.Contains(r.fake.Calls()[before:], "start "+id) {
		t.Fatal("enter in the search started the chat")
	}
	r.key(keyEscK)
	r.typeText("x")
	if v := r.m.View(); strings.Contains(v, "find:") || !strings.Contains(v, "is not running") {
		t.Fatalf("after esc a key does not say the chat is not running:\n%s", v)
	}
}
