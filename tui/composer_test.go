package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/acpmux/acpmux-tui/config"
	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/mention"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// promptLinkMux is the fake mux that keeps the links each prompt carried.
type promptLinkMux struct {
	*fakeMux
	mu      sync.Mutex
	prompts []sentPrompt
}

type sentPrompt struct {
	text  string
	links []proto.Link
}

func (l *promptLinkMux) Prompt(ctx context.Context, id, text string, links ...proto.Link) (string, error) {
	l.mu.Lock()
	l.prompts = append(l.prompts, sentPrompt{text, links})
	l.mu.Unlock()
	return l.fakeMux.Prompt(ctx, id, text, links...)
}

func (l *promptLinkMux) sent() []sentPrompt {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.prompts)
}

var testCommands = []proto.Command{
	{Name: "init", Description: "write an AGENTS.md for this project"},
	{Name: "review", Description: "review the changes of the branch", Hint: "what to look at"},
	{Name: "compact", Description: "summarise the conversation to free context"},
	{Name: "pr-comments", Description: "answer the comments of a pull request"},
}

// openComposer opens the TUI on one ACP chat (made by n, harness opencode)
// with the pane focused, the agent offering testCommands, over a mux that
// keeps the prompts' links.
func openComposer(t *testing.T, n sessions.NewChat) (*rig, *promptLinkMux, string) {
	t.Helper()
	r := newRig(t, nil)
	n.Name, n.Harness = "agent", "opencode"
	a := r.create(n)
	lm := &promptLinkMux{fakeMux: r.fake}
	r.open(Options{Mux: lm})
	r.fake.set(a.ID, proto.State{Status: proto.StatusRunning, Commands: testCommands}, "")
	r.m.Update(chatsChangedMsg{ids: []string{a.ID}})
	r.key(keyEnter)
	if !r.m.pane.IsACP() || !r.m.pane.Focused() {
		t.Fatal("the ACP chat's pane is not focused")
	}
	return r, lm, a.ID
}

func TestComposerSlashOffersFiltersAndCompletesCommands(t *testing.T) {
	r, lm, id := openComposer(t, sessions.NewChat{})
	if v := r.m.View(); !strings.Contains(v, "/ commands • @ files • ↑ history") || !strings.Contains(v, "ctrl+] back to list") {
		t.Fatalf("the help bar of an empty prompt does not name / @ and the history whole:\n%s", v)
	}
	r.typeText("/")
	v := r.m.View()
	for _, want := range []string{"commands of the agent", "/init", "/review", "review the changes of the branch", "/compact"} {
		if !strings.Contains(v, want) {
			t.Fatalf("the popup after / lacks %q:\n%s", want, v)
		}
	}
	// Prefix matches first, then fuzzy ones: "c" starts compact, and is
	// inside pr-comments.
	r.typeText("c")
	items := r.m.pane.input.items
	if got := labels(items); !slices.Equal(got, []string{"/compact", "/pr-comments"}) {
		t.Fatalf("the popup after /c offers %q", got)
	}
	if v := r.m.View(); !strings.Contains(v, "tab/enter complete") || !strings.Contains(v, "esc close") {
		t.Fatalf("the help bar does not name the popup's keys:\n%s", v)
	}
	r.key(keyOf(tea.KeyDown))
	if r.m.pane.input.sel != 1 {
		t.Fatalf("down did not move to the second row (sel %d)", r.m.pane.input.sel)
	}
	r.key(keyOf(tea.KeyTab))
	if got := r.m.pane.input.Value(); got != "/pr-comments " {
		t.Fatalf("tab completed %q", got)
	}
	if r.m.pane.input.kind != popupNone {
		t.Fatal("the popup stays open after completing")
	}

	// Enter completes too, and the hint shows dimmed while the prompt is
	// the command alone.
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText("/rev")
	r.key(keyEnter)
	if got := r.m.pane.input.Value(); got != "/review " {
		t.Fatalf("enter completed %q", got)
	}
	if v := r.m.View(); !strings.Contains(v, "/review what to look at") {
		t.Fatalf("the hint is not shown:\n%s", v)
	}
	if len(lm.sent()) != 0 {
		t.Fatalf("completing sent a prompt: %+v", lm.sent())
	}
	r.typeText("the parser")
	r.key(keyEnter)
	if s := lm.sent(); len(s) != 1 || s[0].text != "/review the parser" {
		t.Fatalf("sent %+v", s)
	}

	// Esc closes the popup only: the running turn is not cancelled, and
	// the popup stays closed until the token changes.
	r.fake.set(id, proto.State{Status: proto.StatusRunning, TurnActive: true, Commands: testCommands}, "")
	r.m.Update(chatsChangedMsg{ids: []string{id}})
	r.typeText("/i")
	if !r.m.pane.input.PopupOpen() {
		t.Fatal("no popup after /i")
	}
	r.key(keyOf(tea.KeyEsc))
	if r.m.pane.input.kind != popupNone || r.m.pane.input.Value() != "/i" {
		t.Fatalf("esc: popup %v, prompt %q", r.m.pane.input.kind, r.m.pane.input.Value())
	}
	if slices.ContainsFunc(r.fake.Calls(), func(c string) bool { return strings.HasPrefix(c, "cancel") }) {
		t.Fatal("esc on the popup cancelled the turn")
	}
	r.typeText("n")
	if got := labels(r.m.pane.input.items); !slices.Equal(got, []string{"/init"}) {
		t.Fatalf("typing on after esc offers %q", got)
	}

	// A / later in the prompt is text.
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText("a /")
	if r.m.pane.input.kind != popupNone {
		t.Fatal("a / after the start opened the popup")
	}
}

