package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpmux/acpmux-tui/internal/testharness/browser"
	"github.com/acpmux/acpmux-tui/internal/testharness/wait"
	"github.com/acpmux/acpmux-tui/proto"
)

// These tests open the page of the web door in a real headless Chromium
// (internal/testharness/browser), as a user does with the address
// `acpmux-tui web` prints, and look at what it shows. They find the page's
// parts by its stable hooks only: data-chat-id on each chat row, data-role
// on the controls (composer, send, terminal, source, new-chat,
// source-input, create, permission-allow, permission-deny).
// Each main view leaves a screenshot in the artifacts folder; none is
// compared.

// pageSessionCookie begins the name of the page's session cookie
// (acpmux_session, and the port: cookies are not kept apart by port),
// which its script must never see.
const pageSessionCookie = "acpmux_session"

// openPage starts a browser (or skips t, as browser.Start does) and
// opens the door on a free loopback port; the browser goes nowhere yet.
func openPage(t *testing.T, w *webRig) (webOpened, *browser.Browser) {
	t.Helper()
	b := browser.Start(t)
	o, _ := w.openWeb("--listen", "127.0.0.1:0")
	return o, b
}

// pageRow is the CSS selector of a chat's row in the list.
func pageRow(id string) string { return fmt.Sprintf("[data-chat-id=%q]", id) }

// pageRole is the CSS selector of the page's controls with a data-role.
func pageRole(role string) string { return fmt.Sprintf("[data-role=%q]", role) }

// signIn opens the address with the token and waits for the row of each
// chat in ids.
func signIn(b *browser.Browser, o webOpened, ids ...string) {
	b.Navigate(o.URL)
	for _, id := range ids {
		b.WaitVisible(pageRow(id))
	}
}

// openACPChat makes an ACP chat (the fake agent) named name in the rig's
// project, signs the page in, opens the chat and waits for its composer,
// whose selector it returns.
func openACPChat(t *testing.T, w *webRig, b *browser.Browser, o webOpened, name string) (proto.ChatJSON, string) {
	t.Helper()
	chat := w.chat("new", "--harness", "fake", "--cwd", w.proj, "--name", name, "--json")
	signIn(b, o, chat.ID)
	b.Click(pageRow(chat.ID))
	composer := pageRole("composer")
	b.WaitVisible(composer)
	return chat, composer
}

// pageText is the page's whole text as shown.
func pageText(b *browser.Browser) string {
	var s string
	b.Eval(`document.body.innerText`, &s)
	return s
}

// waitPageText waits until an element matching sel shows want in its
// text (textContent: a terminal's rows or a transcript may be scrolled
// out of view).
func waitPageText(b *browser.Browser, sel, want string) {
	b.WaitTrue(fmt.Sprintf("%s to show %q", sel, want),
		fmt.Sprintf(`[...document.querySelectorAll(%s)].some((e) => e.textContent.includes(%s))`, browser.Quote(sel), browser.Quote(want)))
}

// chipNaming is an expression true when one of the page's source chips
// names text, in what it shows or in its title.
func chipNaming(text string) string {
	return fmt.Sprintf(`[...document.querySelectorAll(%s)].some((e) => (e.textContent + " " + (e.title || "")).includes(%s))`,
		browser.Quote(pageRole("source")), browser.Quote(text))
}

// TestWebPageWithoutTokenSaysHowToGetOne: the page opened without the
// token's fragment (and no cookie) tells how to get its address, shows no
// chat, and reports no error but the refusal of /acp.
func TestWebPageWithoutTokenSaysHowToGetOne(t *testing.T) {
	w := newWebRig(t, "")
	w.chat("new", "--name", "not for strangers", "--json")
	o, b := openPage(t, w)
	b.Navigate("http://" + o.Listen + "/")
	b.WaitTrue("the page to say how to get its address", `document.body.innerText.includes("acpmux-tui web")`)
	b.Screenshot("no token")
	if n := b.Count("[data-chat-id]"); n != 0 {
		t.Fatalf("without a token the page shows %d chat rows:\n%s", n, pageText(b))
	}
	if text := pageText(b); strings.Contains(text, "not for strangers") {
		t.Fatalf("without a token the page shows a chat's name:\n%s", text)
	}
	if cookies := b.Cookies(); len(cookies) != 0 {
		t.Fatalf("without a token the browser was given cookies %+v", cookies)
	}
	b.NoConsoleErrors(noFavicon, refusedACP(o.Listen))
}

