package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/browser"
	"github.com/acpmux/acpmux-tui/proto"
)

// These tests look at how the page draws an ACP chat's entries: an
// agent's markdown as the page's own elements, tool calls as cards with
// their diffs and outputs, plans as checklists, thoughts folded; and
// hostile text as text. The first two feed entries, in the shape the door
// sends them, to the page's own transcript view (transcript.js, loaded by
// the page from the server, under its CSP) in a real Chromium; the last
// drives the fake agent through the door.

// entriesView is a page expression that makes a transcript view of the
// page's own module, shows it in place of the page's panes (which the
// page may draw again at any time), and keeps it as window.view; then
// window.feed(entries) streams entries into it as the door's
// _acpmux/entries does.
const entriesView = `(async () => {
  const { TranscriptView } = await import("/transcript.js");
  const view = new TranscriptView({ callFor: async () => ({}), store: null, onStale: () => {} });
  view.open("local/test");
  view.setTranscript([], false);
  view.element.id = "under-test";
  const host = document.createElement("main");
  host.className = "chat-pane";
  Object.assign(host.style, { height: "calc(100vh - 60px)", display: "flex", flexDirection: "column" });
  host.append(view.element);
  document.querySelector("#app").style.display = "none";
  document.body.append(host);
  window.view = view;
  window.feed = (entries) => view.stream(entries);
  return true;
})()`

// openEntriesView signs a page in (a chat list with no chat), and makes
// the transcript view the tests feed.
func openEntriesView(t *testing.T) *browser.Browser {
	t.Helper()
	w := newWebRig(t, "")
	o, b := openPage(t, w)
	b.Navigate(o.URL)
	b.WaitVisible(pageRole("new-chat"))
	b.Eval(entriesView, nil)
	b.WaitVisible("#under-test")
	return b
}

// feedView streams entries into the view openEntriesView made.
func feedView(t *testing.T, b *browser.Browser, entries ...proto.Entry) {
	t.Helper()
	raw, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	b.Eval("window.feed("+string(raw)+"), true", nil)
}

// inEntriesView is the CSS selector sel inside the view under test.
func inEntriesView(sel string) string { return "#under-test " + sel }

// viewTexts returns the textContent of every element matching sel.
func viewTexts(b *browser.Browser, sel string) []string {
	var out []string
	b.Eval(fmt.Sprintf(`[...document.querySelectorAll(%s)].map((e) => e.textContent)`, browser.Quote(sel)), &out)
	return out
}

func viewOneText(t *testing.T, b *browser.Browser, sel string) string {
	t.Helper()
	got := viewTexts(b, sel)
	if len(got) != 1 {
		t.Fatalf("%d elements match %s, want 1: %q", len(got), sel, got)
	}
	return got[0]
}

// ptrTo is a pointer to a copy of v (an optional field of an entry).
func ptrTo[T any](v T) *T { return &v }