func labels(items []popupItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.label)
	}
	return out
}

// mentionTree makes a chat's folders: app (its folder) with files, hidden
// and heavy folders and a link out of it, lib (an additional folder), and
// a single file outside both.
func mentionTree(t *testing.T, root string) sessions.NewChat {
	t.Helper()
	for _, f := range []string{
		"app/src/parser.go", "app/src/parser_test.go", "app/README.md", "app/docs/par/sing.md",
		"app/.git/config", "app/node_modules/x/index.js", "app/.env",
		"lib/util.go", "outside/secret.txt", "specs/api.md",
	} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "outside/secret.txt"), filepath.Join(root, "app/leak.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "outside"), filepath.Join(root, "app/out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "lib/util.go"), filepath.Join(root, "app/util-link.go")); err != nil {
		t.Fatal(err)
	}
	return sessions.NewChat{
		Cwd: filepath.Join(root, "app"), AdditionalDirectories: []string{filepath.Join(root, "lib")},
		AdditionalFiles: []string{filepath.Join(root, "specs/api.md")},
	}
}

func TestComposerMentionPutsAChipAndSendsItsLink(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r, lm, _ := openComposer(t, mentionTree(t, root))
	r.typeText("look at @")
	in := &r.m.pane.input
	got := labels(in.items)
	want := []string{filepath.Join(root, "specs/api.md"), "README.md", "docs/par/sing.md", "src/parser.go", "src/parser_test.go", "util-link.go", "lib/util.go"}
	if !slices.Equal(got, want) {
		t.Fatalf("@ offers %q, want %q", got, want)
	}
	r.typeText("pars")
	if got := labels(in.items); len(got) < 2 || got[0] != "src/parser.go" || got[1] != "src/parser_test.go" {
		t.Fatalf("@pars offers %q", got)
	}
	r.key(keyEnter)
	if v := in.Value(); v != "look at @parser.go " {
		t.Fatalf("the prompt after choosing: %q", v)
	}
	r.typeText("and @api")
	r.key(keyOf(tea.KeyTab))
	r.typeText("please")
	if v := r.m.View(); !strings.Contains(v, "look at @parser.go and @api.md please") {
		t.Fatalf("the chips are not in the prompt:\n%s", v)
	}
	r.key(keyEnter)
	s := lm.sent()
	if len(s) != 1 {
		t.Fatalf("sent %+v", s)
	}
	wantLinks := []proto.Link{
		{URI: "file://" + filepath.Join(root, "app/src/parser.go"), Name: "parser.go"},
		{URI: "file://" + filepath.Join(root, "specs/api.md"), Name: "api.md"},
	}
	if s[0].text != "look at @parser.go and @api.md please" || !slices.Equal(s[0].links, wantLinks) {
		t.Fatalf("sent %q with %+v, want links %+v", s[0].text, s[0].links, wantLinks)
	}

	// A chip whose token is cut loses its link.
	r.typeText("see @util")
	r.key(keyOf(tea.KeyTab))
	if v := in.Value(); v != "see @util-link.go " && v != "see @util.go " {
		t.Fatalf("the prompt after choosing a util: %q", v)
	}
	r.key(keyOf(tea.KeyBackspace), keyOf(tea.KeyBackspace))
	if len(in.chips) != 0 {
		t.Fatalf("the chip outlived its token: %+v", in.chips)
	}
	// The cut token offers the files again; esc closes that.
	r.key(keyOf(tea.KeyEsc), keyEnter)
	if s := lm.sent(); len(s) != 2 || len(s[1].links) != 0 {
		t.Fatalf("the second prompt: %+v", s[len(s)-1])
	}
}