// noFavicon allows the browser's report of /favicon.ico not found: the
// browser asks for it by itself, and the page carries no icon.
func noFavicon(e browser.ConsoleError) bool {
	return e.Kind == browser.KindBrowser && e.Source == "network" && strings.HasSuffix(e.URL, "/favicon.ico")
}

// refusedACP allows the browser's report of /acp refused for want of a
// session (401, or a WebSocket whose "HTTP Authentication failed"): a
// page cannot know it is not signed in (its cookie is HttpOnly) but by
// trying.
func refusedACP(listen string) func(browser.ConsoleError) bool {
	return func(e browser.ConsoleError) bool {
		return e.Kind == browser.KindBrowser && e.Source == "network" &&
			(e.URL == "http://"+listen+"/acp" && strings.Contains(e.Text, "401") ||
				strings.Contains(e.Text, "'ws://"+listen+"/acp' failed"))
	}
}

// TestWebPageSignsInWithTheTokenAndForgetsIt: the address `web` prints
// shows every chat; the token's fragment is gone at once from the address
// and from the tab's history; the session cookie is HttpOnly (the page's
// script cannot read it); and the page loaded again, without the token,
// is still signed in.
func TestWebPageSignsInWithTheTokenAndForgetsIt(t *testing.T) {
	w := newWebRig(t, "")
	names := []string{"fix the parser", "notes", "ünïcode 名前"}
	var ids []string
	for _, n := range names {
		ids = append(ids, w.chat("new", "--name", n, "--json").ID)
	}
	acp := w.chat("new", "--harness", "fake", "--cwd", w.proj, "--name", "an ACP chat", "--json")
	ids, names = append(ids, acp.ID), append(names, acp.Name)
	o, b := openPage(t, w)
	signIn(b, o, ids...)
	for i, id := range ids {
		if got := b.Text(pageRow(id)); !strings.Contains(got, names[i]) {
			t.Errorf("the row of %s shows %q, want its name %q", id, got, names[i])
		}
	}
	if n := b.Count("[data-chat-id]"); n != len(ids) {
		t.Errorf("the list has %d rows, want %d", n, len(ids))
	}
	b.Screenshot("signed in")

	var seen struct {
		Href, Hash string
		Length     int
		Cookie     string
	}
	b.Eval(`({href: location.href, hash: location.hash, length: history.length, cookie: document.cookie})`, &seen)
	if seen.Hash != "" || strings.Contains(seen.Href, "token") || seen.Href != "http://"+o.Listen+"/" {
		t.Errorf("the address is still %q (hash %q), want http://%s/", seen.Href, seen.Hash, o.Listen)
	}
	// The tab's history: the blank page it opened with, then the page,
	// its entry replaced (not added to) without the fragment.
	history := b.History()
	if len(history) != seen.Length || len(history) != 2 || history[1] != "http://"+o.Listen+"/" {
		t.Errorf("the tab's history is %q (history.length %d), want about:blank and the page without its fragment", history, seen.Length)
	}
	for _, u := range history {
		if strings.Contains(u, "token") {
			t.Errorf("the tab's history keeps the token: %q", u)
		}
	}
	if strings.Contains(seen.Cookie, pageSessionCookie) {
		t.Errorf("the page's script reads the session cookie: document.cookie = %q", seen.Cookie)
	}
	var session *browser.Cookie
	for _, c := range b.Cookies() {
		if strings.HasPrefix(c.Name, pageSessionCookie) {
			session = &c
		}
	}
	if session == nil || !session.HTTPOnly || session.SameSite != "Strict" || session.Path != "/" {
		t.Errorf("the browser keeps the session cookie as %+v, want HttpOnly, SameSite Strict, Path /", session)
	}

	// Loaded again, without the token: the cookie signs it in.
	b.Reload()
	for _, id := range ids {
		b.WaitVisible(pageRow(id))
	}
	if n := b.Count("[data-chat-id]"); n != len(ids) {
		t.Errorf("after a reload the list has %d rows, want %d", n, len(ids))
	}
	b.Screenshot("reloaded")
	b.NoConsoleErrors(noFavicon)
}