// TestWebPageDrawsMarkdownCardsAndPlans: an agent's markdown message,
// streamed in two chunks, is one message of headings, emphasis, a table,
// a highlighted code block, nested lists, a quote and a rule, with its
// link shown as text; an edit's card shows its path, its location and a
// unified diff, folded once completed; a new file is marked; a command's
// long output is cut with a button that shows it all; a failed card stays
// open; a plan is a checklist of three marks with priorities; a thought
// is folded. A later chunk or update redraws its own entry only.
func TestWebPageDrawsMarkdownCardsAndPlans(t *testing.T) {
	b := openEntriesView(t)
	output := make([]string, 100)
	for i := range output {
		output[i] = fmt.Sprintf("line %03d of the build", i+1)
	}
	feedView(t, b,
		proto.Entry{Kind: proto.EntryAgent, MessageID: "m1", Text: "# Parser report\n\nThe tokenizer is **flaky** and _slow_; see [the docs](https://example.com/docs).\n\n" +
			"| file | lines |\n| --- | ---: |\n| lexer.go | 120 |\n| parser.go | 300 |\n"},
		proto.Entry{Kind: proto.EntryAgent, MessageID: "m1", Text: "\n```go\nfunc main() { return \"done\" } // the end\n```\n\n- one\n  - nested\n- two\n\n> quoted\n\n---\n\n~~gone~~ and `code`\n"},
		proto.Entry{Kind: proto.EntryThought, MessageID: "t1", Text: "thinking about **it**"},
		proto.Entry{Kind: proto.EntryTool, ToolCallID: "c1", Title: "Edit parser.go", ToolStatus: "completed", ToolKind: "edit",
			Locations: []proto.Location{{Path: "/src/parser.go", Line: ptrTo(42)}},
			Content:   []proto.ToolContent{{Type: proto.ToolContentDiff, Path: "/src/parser.go", OldText: ptrTo("a\nb\nc\n"), NewText: "a\nB\nc\nd\n"}}},
		proto.Entry{Kind: proto.EntryTool, ToolCallID: "c2", Title: "Write new.go", ToolStatus: "in_progress", ToolKind: "edit",
			Content: []proto.ToolContent{{Type: proto.ToolContentDiff, Path: "/src/new.go", NewText: "package x\n"}}},
		proto.Entry{Kind: proto.EntryTool, ToolCallID: "c3", Title: "go build", ToolStatus: "in_progress", ToolKind: "execute",
			Content: []proto.ToolContent{{Type: proto.ToolContentTerminal, TerminalID: "term-1", Text: strings.Join(output, "\n")}}},
		proto.Entry{Kind: proto.EntryTool, ToolCallID: "c4", Title: "rm -rf build", ToolStatus: "failed", ToolKind: "execute",
			Content: []proto.ToolContent{{Type: proto.ToolContentText, Text: "permission denied"}}},
		proto.Entry{Kind: proto.EntryPlan, PlanItems: []proto.PlanItem{
			{Content: "Read the code", Priority: "high", Status: "completed"},
			{Content: "Write the fix", Priority: "medium", Status: "in_progress"},
			{Content: "Run the tests", Priority: "low", Status: "pending"},
		}},
	)
	b.Screenshot("entries")
	b.Eval(`document.querySelector("#under-test .transcript").scrollTop = 0, true`, nil)
	b.Screenshot("entries top")

	// The markdown: one message, drawn as elements.
	if n := b.Count(inEntriesView(".entry.agent")); n != 1 {
		t.Fatalf("two chunks of one message made %d messages", n)
	}
	md := inEntriesView(".entry.agent .md ")
	for sel, want := range map[string]string{
		"h1": "Parser report", "strong": "flaky", "em": "slow", "table th": "file", "table td.align-right": "120",
		"ul ul li": "nested", "blockquote": "quoted", "del": "gone", "p code": "code",
	} {
		if got := viewTexts(b, md+sel); len(got) == 0 || got[0] != want {
			t.Errorf("the message's %s: %q, want %q first", sel, got, want)
		}
	}
	if got := viewTexts(b, inEntriesView(".entry.agent .md > ul > li")); len(got) != 2 || got[1] != "two" {
		t.Errorf("the list's items: %q, want one (with its nested list) and two", got)
	}
	if n := b.Count(inEntriesView(".entry.agent .md > blockquote")); n != 1 {
		t.Errorf("the message has %d quotes outside its list, want 1", n)
	}
	if n := b.Count(md + "hr"); n != 1 {
		t.Errorf("the message has %d rules, want 1", n)
	}
	code := viewOneText(t, b, md+"pre > code.language-go")
	if !strings.Contains(code, `func main() { return "done" } // the end`) {
		t.Errorf("the code block reads %q", code)
	}
	if kw := viewTexts(b, md+"pre .tok-keyword"); len(kw) < 2 || kw[0] != "func" {
		t.Errorf("the code block's keywords: %q, want func and return coloured", kw)
	}
	// A link is shown, never followed: its text and its address as text,
	// no element with an href anywhere in the conversation.
	if got := viewOneText(t, b, md+".md-link .md-url"); got != "https://example.com/docs" {
		t.Errorf("the link's address shows as %q", got)
	}
	var links []string
	b.Eval(`[...document.querySelectorAll("#under-test a, #under-test [href]")].map((e) => e.outerHTML)`, &links)
	if len(links) != 0 {
		t.Errorf("the conversation holds links or hrefs: %q", links)
	}

	// The thought: folded.
	if !b.Has(`document.querySelector("#under-test details.entry.thought") && !document.querySelector("#under-test details.entry.thought").open`) {
		t.Error("the thought is not a folded <details>")
	}
	// Opened, it draws its markdown (when the <details> has toggled).
	b.Click(inEntriesView("details.entry.thought > summary"))
	b.WaitTrue("the thought opened to show its markdown",
		`[...document.querySelectorAll("#under-test details.entry.thought[open] .body .md strong")].map((e) => e.textContent).join() === "it"`)

	// The edit's card: folded (completed), with its path, its place and
	// its + and - lines.
	editCard := `document.querySelectorAll("#under-test details.entry.tool")[0]`
	if b.Has(editCard + ".open") {
		t.Error("a completed card is open")
	}
	if got := viewOneText(t, b, inEntriesView(".entry.tool .locations .path")); got != "/src/parser.go:42" {
		t.Errorf("the edit's location reads %q", got)
	}
	if got := viewTexts(b, inEntriesView(".entry.tool .diff-path")); len(got) < 1 || got[0] != "/src/parser.go" {
		t.Errorf("the diffs' paths: %q", got)
	}
	var rows []string
	b.Eval(editCard+`.querySelectorAll(".diff-line").length && [...`+editCard+`.querySelectorAll(".diff-line")].map((e) => e.className.replace("diff-line ", "") + " " + e.textContent)`, &rows)
	wantRows := []string{"diff-hunk @@ -1,3 +1,4 @@", "diff-same  a", "diff-del -b", "diff-add +B", "diff-same  c", "diff-add +d"}
	if strings.Join(rows, "\n") != strings.Join(wantRows, "\n") {
		t.Errorf("the edit's diff:\n%s\nwant:\n%s", strings.Join(rows, "\n"), strings.Join(wantRows, "\n"))
	}

	// The new file: marked, its card open with a spinner while it runs.
	newCard := `document.querySelectorAll("#under-test details.entry.tool")[1]`
	if !b.Has(newCard+`.open`) || !b.Has(newCard+`.querySelector(".badge.new-file")`) || !b.Has(newCard+`.querySelector(".spinner")`) {
		t.Error("the new file's running card is not open, marked new and spinning")
	}

	// The command's output: its first 20 lines, then all on a click.
	termCard := `document.querySelectorAll("#under-test details.entry.tool")[2]`
	var lines int
	b.Eval(termCard+`.querySelector("pre.tool-output").textContent.split("\n").length`, &lines)
	if lines != 20 {
		t.Errorf("the output shows %d lines before Show all, want 20", lines)
	}
	b.Click(inEntriesView(".show-all"))
	b.WaitTrue("Show all to show the output's 100 lines", termCard+`.querySelector("pre.tool-output").textContent.split("\n").length === 100`)

	// The failed card stays open.
	if !b.Has(`document.querySelectorAll("#under-test details.entry.tool")[3].open`) {
		t.Error("the failed card is folded")
	}

	// The plan: three marks, told apart, with priorities.
	var plan []string
	b.Eval(`[...document.querySelectorAll("#under-test .plan-item")].map((e) => e.dataset.status + " " + e.querySelector(".mark").textContent + " " + e.querySelector(".plan-text").textContent + " " + (e.querySelector(".priority") || {}).textContent)`, &plan)
	wantPlan := []string{"completed ✓ Read the code high", "in_progress ▸ Write the fix medium", "pending ○ Run the tests low"}
	if strings.Join(plan, "\n") != strings.Join(wantPlan, "\n") {
		t.Errorf("the plan:\n%s\nwant:\n%s", strings.Join(plan, "\n"), strings.Join(wantPlan, "\n"))
	}

	// A permission card shows the edit it asks about.
	b.Eval(`window.view.permission({Seq: 1, Pending: 1, Title: "Edit parser.go",
		Options: [{ID: "a", Name: "Allow", Kind: "allow_once"}, {ID: "r", Name: "Reject", Kind: "reject_once"}],
		Content: [{type: "diff", path: "/src/asked.go", oldText: "x\n", newText: "y\n"}]}), true`, nil)
	if got := viewTexts(b, inEntriesView(".card.permission .diff-path, .card.permission .diff-line")); strings.Join(got, "|") != "/src/asked.go|@@ -1,1 +1,1 @@|-x|+y" {
		t.Errorf("the permission card shows %q, want the diff asked about", got)
	}
	b.Eval(`window.view.permission(null), true`, nil)

	// A chunk redraws its message's last blocks only, and no other
	// entry; an update its card only, which folds once completed.
	feedView(t, b, proto.Entry{Kind: proto.EntryAgent, MessageID: "m2", Text: "## Second\n\nfirst part\n\nsecond"})
	b.Eval(`window.before = [...document.querySelectorAll("#under-test .transcript > *")],
		window.heading = document.querySelector("#under-test .transcript > :last-child h2"), true`, nil)
	feedView(t, b, proto.Entry{Kind: proto.EntryAgent, MessageID: "m2", Text: " **more**"},
		proto.Entry{Kind: proto.EntryTool, ToolCallID: "c2", ToolStatus: "completed"})
	var redrawn []int
	b.Eval(`[...document.querySelectorAll("#under-test .transcript > *")].map((e, i) => e === window.before[i] ? -1 : i).filter((i) => i >= 0)`, &redrawn)
	if fmt.Sprint(redrawn) != "[3]" {
		t.Errorf("a chunk and an update replaced entries %v, want [3] (the card)", redrawn)
	}
	if !b.Has(`window.heading && window.heading.isConnected && window.heading.textContent === "Second"`) {
		t.Error("a chunk drew again a block of its message that was complete")
	}
	if got := viewTexts(b, inEntriesView(".entry.agent .md")); len(got) != 2 || got[1] != "Secondfirst partsecond more" {
		t.Errorf("the messages read %q, want the second as \"Secondfirst partsecond more\"", got)
	}
	if got := viewTexts(b, inEntriesView(".entry.agent:last-child strong")); len(got) != 1 || got[0] != "more" {
		t.Errorf("the chunk's markdown drew %q, want <strong>more", got)
	}
	if b.Has(newCard+`.open`) || b.Has(newCard+`.querySelector(".spinner")`) {
		t.Error("the card completed is still open or spinning")
	}
	// A line on the agent's stderr (which the server's transcript does
	// not keep) does not split the message it comes in.
	feedView(t, b, proto.Entry{Kind: proto.EntryAgent, MessageID: "m3", Text: "before "},
		proto.Entry{Kind: proto.EntryStderr, Text: "a warning"},
		proto.Entry{Kind: proto.EntryAgent, MessageID: "m3", Text: "after"})
	if got := viewTexts(b, inEntriesView(".entry.agent")); len(got) != 3 || got[2] != "before after" {
		t.Errorf("the messages read %q, want the third as \"before after\"", got)
	}
	b.Screenshot("entries updated")
	b.NoConsoleErrors(noFavicon)
}

