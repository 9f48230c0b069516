package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/browser"
)

// These tests send the fake agent's commands through the door from the
// page's composer, and look at how the page draws what the agent sends:
// its markdown, tool cards with their diffs and outputs, plans, thoughts,
// a permission card's diff, and hostile and huge versions of them.

// promptPage sends text from the composer once the turn before has ended
// (the composer holds a prompt while one runs), and waits until the
// expression waitFor is true.
func promptPage(b *browser.Browser, composer, text, waitFor string) {
	b.WaitTrue("the turn before to end", `!document.querySelector(".composer").classList.contains("running")`)
	b.Type(composer, text+"\n")
	b.WaitTrue("the prompt "+text+" to be sent", fmt.Sprintf(`document.querySelector(%s).value === ""`, browser.Quote(composer)))
	b.WaitTrue(waitFor, waitFor)
}

// transcriptText is the transcript's whole text (textContent: what is
// folded or scrolled away too).
func transcriptText(b *browser.Browser) string {
	var s string
	b.Eval(`document.querySelector(".transcript").textContent`, &s)
	return s
}

// controlsIn returns the control characters, escapes and bidi controls
// found in s (but newline and tab).
func controlsIn(s string) []string {
	var found []string
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || r == 0x200e || r == 0x200f || r == 0x061c ||
			(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			found = append(found, fmt.Sprintf("%U", r))
		}
	}
	return found
}

// TestWebPageDrawsTheFakeAgentsEntries: through the door, the fake
// agent's plan is a checklist, its thought is folded, its tool call a
// card, a reply's markdown is drawn (its link as text), and its escape
// sequences and a reply of over a megabyte in 140,000 chunks are drawn
// safely.
func TestWebPageDrawsTheFakeAgentsEntries(t *testing.T) {
	w := newWebRig(t, "")
	o, b := openPage(t, w)
	_, composer := openACPChat(t, w, b, o, "rich entries")
	prompt := func(text, waitFor string) { t.Helper(); promptPage(b, composer, text, waitFor) }
	prompt("plan", `document.querySelectorAll(".transcript .plan-item").length === 2`)
	var plan []string
	b.Eval(`[...document.querySelectorAll(".transcript .plan-item")].map((e) => e.querySelector(".mark").textContent + " " + e.querySelector(".plan-text").textContent + " " + e.querySelector(".priority").textContent)`, &plan)
	if strings.Join(plan, "|") != "✓ Read the code high|▸ Write the fix medium" {
		t.Errorf("the plan reads %q", plan)
	}
	prompt("think", `[...document.querySelectorAll(".transcript .entry.agent")].some((e) => e.textContent.includes("echo: think"))`)
	if !b.Has(`document.querySelector(".transcript details.entry.thought") && !document.querySelector(".transcript details.entry.thought").open`) {
		t.Error("the thought is not folded")
	}
	prompt("tool", `document.querySelector(".transcript details.entry.tool.status-completed")`)
	// Completed, the card is folded; opened, it shows the tool's output.
	card := ".transcript details.entry.tool.status-completed"
	if b.Has(`document.querySelector(` + browser.Quote(card) + `).open`) {
		t.Error("the completed tool card is open")
	}
	b.Click(card + " > summary")
	waitPageText(b, card+" .tool-output", "fake tool output")
	prompt("see **this** and `that` in [the docs](https://example.com/x)",
		`[...document.querySelectorAll(".transcript .entry.agent strong")].some((e) => e.textContent === "this")`)
	if got := viewTexts(b, ".transcript .entry.agent .md-url"); len(got) != 1 || got[0] != "https://example.com/x" {
		t.Errorf("the reply's link address shows as %q", got)
	}
	b.Screenshot("fake agent's entries")

	// Escapes through every way the agent has: none reaches the page.
	prompt("osc", fmt.Sprintf(`document.querySelector(%s)`, browser.Quote(pageRole("permission-allow"))))
	b.Click(pageRole("permission-allow"))
	waitPageText(b, ".transcript", "osc: allow_once")
	if found := controlsIn(transcriptText(b)); len(found) != 0 {
		t.Errorf("the transcript holds controls %q", found)
	}
	// Over a megabyte, in 140,000 chunks.
	prompt("burst 140000", `[...document.querySelectorAll(".transcript .entry.agent .size-note")].some((e) => e.textContent.includes("MiB"))`)
	b.WaitTrue("the burst's last chunk to be counted", `[...document.querySelectorAll(".transcript .entry.agent .size-note")].some((e) => e.textContent.startsWith("This message is 1.1 MiB"))`)
	// One message, though the agent's stderr lines come between its
	// chunks, and its size counted past the server's bound.
	if notes := viewTexts(b, ".transcript .entry.agent .size-note"); len(notes) != 1 {
		t.Errorf("the burst's message shows as %d messages: %q", len(notes), notes)
	}
	var drawn int
	b.Eval(`[...document.querySelectorAll(".transcript .entry.agent")].pop().querySelector(".md").textContent.length`, &drawn)
	if drawn > 64<<10 {
		t.Errorf("the burst's message draws %d characters, past the page's bound", drawn)
	}
	if n := b.Count(".transcript script, .transcript img, .transcript iframe, .transcript a, .transcript [href]"); n != 0 {
		t.Errorf("the transcript holds %d elements agent text should not make", n)
	}
	b.Screenshot("fake agent's burst")
	b.NoConsoleErrors(noFavicon)
}