// TestWebPageShowsHostileNamesAsText: names that are markup (made with
// `new --name` and with `rename`) are shown as the text they are: no
// element is made of them, nothing of them runs, no dialog opens.
func TestWebPageShowsHostileNamesAsText(t *testing.T) {
	w := newWebRig(t, "")
	img := `<img src=x onerror=alert(1)>`
	svg := `"><svg onload=alert(2)><b>bold</b>&amp;`
	first := w.chat("new", "--name", img, "--json")
	second := w.chat("new", "--name", "plain for now", "--json")
	w.ok("rename", second.ID, svg)
	o, b := openPage(t, w)
	signIn(b, o, first.ID, second.ID)
	for id, name := range map[string]string{first.ID: img, second.ID: svg} {
		var text string
		b.Eval(fmt.Sprintf(`document.querySelector(%s).textContent`, browser.Quote(pageRow(id))), &text)
		if !strings.Contains(text, name) {
			t.Errorf("the row of %s holds the text %q, want the name %q as it is", id, text, name)
		}
	}
	// No element made of a name: no image in the list, nothing anywhere
	// with the names' handlers or source, no element holding just the
	// name's "bold".
	var made []string
	b.Eval(`[...document.querySelectorAll("[data-chat-id] img, [onerror], [onload], img[src='x']"),
		...[...document.querySelectorAll("[data-chat-id] *")].filter((e) => e.textContent === "bold")].map((e) => e.outerHTML)`, &made)
	if len(made) != 0 {
		t.Errorf("the names made elements: %q", made)
	}
	// The page still works after showing them: a reload lists them again.
	b.Reload()
	b.WaitVisible(pageRow(first.ID))
	b.WaitVisible(pageRow(second.ID))
	b.Screenshot("hostile names")
	if n := b.Count("[data-chat-id] img, [onerror], [onload]"); n != 0 {
		t.Errorf("after a reload the page holds %d elements made of the names", n)
	}
	b.NoConsoleErrors(noFavicon) // also fails on any dialog
}