// TestWebPageShowsHostileMarkdownAsText: markup, a javascript: link,
// escape sequences, bidi controls and a message over a megabyte, in a
// message, a code block, a diff, a tool's title and output, make no
// element of their own, run nothing, reach the page without a control
// character, and the big message is drawn in part with its size said.
func TestWebPageShowsHostileMarkdownAsText(t *testing.T) {
	b := openEntriesView(t)
	const hostile = "<script>window.pwned = 1</script> <img src=x onerror=\"window.pwned = 2\"> <iframe src=\"/\"></iframe>\n\n" +
		"[click me](javascript:window.pwned=3) ![pic](https://example.com/x.png) <https://example.com/auto>\n\n" +
		"osc \x1b]52;c;cHduZWQ=\x07 title \x1b]0;pwned\x1b\\ csi \x1b[2J\x1b[31mred\x1b[0m c1 \u009b31m bidi \u202eevil\u202c \u2066iso\u2069 bell\a\n\n" +
		"```html\n<script>window.pwned = 4</script>\x1b]0;in code\x07\n```\n"
	big := strings.Repeat("0123456789abcdef", 1<<16) + "tail" // 1 MiB and a bit
	feedView(t, b,
		proto.Entry{Kind: proto.EntryAgent, MessageID: "h", Text: hostile},
		proto.Entry{Kind: proto.EntryTool, ToolCallID: "x1", Title: "Run \x1b]0;pwned\x07<b>rm</b>\u202e", ToolStatus: "failed", ToolKind: "execute",
			Locations: []proto.Location{{Path: "/tmp/<img src=x onerror=alert(1)>"}},
			Content: []proto.ToolContent{
				{Type: proto.ToolContentText, Text: "<script>window.pwned = 5</script>\x1b[2J\u202e"},
				{Type: proto.ToolContentDiff, Path: "/tmp/\x1b]8;;javascript:alert(1)\x07x", OldText: ptrTo("<img src=x onerror=alert(1)>\n"), NewText: "<svg onload=alert(2)>\n"},
			}},
		proto.Entry{Kind: proto.EntryThought, MessageID: "th", Text: "<img src=x onerror=alert(3)>"},
		proto.Entry{Kind: proto.EntryAgent, MessageID: "big", Text: big},
	)
	// Many chunks after the big one: each counted, none drawn past the
	// bound.
	for i := 0; i < 4; i++ {
		feedView(t, b, proto.Entry{Kind: proto.EntryAgent, MessageID: "big", Text: strings.Repeat("x", 256<<10)})
	}
	b.Screenshot("hostile entries")
	b.Eval(`document.querySelector("#under-test .transcript").scrollTop = 0, true`, nil)
	b.Screenshot("hostile entries top")

	var made []string
	b.Eval(`[...document.querySelectorAll("#under-test script, #under-test img, #under-test iframe, #under-test svg, #under-test a, #under-test [href], #under-test [src], #under-test [onerror], #under-test [onload]")].map((e) => e.outerHTML)`, &made)
	if len(made) != 0 {
		t.Errorf("agent text made elements: %q", made)
	}
	if b.Has(`window.pwned !== undefined`) {
		t.Error("agent text ran a script")
	}
	var all string
	b.Eval(`document.querySelector("#under-test").textContent`, &all)
	for _, bad := range []string{"\x1b", "\a", "\u009b", "\u202e", "\u202c", "\u2066", "\u2069", "52;c;", "]0;pwned"} {
		if strings.Contains(all, bad) {
			t.Errorf("the conversation's text holds %q", bad)
		}
	}
	for _, want := range []string{"<script>window.pwned = 1</script>", "<img src=x onerror=\"window.pwned = 2\">", "javascript:window.pwned=3", "<svg onload=alert(2)>"} {
		if !strings.Contains(all, want) {
			t.Errorf("the conversation does not show %q as text", want)
		}
	}
	if got := viewOneText(t, b, inEntriesView(".entry.agent:first-child pre > code.language-html")); !strings.HasPrefix(got, "<script>window.pwned = 4</script>") {
		t.Errorf("the code block reads %q", got)
	}

	// The big message: drawn to the bound, its size said.
	var drawn int
	b.Eval(`document.querySelectorAll("#under-test .entry.agent")[1].querySelector(".md").textContent.length`, &drawn)
	if drawn > 64<<10 || drawn < 60<<10 {
		t.Errorf("the big message draws %d characters, want its first 64 KiB", drawn)
	}
	note := viewOneText(t, b, inEntriesView(".entry.agent .size-note"))
	if !strings.Contains(note, "2.0 MiB") {
		t.Errorf("the big message's note says %q, want its size (2.0 MiB)", note)
	}
	b.NoConsoleErrors(noFavicon)
}