// TestWebPageDrawsTheRichFakeAgent: the fake agent's markdown reply is
// drawn as elements; its edit is a folded card that opens on a unified
// diff of its two files (one new); a failed command's card stays open
// with its output, a long one is cut with Show all; its plan has three
// marks; its thoughts are folded; a permission card shows the edit asked
// about; escapes inside a diff, an output and a title reach the page as
// nothing; and a 10 MiB message and a 3 MB diff are drawn in part with
// their sizes said.
func TestWebPageDrawsTheRichFakeAgent(t *testing.T) {
	w := newWebRig(t, "")
	o, b := openPage(t, w)
	_, composer := openACPChat(t, w, b, o, "richer entries")
	prompt := func(text, waitFor string) { t.Helper(); promptPage(b, composer, text, waitFor) }
	first := func(sel string) string {
		t.Helper()
		got := viewTexts(b, sel)
		if len(got) == 0 {
			t.Errorf("nothing matches %s", sel)
			return ""
		}
		return got[0]
	}

	prompt("markdown", `[...document.querySelectorAll(".transcript .entry.agent .md del")].some((e) => e.textContent === "broken")`)
	md := ".transcript .entry.agent .md "
	for sel, want := range map[string]string{
		"h1": "Parser report", "h2": "What changed", "h3": "Next", "strong": "flaky", "em": "load", "p code": "nextToken",
		"ul ul li": "with a seed corpus", "ol li": "Read the code", "blockquote": "Note: the old behaviour stays behind a flag,\nfor one release.", // a soft break, shown as a space
		"table th": "file", "table td": "parser.go", ".md-link .md-url": "https://agentclientprotocol.com/protocol/overview",
	} {
		if got := first(md + sel); got != want {
			t.Errorf("the markdown's %s: %q, want %q", sel, got, want)
		}
	}
	if got := first(md + "pre > code.language-go"); !strings.Contains(got, "func nextToken(s string) (tok, rest string) {") {
		t.Errorf("the code block reads %q", got)
	}
	if n := b.Count(".transcript a, .transcript [href]"); n != 0 {
		t.Errorf("the markdown made %d links", n)
	}
	b.Screenshot("markdown")

	// The edit: a folded card; opened, its place and two diffs.
	prompt("edit-diff", `[...document.querySelectorAll(".transcript .entry.agent")].some((e) => e.textContent === "edited parser.go and lexer.go")`)
	edit := `.transcript details.entry.tool[data-kind="edit"]`
	if b.Has(`document.querySelector(` + browser.Quote(edit) + `).open`) {
		t.Error("the completed edit's card is open")
	}
	b.Click(edit + " > summary")
	if got := first(edit + " .locations .path"); !strings.HasSuffix(got, "/parser.go:3") {
		t.Errorf("the edit's place reads %q", got)
	}
	paths := viewTexts(b, edit+" .diff-path")
	if len(paths) != 2 || !strings.HasSuffix(paths[0], "/parser.go") || !strings.HasSuffix(paths[1], "/lexer.go") {
		t.Errorf("the edit's diffs are of %q", paths)
	}
	if n := b.Count(edit + " .diff:nth-of-type(2) .badge.new-file, " + edit + " .diff.diff-new"); n < 1 {
		t.Error("the new file is not marked")
	}
	rows := strings.Join(viewTexts(b, edit+" .diff-line"), "\n")
	for _, want := range []string{"+// Parse splits s into tokens.", "-\treturn strings.Fields(s)", "+\treturn tokens(s)", "+func tokens(s string) []string {"} {
		if !strings.Contains(rows, want) {
			t.Errorf("the edit's diff has no line %q:\n%s", want, rows)
		}
	}
	b.Eval(`document.querySelector(`+browser.Quote(edit)+`).scrollIntoView({block: "start"}), true`, nil)
	b.Screenshot("edit diff")

	// A failed command stays open with its output; a long one is cut.
	prompt("execute-fail", `document.querySelector(".transcript details.entry.tool.status-failed")`)
	failed := ".transcript details.entry.tool.status-failed"
	if !b.Has(`document.querySelector(` + browser.Quote(failed) + `).open`) {
		t.Error("the failed command's card is folded")
	}
	if got := first(failed + " .tool-output"); !strings.Contains(got, "undefined: tokens") {
		t.Errorf("the failed command's output reads %q", got)
	}
	prompt("execute", `[...document.querySelectorAll(".transcript details.entry.tool.status-completed .tool-title")].some((e) => e.textContent === "Run go test ./...")`)
	run := `[...document.querySelectorAll(".transcript details.entry.tool")].pop()`
	var long struct {
		Shown int
		More  string
	}
	b.Eval(`({Shown: `+run+`.querySelector(".tool-output").textContent.split("\n").length, More: (`+run+`.querySelector(".show-all") || {}).textContent || ""})`, &long)
	if long.Shown != 20 || long.More != "Show all 82 lines" {
		t.Errorf("the long output shows %d lines and a button %q, want 20 and \"Show all 82 lines\"", long.Shown, long.More)
	}

	// The plan and the thoughts.
	prompt("plan-full", `document.querySelectorAll(".transcript .entry.plan .plan-item").length === 3`)
	marks := viewTexts(b, ".transcript .entry.plan .plan-item .mark")
	if strings.Join(marks, "") != "✓▸○" {
		t.Errorf("the plan's marks are %q", marks)
	}
	prompt("thoughts", `[...document.querySelectorAll(".transcript .entry.agent")].some((e) => e.textContent === "thought it through")`)
	thought := ".transcript details.entry.thought"
	if b.Has(`document.querySelector(` + browser.Quote(thought) + `).open`) {
		t.Error("the thought is open")
	}
	// Opened, it shows its two chunks as one text.
	b.Click(thought + " > summary")
	waitPageText(b, thought+" .body", "Tabs would be missed: use strings.Fields.")

	// The permission card shows the edit it asks about.
	prompt("permission-edit", fmt.Sprintf(`document.querySelector(%s)`, browser.Quote(pageRole("permission-allow"))))
	if rows := strings.Join(viewTexts(b, ".card.permission .diff-line"), "\n"); !strings.Contains(rows, "+func main() { run() }") || !strings.Contains(rows, "-func main() {}") {
		t.Errorf("the permission card's diff:\n%s", rows)
	}
	b.Eval(`(document.querySelector(".transcript").scrollTop = 1e9), true`, nil)
	b.Screenshot("permission edit")
	b.Click(pageRole("permission-allow"))
	waitPageText(b, ".transcript", "permission: allow_once")

	// Escapes inside a diff, an output, a terminal's id and a title.
	prompt("hostile-diff", `[...document.querySelectorAll(".transcript .entry.agent")].some((e) => e.textContent === "hostile: sent")`)
	if found := controlsIn(transcriptText(b)); len(found) != 0 {
		t.Errorf("the transcript holds controls %q", found)
	}

	// A 10 MiB message and a 3 MB diff: in part, their sizes said.
	prompt("big-message 10485760", `[...document.querySelectorAll(".transcript .entry.agent .size-note")].some((e) => e.textContent.startsWith("This message is 10.0 MiB"))`)
	var drawn int
	b.Eval(`[...document.querySelectorAll(".transcript .entry.agent")].pop().querySelector(".md").textContent.length`, &drawn)
	if drawn > 64<<10 {
		t.Errorf("the 10 MiB message draws %d characters", drawn)
	}
	prompt("big-diff 3000000", `[...document.querySelectorAll(".transcript .entry.agent")].some((e) => e.textContent === "big-diff: sent")`)
	big := `[...document.querySelectorAll(".transcript details.entry.tool")].pop()`
	b.Eval(big+`.open = true`, nil)
	var diff struct {
		Rows int
		Note string
	}
	b.Eval(`({Rows: `+big+`.querySelectorAll(".diff-line").length, Note: (`+big+`.querySelector(".size-note") || {}).textContent || ""})`, &diff)
	if diff.Rows > 41 || !strings.Contains(diff.Note, "2.9 MiB") {
		t.Errorf("the big diff draws %d lines and says %q, want at most 41 and its size (2.9 MiB)", diff.Rows, diff.Note)
	}
	b.Eval(`(document.querySelector(".transcript").scrollTop = 1e9), true`, nil)
	b.Screenshot("big")
	b.NoConsoleErrors(noFavicon)
}
