package e2e

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/browser"
)

// These tests use the page's composer as the TUI's is used: / offers the
// agent's slash commands, @ the chat's files (from _acpmux/files), and a
// file chosen goes with the prompt as a resource_link.

// completionLabels is an expression: the labels of the composer's
// completion options, in order.
const completionLabels = `[...document.querySelectorAll('[data-role="completions"] [role="option"] .completion-label')].map((e) => e.textContent)`

// waitCompletions waits until the composer's list offers exactly want,
// in order.
func waitCompletions(b *browser.Browser, want ...string) {
	var j strings.Builder
	enc := json.NewEncoder(&j)
	enc.SetEscapeHTML(false) // as JSON.stringify writes < and >
	if err := enc.Encode(want); err != nil {
		panic(err)
	}
	s := strings.TrimSpace(j.String())
	b.WaitTrue(fmt.Sprintf("the composer to offer %s", s), fmt.Sprintf(`JSON.stringify(%s) === %s`, completionLabels, browser.Quote(s)))
}

// fakeLinks reads the links the fake agent received in chat id's session
// ("NAME URI MIMETYPE" each).
func fakeLinks(t *testing.T, w *webRig, id string) []string {
	t.Helper()
	sid := w.chat("show", id, "--json").AgentSessionID
	data, err := os.ReadFile(filepath.Join(w.dir("agent-state"), sid+".json"))
	if err != nil {
		t.Fatalf("the fake's record of session %q: %v", sid, err)
	}
	var rec struct{ Links []string }
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	return rec.Links
}