func TestComposerMentionNeverLeavesTheFolders(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	n := mentionTree(t, root)
	files, full := mention.Walk(append([]string{n.Cwd}, n.AdditionalDirectories...), 100, 12, true)
	var got []string
	for _, f := range files {
		got = append(got, f.Label)
	}
	want := []string{"README.md", "docs/par/sing.md", "src/parser.go", "src/parser_test.go", "util-link.go", "lib/util.go"}
	if full || !slices.Equal(got, want) {
		t.Fatalf("walk: %q (full %v), want %q", got, full, want)
	}
	// A file's name is outside text: its label is cleaned, and so is
	// the chip's token made of it.
	evil := filepath.Join(n.Cwd, "evil\x1b]0;pwned\x07\u202e.go")
	if err := os.WriteFile(evil, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, _ = mention.Walk([]string{n.Cwd}, 100, 12, true)
	comp := NewComposer(&Common{Styles: NewStyles(asciiRenderer(), false)}, nil, time.Now)
	for _, f := range files {
		if f.Path == evil {
			if strings.ContainsAny(f.Label, "\x1b\x07\u202e") || !strings.HasPrefix(f.Label, "evil") {
				t.Fatalf("the label %q is not clean", f.Label)
			}
			if tok := comp.chipToken(popupItem{label: f.Label, path: f.Path}); strings.ContainsAny(tok, "\x1b\x07\u202e") {
				t.Fatalf("the chip's token %q is not clean", tok)
			}
		}
	}
	// The bounds: files and depth.
	if files, full := mention.Walk([]string{n.Cwd}, 2, 12, true); len(files) != 2 || !full {
		t.Fatalf("two files at most: %d listed, full %v", len(files), full)
	}
	files, _ = mention.Walk([]string{n.Cwd}, 100, 1, true)
	for _, f := range files {
		if strings.Contains(f.Label, "/") {
			t.Fatalf("depth 1 listed %q", f.Label)
		}
	}
}

func TestComposerHistoryWalksPastPromptsAndKeepsTheDraft(t *testing.T) {
	r, _, id := openComposer(t, sessions.NewChat{})
	r.fake.mu.Lock()
	r.fake.transcripts[id] = []proto.Entry{
		{Kind: proto.EntryUser, Text: "first"}, {Kind: proto.EntryAgent, Text: "echo: first"},
		{Kind: proto.EntryUser, Text: "second"},
	}
	r.fake.mu.Unlock()
	r.typeText("third")
	r.key(keyEnter)
	in := &r.m.pane.input
	r.typeText("a draft")
	up, down := keyOf(tea.KeyUp), keyOf(tea.KeyDown)
	var seen []string
	for _, k := range []tea.KeyMsg{up, up, up, up, down, down, down, down} {
		r.key(k)
		seen = append(seen, in.Value())
	}
	want := []string{"third", "second", "first", "first", "second", "third", "a draft", "a draft"}
	if !slices.Equal(seen, want) {
		t.Fatalf("up and down showed %q, want %q", seen, want)
	}
	// An edited past prompt is the draft then.
	r.key(up)
	r.typeText("!")
	r.key(up, down)
	if v := in.Value(); v != "third!" {
		t.Fatalf("the edited prompt came back as %q", v)
	}
	// Up in a prompt of several lines moves the cursor, not the history.
	r.key(keyOf(tea.KeyCtrlU))
	r.typeText("one")
	r.key(tea.KeyMsg{Type: tea.KeyEnter, Alt: true})
	r.typeText("two")
	r.key(up)
	if v := in.Value(); v != "one\ntwo" {
		t.Fatalf("up in two lines showed %q", v)
	}
}

// TestComposerKeepsEachChatsDraft: a prompt left unsent in a chat, with
// its chip, is there again when the chat is shown again; another chat's
// prompt is its own.
func TestComposerKeepsEachChatsDraft(t *testing.T) {
	comp := NewComposer(&Common{Styles: NewStyles(asciiRenderer(), false)}, nil, time.Now)
	comp.SetWidth(60)
	comp.Focus()
	comp.SetChat("a")
	comp.FilesListed(mentionFilesMsg{id: "a", at: time.Now(), files: []mention.File{{Path: "/p/src/parser.go", Label: "src/parser.go", Match: "src/parser.go"}}})
	for _, r := range "fix @pars" {
		comp.Type(runeKey(r))
	}
	comp.HandleKey(keyOf(tea.KeyTab), nil)
	comp.SetChat("b")
	if v := comp.Value(); v != "" || len(comp.chips) != 0 {
		t.Fatalf("chat b shows %q with chips %+v", v, comp.chips)
	}
	comp.Type(runeKey('x'))
	comp.SetChat("a")
	if v := comp.Value(); v != "fix @parser.go " || len(comp.chips) != 1 {
		t.Fatalf("chat a's draft came back as %q with chips %+v", v, comp.chips)
	}
	if _, links := comp.Take(); len(links) != 1 || links[0].URI != "file:///p/src/parser.go" {
		t.Fatalf("the draft's link: %+v", links)
	}
	comp.SetChat("b")
	if v := comp.Value(); v != "x" {
		t.Fatalf("chat b's draft came back as %q", v)
	}
}

// TestGoldenComposerPopups draws the composer's popups at a fixed size:
// the commands after /, and the files after @ with a chip in the prompt.
func TestGoldenComposerPopups(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii) // the text area draws with the default renderer
	c := &Common{Styles: NewStyles(asciiRenderer(), false)}
	comp := NewComposer(c, nil, func() time.Time { return goldenNow })
	comp.SetWidth(60)
	comp.SetChat("k3x9q2")
	comp.SetCommands(append(slices.Clone(testCommands), proto.Command{Name: "a-command-with-a-very-long-name-indeed", Description: "and a description far too long to fit in the width of the popup"}))
	comp.Focus()
	var out []string
	draw := func(title string) {
		out = append(out, "── "+title)
		out = append(out, comp.PopupView(10)...)
		out = append(out, strings.Split(comp.View(), "\n")...)
	}
	typeIn := func(s string) {
		for _, r := range s {
			comp.Type(runeKey(r))
		}
	}
	typeIn("/")
	draw("/")
	typeIn("c")
	comp.HandleKey(keyOf(tea.KeyDown), nil)
	draw("/c, down")
	comp.HandleKey(keyOf(tea.KeyEsc), nil)
	draw("esc")
	comp.reset()
	typeIn("@")
	draw("@, the files not listed yet")
	comp.reset()
	comp.FilesListed(mentionFilesMsg{id: "k3x9q2", at: goldenNow, files: []mention.File{
		{Path: "/home/me/specs/api.md", Label: "/home/me/specs/api.md", Match: "specs/api.md", Own: true},
		{Path: "/home/me/src/app/README.md", Label: "README.md", Match: "README.md"},
		{Path: "/home/me/src/app/src/parser.go", Label: "src/parser.go", Match: "src/parser.go"},
		{Path: "/home/me/src/lib/util.go", Label: "lib/util.go", Match: "lib/util.go"},
	}})
	typeIn("fix @")
	draw("fix @")
	typeIn("par")
	draw("fix @par")
	comp.HandleKey(keyOf(tea.KeyTab), nil)
	typeIn("now")
	draw("tab, now")
	teatest.RequireEqualOutput(t, []byte(strings.Join(out, "\n")+"\n"))
}