// TestWebPageChipsNameAnACPChatsFolderAndFile: an ACP chat made with a
// folder and a file shows them as its chips.
func TestWebPageChipsNameAnACPChatsFolderAndFile(t *testing.T) {
	w := newWebRig(t, "")
	file := filepath.Join(w.root, "plan.md")
	if err := os.WriteFile(file, []byte("the plan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	chat := w.chat("new", "--harness", "fake", "--cwd", w.proj, "--dir", w.lib, "--file", file, "--name", "with chips", "--json")
	o, b := openPage(t, w)
	signIn(b, o, chat.ID)
	b.Click(pageRow(chat.ID))
	b.WaitVisible(pageRole("source"))
	for _, p := range []string{w.lib, file} {
		b.WaitTrue("a chip naming "+p, chipNaming(filepath.Base(p)))
	}
	b.Screenshot("ACP chat with chips")
	b.NoConsoleErrors(noFavicon)
}

// TestWebPagePromptGetsTheAgentsReply: a prompt typed in the composer
// (Shift+Enter breaking its line) and sent reaches the agent, and its
// reply shows; Enter sends as the send button does.
func TestWebPagePromptGetsTheAgentsReply(t *testing.T) {
	w := newWebRig(t, "")
	o, b := openPage(t, w)
	_, composer := openACPChat(t, w, b, o, "to prompt")
	b.Type(composer, "hello from the page")
	b.Press("", browser.ShiftEnter)
	b.Type("", "second line")
	b.Click(pageRole("send"))
	waitPageText(b, "body", "echo: hello from the page")
	waitPageText(b, "body", "second line")
	// Enter sends too, and leaves no line behind in the composer.
	b.Type(composer, "sent with enter\n")
	waitPageText(b, "body", "echo: sent with enter")
	var left string
	b.Eval(fmt.Sprintf(`document.querySelector(%s).value`, browser.Quote(composer)), &left)
	if left != "" {
		t.Errorf("after Enter sent, the composer holds %q", left)
	}
	b.Screenshot("ACP chat replied")
	b.NoConsoleErrors(noFavicon)
}

// TestWebPageTerminalEchoesKeys: keys typed into a terminal chat's screen
// reach its harness (a fake that echoes each line), and the screen shows
// the harness's answer.
func TestWebPageTerminalEchoesKeys(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "term-starts.jsonl")
	w := newWebRig(t, fmt.Sprintf("\n[harness.term]\ncommand = %q\nenv = { ACPMUX_FAKE_RECORD = %q, ACPMUX_FAKE_MODE = \"echo\" }\n",
		buildFakeHarness(t), rec))
	chat := w.chat("new", "--harness", "term", "--cwd", w.proj, "--name", "a terminal", "--json")
	o, b := openPage(t, w)
	// Running already, as a chat started in the TUI is (the page's own
	// Start button has no hook).
	srvCall(t, w.home, proto.MethodStart, proto.ChatParams{ID: chat.ID}, nil)
	signIn(b, o, chat.ID)
	b.Click(pageRow(chat.ID))
	term := pageRole("terminal")
	b.WaitVisible(term)
	waitPageText(b, term, "ready>")
	b.Click(term)
	b.Type("", "hello pty\n")
	waitPageText(b, term, "echo: hello pty")
	b.Screenshot("terminal chat")
	if recs := readRecords(t, rec); len(recs) != 1 || recs[0].Cwd != w.proj {
		t.Errorf("the terminal harness started %d times (%+v), want once in %s", len(recs), recs, w.proj)
	}
	b.NoConsoleErrors(noFavicon)
}

// TestWebPageNewChatInsideTheRootsOnly: a chat made on the page with a
// folder chip inside the web roots is made with that folder; a folder
// outside them is refused on the page as it is added, the server's reason
// shown beside the folder field, and nothing is written.
func TestWebPageNewChatInsideTheRootsOnly(t *testing.T) {
	w := newWebRig(t, "")
	existing := w.chat("new", "--name", "already here", "--json")
	o, b := openPage(t, w)
	signIn(b, o, existing.ID)

	input := pageRole("source-input")
	b.Click(pageRole("new-chat"))
	b.WaitVisible(input)
	b.Screenshot("new chat")
	b.Type(input, w.lib+"\n")
	b.WaitTrue("a chip for "+w.lib, chipNaming(filepath.Base(w.lib)))
	b.Click(pageRole("create"))
	var made proto.ChatJSON
	wait.UntilShow(t, "a chat with "+w.lib+" in ls", func() bool {
		for _, c := range w.ls() {
			if c.ID != existing.ID && (c.Cwd == w.lib || slices.Contains(c.AdditionalDirectories, w.lib)) {
				made = c
				return true
			}
		}
		return false
	}, func() string { return fmt.Sprintf("%+v", w.ls()) })
	b.WaitVisible(pageRow(made.ID))
	b.Screenshot("new chat made")
	// Made over the web door: sandboxed ([web] sandbox is on by default),
	// and the page's summary says its bound.
	if made.Sandbox == nil {
		t.Errorf("the page's chat is not sandboxed: %+v", made)
	}
	b.Click(pageRow(made.ID))
	b.WaitTrue("the summary's sandbox line", `document.body.innerText.includes("landlock · writes: folder")`)

	// Outside the roots: refused as it is added (the server checks each
	// chip), the reason beside the field, no chip, nothing written.
	files := w.chatFiles()
	homes := w.homes()
	b.Click(pageRole("new-chat"))
	b.WaitVisible(input)
	b.Type(input, w.outside+"\n")
	b.WaitTrue("the refusal of "+w.outside+" beside "+input, fmt.Sprintf(`(() => {
		for (let n = document.querySelector(%s); n && n !== document.body; n = n.parentElement) {
			if (n.innerText.includes("outside the web roots") && n.innerText.includes(%s)) return true;
		}
		return false;
	})()`, browser.Quote(input), browser.Quote(w.outside)))
	b.Screenshot("folder refused")
	if b.Has(chipNaming(w.outside)) {
		t.Errorf("the refused folder %s was made a chip", w.outside)
	}
	if got := w.chatFiles(); !slices.Equal(got, files) {
		t.Errorf("the refused chat wrote chat files: %v, then %v", files, got)
	}
	if got := w.homes(); !slices.Equal(got, homes) {
		t.Errorf("the refused chat made home folders: %v, then %v", homes, got)
	}
	b.NoConsoleErrors(noFavicon)
}

// TestWebPagePermissionCardReleasesTheAgent: the agent's permission
// request shows as a card; allowing it there answers the agent, whose
// turn goes on with the answer.
func TestWebPagePermissionCardReleasesTheAgent(t *testing.T) {
	w := newWebRig(t, "")
	o, b := openPage(t, w)
	_, composer := openACPChat(t, w, b, o, "asks first")
	b.Type(composer, "permission")
	b.Click(pageRole("send"))
	b.WaitVisible(pageRole("permission-allow"))
	b.WaitVisible(pageRole("permission-deny"))
	b.Screenshot("permission card")
	b.Click(pageRole("permission-allow"))
	waitPageText(b, "body", "permission: allow_once")
	b.Screenshot("permission allowed")
	b.NoConsoleErrors(noFavicon)
}

// TestWebPageOnAPhone: at a phone's width, by touch, the list and the chat
// are two screens: a chat opens over the list, a prompt sent there gets its
// reply, and "Chats" returns to the list.
func TestWebPageOnAPhone(t *testing.T) {
	w := newWebRig(t, "")
	chat := w.chat("new", "--harness", "fake", "--cwd", w.proj, "--name", "on the phone", "--json")
	o, b := openPage(t, w)
	b.Viewport(390, 844, true)
	signIn(b, o, chat.ID)
	composer := pageRole("composer")
	if b.Has(fmt.Sprintf(`!!document.querySelector(%s) && document.querySelector(%s).offsetParent !== null`, browser.Quote(composer), browser.Quote(composer))) {
		t.Fatal("at a phone's width the chat shows beside the list")
	}
	b.Screenshot("phone list")
	b.Click(pageRow(chat.ID))
	b.WaitVisible(composer)
	b.WaitTrue("the list to give the screen to the chat", fmt.Sprintf(`document.querySelector(%s).offsetParent === null`, browser.Quote(pageRow(chat.ID))))
	b.Type(composer, "from my phone\n")
	waitPageText(b, "body", "echo: from my phone")
	waitPageText(b, ".status-pill", "waiting") // the turn over, the agent waits for the next prompt
	b.Screenshot("phone chat")
	// The chat's folder is too long for its chip here: the chip shows where
	// the path ends (the folder's name), cut at its start.
	chip := `document.querySelector('[data-role="source"][data-kind="folder"] .chip-path')`
	if !b.Has(chip + ".scrollWidth > " + chip + ".clientWidth") {
		t.Fatalf("the chat's folder %s fits its chip at a phone's width: the test needs a longer path", w.proj)
	}
	var edges struct{ PathLeft, PathRight, ChipLeft, ChipRight float64 }
	b.Eval(`(() => { const el = `+chip+`, text = document.createRange(); text.selectNodeContents(el);
		const c = el.getBoundingClientRect(), p = text.getBoundingClientRect();
		return {PathLeft: p.left, PathRight: p.right, ChipLeft: c.left, ChipRight: c.right}; })()`, &edges)
	if edges.PathRight > edges.ChipRight+1 || edges.PathLeft >= edges.ChipLeft {
		t.Errorf("the chip cuts the path's end, not its start: path %.0f-%.0f in a chip %.0f-%.0f", edges.PathLeft, edges.PathRight, edges.ChipLeft, edges.ChipRight)
	}
	b.Click("button.back")
	b.WaitVisible(pageRow(chat.ID))
	b.WaitTrue("the chat to leave the screen", fmt.Sprintf(`!document.querySelector(%s) || document.querySelector(%s).offsetParent === null`, browser.Quote(composer), browser.Quote(composer)))
	b.NoConsoleErrors(noFavicon)
}