// TestWebPageComposerOffersCommandsAndFiles: in an ACP chat of the fake
// agent, / lists the agent's commands with their descriptions, filtered
// as typed; the arrows move the active option (aria-activedescendant),
// Escape closes the list, Tab completes "/test " and shows its hint. @pars
// lists src/parser.go (no hidden file, no file it does not match); a click
// puts it in as a chip; the prompt sent reaches the agent with exactly
// one resource_link, that file's file:// URI, and the transcript shows
// the prompt's file as a chip.
func TestWebPageComposerOffersCommandsAndFiles(t *testing.T) {
	w := newWebRig(t, "")
	for _, f := range []string{"src/parser.go", "src/lexer.go", "README.md", ".git/HEAD"} {
		p := filepath.Join(w.proj, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package src\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o, b := openPage(t, w)
	chat, composer := openACPChat(t, w, b, o, "composer")
	// The fake offers its commands when asked (it sends an
	// available_commands_update).
	promptPage(b, composer, "commands", `document.querySelector(".transcript").textContent.includes("commands: sent")`)

	b.Type(composer, "/")
	waitCompletions(b, "/review", "/test", "/explain")
	descs := viewTexts(b, `[data-role="completions"] [role="option"] .completion-desc`)
	if strings.Join(descs, "|") != "Review the changes of this chat|Run the tests|Explain a piece of code" {
		t.Errorf("the commands' descriptions: %q", descs)
	}
	var aria struct{ Role, Expanded, Active, Selected string }
	ariaNow := func() {
		b.Eval(`(() => { const c = document.querySelector('[data-role="composer"]'); const id = c.getAttribute("aria-activedescendant");
			return {role: document.getElementById(c.getAttribute("aria-controls")).getAttribute("role"), expanded: c.getAttribute("aria-expanded"),
			active: id ? document.getElementById(id).textContent : "", selected: (document.querySelector('[role="option"][aria-selected="true"]') || {}).textContent || ""}; })()`, &aria)
	}
	ariaNow()
	if aria.Role != "listbox" || aria.Expanded != "true" || !strings.HasPrefix(aria.Active, "/review") || aria.Selected != aria.Active {
		t.Errorf("the list's accessibility: %+v", aria)
	}
	b.Press(composer, browser.ArrowDown)
	ariaNow()
	if !strings.HasPrefix(aria.Active, "/test") || aria.Selected != aria.Active {
		t.Errorf("after ArrowDown: %+v", aria)
	}
	b.Press(composer, browser.Escape)
	b.WaitTrue("Escape to close the list", `document.querySelector('[data-role="completions"]').hidden`)
	b.Type(composer, "te")
	waitCompletions(b, "/test")
	b.Press(composer, browser.Tab)
	b.WaitTrue("Tab to complete /test", fmt.Sprintf(`document.querySelector(%s).value === "/test "`, browser.Quote(composer)))
	waitPageText(b, `[data-role="command-hint"]`, "package pattern")

	b.Type(composer, "@pars")
	waitCompletions(b, "src/parser.go")
	b.Screenshot("composer files")
	b.Click(`[data-role="completions"] [role="option"]`)
	b.WaitTrue("the click to put the chip in", fmt.Sprintf(`document.querySelector(%s).value === "/test @parser.go "`, browser.Quote(composer)))
	if chips := viewTexts(b, `[data-role="chip"]`); len(chips) != 1 || !strings.HasPrefix(chips[0], "@parser.go") {
		t.Errorf("the composer's chips: %q", chips)
	}
	b.Type(composer, "please\n")
	waitPageText(b, ".transcript", "echo: /test @parser.go please")
	waitPageText(b, `.transcript [data-role="prompt-link"]`, "@src/parser.go")
	if n := b.Count(`[data-role="chip"]`); n != 0 {
		t.Errorf("%d chips stay after the prompt was sent", n)
	}

	uri := (&url.URL{Scheme: "file", Path: filepath.Join(chat.Cwd, "src/parser.go")}).String()
	if links := fakeLinks(t, w, chat.ID); len(links) != 1 || !strings.HasPrefix(links[0], "src/parser.go "+uri+" ") {
		t.Fatalf("the agent received links %q, want src/parser.go at %s", links, uri)
	}
	b.NoConsoleErrors(noFavicon)
}

// TestWebPageComposerDrawsHostileFileNamesAsText: a file whose name is
// markup, with an escape sequence and bidi controls, is offered after @
// as text (no element made of it, no control drawn), its chip likewise,
// and the link the agent receives is named without them.
func TestWebPageComposerDrawsHostileFileNamesAsText(t *testing.T) {
	w := newWebRig(t, "")
	name := "<img src=x onerror=alert(1)><script>alert(2)<script>\x1b[31m\u202eevil\u2066.go"
	if err := os.WriteFile(filepath.Join(w.proj, name), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, b := openPage(t, w)
	chat, composer := openACPChat(t, w, b, o, "hostile files")
	b.Type(composer, "@onerror")
	clean := "<img src=x onerror=alert(1)><script>alert(2)<script>evil.go"
	waitCompletions(b, clean)
	list := `[data-role="completions"]`
	if n := b.Count(list + " img, " + list + " script, " + list + " [onerror]"); n != 0 {
		t.Errorf("the list made %d elements of the file's name", n)
	}
	if found := controlsIn(b.Text(list)); len(found) != 0 {
		t.Errorf("the list draws controls %q", found)
	}
	b.Press(composer, browser.Enter)
	b.WaitTrue("Enter to put the chip in", `document.querySelectorAll('[data-role="chip"]').length === 1`)
	chip := viewTexts(b, `[data-role="chip"]`)[0]
	if found := controlsIn(chip); len(found) != 0 || !strings.Contains(chip, "<script>") {
		t.Errorf("the chip reads %q (controls %q)", chip, found)
	}
	b.Type(composer, "look\n")
	waitPageText(b, ".transcript", "echo: @<img")
	links := fakeLinks(t, w, chat.ID)
	if len(links) != 1 || !strings.HasPrefix(links[0], clean+" file://") {
		t.Fatalf("the agent received links %q", links)
	}
	if d := b.Dialogs(); len(d) != 0 {
		t.Fatalf("the page opened dialogs: %+v", d)
	}
	b.NoConsoleErrors(noFavicon)
}