// oneChatLists is a store of one chat, whatever the id asked.
type oneChatLists struct {
	ChatLists
	meta *sessions.Meta
}

func (h oneChatLists) Chat(id string) (sessions.Entry, error) {
	return sessions.Entry{ID: id, Meta: h.meta}, nil
}

// hostFilesLists is a store of one chat whose host's server lists files:
// it answers res and records each query.
type hostFilesLists struct {
	oneChatLists
	res     proto.FilesResult
	err     error
	queries *[]string
}

func (h hostFilesLists) Files(id, query string, limit int) (proto.FilesResult, error) {
	*h.queries = append(*h.queries, fmt.Sprintf("%s %q %d", id, query, limit))
	return h.res, h.err
}

// TestComposerMentionOfAnotherHost: a chat of another host has its files
// there: its host's server lists the best matches of the query (the whole
// id asked, the most files), a path that is not absolute is dropped, and a
// partial listing is asked again for a new query, a whole one only for a
// query it does not extend. A store that cannot ask says so.
func TestComposerMentionOfAnotherHost(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	n := mentionTree(t, root)
	var queries []string
	lists := hostFilesLists{oneChatLists: oneChatLists{meta: &sessions.Meta{Cwd: n.Cwd, AdditionalDirectories: n.AdditionalDirectories, AdditionalFiles: n.AdditionalFiles}}, queries: &queries,
		res: proto.FilesResult{Truncated: true, Note: "from the host", Files: []proto.FileMatch{
			{Path: "/far/notes.md", Name: "/far/notes.md", Own: true},
			{Path: "/far/proj/src/parser.go", Name: "src/parser.go"},
			{Path: "relative/evil.go", Name: "evil.go"},
		}}}
	msg := listMentionFiles(lists, "box:k3x9q2", "pa", time.Now)().(mentionFilesMsg)
	if fmt.Sprint(queries) != `[box:k3x9q2 "pa" 200]` {
		t.Fatalf("asked the host %v", queries)
	}
	if len(msg.files) != 2 || !msg.files[0].Own || msg.files[0].Match != "far/notes.md" || msg.files[1].Label != "src/parser.go" ||
		!msg.partial || msg.query != "pa" || msg.note != "from the host" {
		t.Fatalf("listing %+v", msg)
	}

	comp := NewComposer(&Common{Styles: NewStyles(asciiRenderer(), false)}, lists, time.Now)
	comp.SetChat("box:k3x9q2")
	comp.FilesListed(msg)
	for _, tc := range []struct {
		query   string
		partial bool
		again   bool
	}{{"pa", true, false}, {"par", true, true}, {"par", false, false}, {"pars", false, false}, {"p", false, true}} {
		comp.listings["box:k3x9q2"] = mentionListing{query: msg.query, partial: tc.partial, at: time.Now()}
		comp.listing, comp.query = "", tc.query
		if got := comp.listFiles() != nil; got != tc.again {
			t.Errorf("a listing of %q (partial %v), query %q: listed again %v", msg.query, tc.partial, tc.query, got)
		}
	}

	down := lists
	down.err = errors.New("the link to host box is down")
	if msg := listMentionFiles(down, "box:k3x9q2", "pa", time.Now)().(mentionFilesMsg); len(msg.files) != 0 || !msg.partial ||
		!strings.Contains(msg.note, "could not be listed: the link to host box is down") {
		t.Fatalf("a link down: %+v (asked again for the next query: partial)", msg)
	}
	msg = listMentionFiles(oneChatLists{meta: &sessions.Meta{}}, "box:k3x9q2", "", time.Now)().(mentionFilesMsg)
	if len(msg.files) != 0 || !strings.Contains(msg.note, "host box are not listed") {
		t.Fatalf("a store that cannot ask: %+v", msg)
	}
	local := listMentionFiles(lists, "k3x9q2", "pa", time.Now)().(mentionFilesMsg)
	if len(local.files) != 7 || local.note != "" || local.partial {
		t.Fatalf("a local chat's files: %d, note %q", len(local.files), local.note)
	}
}

// BenchmarkComposerFilter20000Files is one key press in the @ popup of a
// chat whose folders hold the walk's bound of files.
func BenchmarkComposerFilter20000Files(b *testing.B) {
	files := make([]mention.File, 0, mention.MaxFiles)
	for i := range mention.MaxFiles {
		l := fmt.Sprintf("internal/pkg%03d/sub%02d/file_name_%05d.go", i%300, i%37, i)
		files = append(files, mention.File{Label: l, Match: l})
	}
	mention.Prepare(files)
	for b.Loop() {
		filterFiles(files, "fname12")
	}
}

// TestGoldenComposerInThePane is the whole screen with the commands' popup
// open over an ACP chat's transcript, just above its input.
func TestGoldenComposerInThePane(t *testing.T) {
	fake := newFakeMux(nil)
	chats := goldenChats()[3:4]
	id := chats[0].ID
	fake.set(id, proto.State{Status: proto.StatusWaiting, Commands: testCommands}, "")
	m := goldenModel(t, chats, fake)
	msgs := []tea.Msg{tea.KeyMsg{Type: tea.KeyEnter}}
	for _, r := range "/re" {
		msgs = append(msgs, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	runGolden(t, m, []string{"commands of the agent", "> /review", "esc close"}, msgs...)
}

// BenchmarkComposerKeyEchoWhileStreaming is a key typed into an ACP chat's
// prompt while its agent streams a long message: one op is a chunk of the
// message laid out and drawn, then a key typed and its echo drawn (what
// the felt speed of typing there is made of).
func BenchmarkComposerKeyEchoWhileStreaming(b *testing.B) {
	fake := newFakeMux(nil)
	id := "k3y3ch"
	entries := []sessions.Entry{{ID: id, Meta: &sessions.Meta{ID: id, Name: "echo", Harness: "claude-acp", Cwd: "/home/me/src/app"}}}
	fake.states[id] = proto.State{Status: proto.StatusRunning, TurnActive: true, Commands: testCommands}
	fake.transcripts[id] = []proto.Entry{{Kind: proto.EntryUser, Text: "explain the parser"}}
	m := New(Options{Table: benchTable(b), Mux: fake, Renderer: asciiRenderer(), Entries: entries, Tick: -1})
	b.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if !m.pane.Focused() || !m.pane.IsACP() {
		b.Fatal("the ACP chat's prompt is not focused")
	}
	chunk := "The **parser** reads `a token` and keeps its *state*; see [notes](https://example.org/n).\n\n- a point\n- another\n\n"
	msg := proto.Entry{Kind: proto.EntryAgent}
	changed := chatsChangedMsg{ids: []string{id}}
	keys := []tea.KeyMsg{runeKey('a'), runeKey(' '), runeKey('@'), runeKey('x'), {Type: tea.KeyBackspace}, {Type: tea.KeyBackspace}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if len(msg.Text) > 64<<10 {
			msg.Text = ""
		}
		msg.Text += chunk
		fake.mu.Lock()
		fake.transcripts[id] = append(fake.transcripts[id][:1], msg)
		fake.mu.Unlock()
		m.Update(changed)
		_ = m.View()
		m.Update(keys[i%len(keys)])
		_ = m.View()
		i++
	}
}

func benchTable(b *testing.B) *harness.Table {
	table, err := harness.NewTable(config.Defaults())
	if err != nil {
		b.Fatal(err)
	}
	return table
}
