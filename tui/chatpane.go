package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/acpmux/acpmux-tui/harness"
	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/screen"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	"github.com/acpmux/acpmux-tui/tui/transcript"
)

// promptHeight is the height of an ACP chat's prompt input.
const promptHeight = 3

// promptDoneMsg reports the end of an ACP turn started from the prompt input.
type promptDoneMsg struct {
	id, reason string
	err        error
}

// agentError is an error that may carry an agent's words, shown on one line
// with no control sequence (the status line); errors.As still sees what it
// wraps.
type agentError struct{ err error }

func (e agentError) Error() string { return plaintext.Line(e.err.Error()) }
func (e agentError) Unwrap() error { return e.err }

// ChatPane shows the selected chat: a pty chat's terminal screen drawn live,
// or an ACP chat's transcript with a prompt input and permission card. It
// reads the mux only from Update (Refresh); View draws cached lines.
type ChatPane struct {
	c   *Common
	mux Mux
	// linkDown is why the shown chat's host does not answer, "" while it
	// does.
	linkDown string
	send     func(id string, b []byte) // queues input for a harness, in order
	w, h     int

	id, name, harnessName, transport string
	root                             string // the chat's folder (SetRoot)
	focused                          bool
	state                            proto.State
	term                             proto.Terminal
	scroll                           int // lines scrolled back; 0 is live

	screen     []string         // the lines drawn
	transcript *transcript.View // an ACP chat's transcript laid out at width w
	permLines  []string         // what the permission card asks about
	find       finder           // the search line over the transcript
	input      Composer
	// cursorCh is the character last drawn under the cursor, and
	// cursorCell it drawn so (drawCursor: most echoes draw the same).
	cursorCh, cursorCell string

	// An ACP turn that goes quiet says so: now is the clock as of the last
	// Tick, heardAt when the running turn last heard from the agent, cardAt
	// when a permission card last showed (waiting for the user is not
	// waiting for the agent).
	now, heardAt, cardAt time.Time
	// answered is set once a key answered the card numbered answeredSeq,
	// until another card (or none) shows: a second key press must not
	// answer a card the user has not seen.
	answered    bool
	answeredSeq uint64
}

var (
	keyPgUp  = key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup/pgdn", "scroll chat"))
	keyPgDn  = key.NewBinding(key.WithKeys("pgdown"))
	keySend  = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send"))
	keyNL    = key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"), key.WithHelp("alt+enter", "new line"))
	keyEsc   = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel turn"))
	keyDigit = key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1-9", "answer"))
)

// NewChatPane returns a chat pane drawing chats of m; send queues input.
func NewChatPane(c *Common, m Mux, send func(string, []byte)) *ChatPane {
	return &ChatPane{c: c, mux: m, send: send, input: NewComposer(c, m, time.Now)}
}

// SetSize sets the inner size (the pty size of every chat) and redraws.
func (p *ChatPane) SetSize(w, h int) {
	p.w, p.h = w, h
	p.input.SetWidth(w)
	p.Refresh()
}

// Show switches the pane to a chat (id "" shows nothing).
func (p *ChatPane) Show(id, name, harnessName, transport string) {
	if id != p.id {
		p.scroll = 0
		p.answered = false
	}
	p.id, p.name, p.harnessName, p.transport = id, name, harnessName, transport
	p.input.SetChat(id)
	p.Refresh()
}

// SetRoot gives the shown chat's folder: the paths its tool cards show
// inside it are shown relative to it. Refresh draws it.
func (p *ChatPane) SetRoot(root string) { p.root = root }

// SetLinkDown says why the shown chat's host does not answer ("" while it
// does): the pane's banner says the link is down. Refresh draws it.
func (p *ChatPane) SetLinkDown(why string) { p.linkDown = why }

// ID returns the chat shown.
func (p *ChatPane) ID() string { return p.id }

// IsACP reports whether the chat shown speaks ACP.
func (p *ChatPane) IsACP() bool { return p.transport == harness.TransportACP }

// SetFocus gives the pane the keyboard (or takes it away).
func (p *ChatPane) SetFocus(on bool) {
	p.focused = on
	if on {
		p.scroll = 0
		p.input.Focus()
	} else {
		p.input.Blur()
	}
	p.Refresh()
}

// Stopped reports whether the shown chat's harness has ended (it failed,
// exited or was stopped) after it was started: keys go nowhere then.
func (p *ChatPane) Stopped() bool {
	switch p.state.Status {
	case proto.StatusFailed, proto.StatusExited:
		return true
	case proto.StatusStopped:
		return !p.state.Started.IsZero() || p.state.LastError != ""
	}
	return false
}

// Focused reports whether keys go to the chat.
func (p *ChatPane) Focused() bool { return p.focused }

// State returns the shown chat's harness state as last read.
func (p *ChatPane) State() proto.State { return p.state }

// Refresh reads the shown chat from the mux (in-memory) and lays out its
// lines. It is called on a change notice for the chat, never from View.
func (p *ChatPane) Refresh() {
	p.screen = p.screen[:0]
	// The state is read even before the pane has a size: the summary
	// shows it, and a change may come before the terminal's first size.
	p.state = proto.State{}
	if p.id != "" {
		p.state = p.mux.State(p.id)
	}
	p.input.SetCommands(p.state.Commands)
	if p.id == "" || p.w <= 0 || p.h <= 0 {
		return
	}
	if p.IsACP() {
		p.refreshACP()
		return
	}
	p.term = p.mux.Terminal(p.id)
	p.scroll = min(p.scroll, p.term.Scrollback)
	raw := p.mux.Render(p.id, p.scroll)
	if raw == "" {
		p.fitAll(p.placeholder())
		return
	}
	// The screen's lines are exactly its width; they are measured only
	// while the screen and the pane disagree (a resize on its way).
	exact := p.term.Cols == p.w
	lines := strings.Split(raw, "\n")
	if banner := p.stoppedBanner(); banner != "" {
		lines = withBanner(lines, p.h, banner)
	}
	for i, line := range lines {
		if i >= p.h {
			break
		}
		if i == p.term.CursorRow && p.focused && p.scroll == 0 && p.term.CursorVisible && p.state.Status.Live() {
			line = p.drawCursor(line, p.term.CursorCol)
		}
		if !exact {
			line = fitLine(line, p.w)
		}
		p.screen = append(p.screen, line)
	}
}

// RefreshScreen refreshes the pane for a change of chat id and reports
// whether it shows that chat: false asks the caller for the whole
// refresh of the selected chat (refreshSelected). The caller compares the
// state read with what the summary shows: most changes of the chat shown,
// a key's echo among them, are only its screen.
func (p *ChatPane) RefreshScreen(id string) bool {
	if id != p.id || id == "" {
		return false
	}
	p.Refresh()
	return true
}

// stoppedBanner is the line a chat whose harness does not run shows under
// what it last drew: how it ended, and that enter starts it again. It is
// "" while the harness runs.
func (p *ChatPane) stoppedBanner() string {
	st := p.state
	if p.linkDown != "" {
		// The chat runs on over there; its screen is as it was last told.
		text := "── link down · reconnecting… · keys are not sent · " + plaintext.Line(p.linkDown) + " "
		return p.c.Styles.Warn.Render(ansi.Truncate(text+strings.Repeat("─", max(p.w-ansi.StringWidth(text), 0)), p.w, "…"))
	}
	if st.Status.Live() {
		return ""
	}
	what := "stopped"
	switch st.Status {
	case proto.StatusExited:
		what = "exited"
	case proto.StatusFailed:
		what = "failed"
	}
	// The key before the reason: a long reason is cut at the pane's edge.
	text := "── " + p.harnessName + " " + what + " · " + p.c.Keys.Focus.Help().Key + " restarts it "
	if st.Status != proto.StatusStopped && st.Reason != "" {
		text += "· " + plaintext.Line(st.Reason) + " "
	}
	return p.c.Styles.Warn.Render(ansi.Truncate(text+strings.Repeat("─", max(p.w-ansi.StringWidth(text), 0)), p.w, "…"))
}

// withBanner puts banner on the pane's last row of lines (h rows): on a
// blank row at the bottom when there is one, else below the lines,
// scrolling the top line away, so nothing the harness printed last is
// covered.
func withBanner(lines []string, h int, banner string) []string {
	if h <= 0 {
		return lines
	}
	lines = lines[:min(len(lines), h)]
	n := len(lines)
	switch {
	case n < h:
		return append(lines[:n:n], banner)
	case strings.TrimSpace(ansi.Strip(lines[n-1])) == "":
		out := append([]string(nil), lines...)
		out[n-1] = banner
		return out
	}
	return append(lines[1:n:n], banner)
}

// fitAll sets the screen to lines fitted to the pane's width.
func (p *ChatPane) fitAll(lines []string) {
	for _, l := range lines {
		p.screen = append(p.screen, fitLine(l, p.w))
	}
}

// drawCursor shows the harness's cursor as a reversed cell at col.
func (p *ChatPane) drawCursor(line string, col int) string {
	return screen.WithCursor(line, col, p.w, p.cursorCellOf)
}

// cursorCellOf is ch drawn as the cursor's cell, kept for the next.
func (p *ChatPane) cursorCellOf(ch string) string {
	if ch != p.cursorCh {
		p.cursorCh, p.cursorCell = ch, p.c.Styles.Cursor.Render(ch)
	}
	return p.cursorCell
}

// placeholder is drawn for a chat whose harness has not drawn anything.
func (p *ChatPane) placeholder() []string {
	st := p.c.Styles
	var msg []string
	switch p.state.Status {
	case proto.StatusFailed:
		msg = []string{st.Error.Render(p.harnessName + " could not start"), ""}
		for _, l := range strings.Split(ansi.Wrap(p.state.Reason, max(p.w-4, 10), " "), "\n") {
			msg = append(msg, st.Dim.Render(l))
		}
		msg = append(msg, "", st.Dim.Render("press "+p.c.Keys.Focus.Help().Key+" to start it again"))
	case proto.StatusStarting, proto.StatusRunning, proto.StatusAsking, proto.StatusWaiting:
		msg = []string{st.Dim.Render("starting " + p.harnessName + "…")}
	default:
		msg = []string{
			p.harnessName + " is not running",
			"",
			st.Dim.Render("press " + p.c.Keys.Focus.Help().Key + " to start it and type to it"),
		}
	}
	return centre(msg, p.w, p.h)
}

func (p *ChatPane) refreshACP() {
	entries := p.mux.Transcript(p.id)
	if p.transcript == nil {
		p.transcript = transcript.New(p.c.Styles.Markdown)
	}
	p.transcript.SetRoot(p.root)
	p.heardAt = proto.LastUpdate(entries)
	cardH := 0
	p.permLines = nil
	if perm := p.state.Permission; perm != nil {
		// Above the options, what is asked: the edit's diff or the
		// command, a few lines of it.
		limit := min(permContentLines, max((p.h-promptHeight-1-2)/2-1, 0))
		if limit > 0 {
			p.permLines = transcript.PermissionLines(p.c.Styles.Markdown, perm.Content, p.w, limit)
		}
		cardH = 2 + len(p.permLines)
		p.cardAt = p.now
		// The mux cleans what agents write; a card is drawn on one line
		// whatever reached it.
		card := *perm
		card.Title = plaintext.Line(card.Title)
		card.Options = append([]proto.PermissionOption(nil), card.Options...)
		for i := range card.Options {
			card.Options[i].Name = plaintext.Line(card.Options[i].Name)
		}
		p.state.Permission = &card
	}
	if perm := p.state.Permission; perm == nil || perm.Seq != p.answeredSeq {
		p.answered = false
	}
	th := max(p.h-promptHeight-1-cardH, 0)
	// Only the entries that changed are laid out again; a pane scrolled
	// back moves by the lines added under what it shows, so they stay put.
	shift := p.transcript.Update(p.id, entries, p.w, int(p.now.Unix()), p.transcript.Len()-p.scroll)
	if p.scroll > 0 {
		p.scroll += shift
	}
	total := p.transcript.Len()
	p.findLaid(th)
	p.scroll = min(p.scroll, max(total-th, 0))
	end := total - p.scroll
	start := max(end-th, 0)
	if total == 0 {
		p.fitAll(centre([]string{p.c.Styles.Dim.Render("No messages yet: write a prompt below.")}, p.w, th))
		for len(p.screen) < th {
			// The prompt stays at the pane's foot, as it does below a
			// transcript.
			p.screen = append(p.screen, strings.Repeat(" ", p.w))
		}
	} else {
		for i := 0; i < th-(end-start); i++ {
			p.screen = append(p.screen, strings.Repeat(" ", p.w))
		}
		for i, l := range p.transcript.Window(start, end) {
			p.screen = append(p.screen, fitLine(p.findMark(l, start+i), p.w))
		}
	}
}

// permContentLines bounds the lines of a permission card's content (the
// diff or the command) shown above its options.
const permContentLines = 8

// Tick moves the clock a quiet ACP turn is counted on ("no reply yet").
func (p *ChatPane) Tick(now time.Time) {
	p.now = now
	if p.state.Permission != nil {
		p.cardAt = now
	}
	if p.IsACP() && p.transcript != nil && p.transcript.Spinning() {
		p.Refresh() // a running tool card's spinner turns with the clock
	}
}

// quiet is how long the running ACP turn has not heard from the agent, as
// of the last Tick; 0 while a permission card waits for the user.
func (p *ChatPane) quiet() time.Duration {
	if !p.state.TurnActive || p.state.Permission != nil || p.now.IsZero() {
		return 0
	}
	since := p.heardAt
	if p.cardAt.After(since) {
		since = p.cardAt
	}
	if since.IsZero() {
		return 0
	}
	return max(p.now.Sub(since), 0)
}

// ScrollBy scrolls the scrollback (or transcript) by n lines; positive
// looks back.
func (p *ChatPane) ScrollBy(n int) {
	p.scroll = max(p.scroll+n, 0)
	p.Refresh()
}

// Scrolled returns how far the pane is scrolled back.
func (p *ChatPane) Scrolled() int { return p.scroll }

// ReadingKey handles a key of reading an ACP chat's transcript: copy,
// find (and every key while the search is open) and fold. ok is false for
// any other key, and for a pty chat. A stopped chat takes these too: its
// conversation is there to read.
func (p *ChatPane) ReadingKey(msg tea.KeyMsg) (cmd tea.Cmd, ok bool) {
	if p.id == "" || !p.IsACP() {
		return nil, false
	}
	switch {
	case key.Matches(msg, p.c.Keys.Copy, p.c.Keys.CopyCode):
		return copyEntry(p.mux.Transcript(p.id), p.copyEnd(), key.Matches(msg, p.c.Keys.CopyCode)), true
	case p.find.on:
		return p.findKey(msg), true
	case key.Matches(msg, p.c.Keys.Find) && p.transcript != nil:
		p.openFind()
		return nil, true
	case key.Matches(msg, p.c.Keys.Fold):
		// Every folded card, thought and long message opens, or folds.
		if p.transcript != nil {
			p.transcript.Toggle()
			p.Refresh()
		}
		return nil, true
	}
	return nil, false
}

// Update handles a key while the pane is focused. A pty chat gets the key's
// bytes; an ACP chat's prompt input, permission card and turn take theirs.
func (p *ChatPane) Update(msg tea.KeyMsg) tea.Cmd {
	if p.id == "" {
		return nil
	}
	if !p.IsACP() {
		if b := encodeKey(msg, p.term.Modes); len(b) > 0 {
			p.send(p.id, b)
		}
		return nil
	}
	id, m := p.id, p.mux
	if perm := p.state.Permission; perm != nil {
		switch {
		case key.Matches(msg, keyDigit):
			n := int(msg.Runes[0] - '1')
			if n < len(perm.Options) && !p.answered {
				opt := perm.Options[n].ID
				p.answered, p.answeredSeq = true, perm.Seq
				return func() tea.Msg { return errMsgOf("answer permission", m.AnswerPermission(id, opt)) }
			}
			return nil
		case key.Matches(msg, keyEscape):
			if p.answered {
				return nil
			}
			p.answered, p.answeredSeq = true, perm.Seq
			return func() tea.Msg { return errMsgOf("cancel permission", m.AnswerPermission(id, "")) }
		}
	}
	if cmd, ok := p.ReadingKey(msg); ok {
		return cmd
	}
	if cmd, ok := p.input.HandleKey(msg, func() []proto.Entry { return m.Transcript(id) }); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, keySend) && !msg.Paste:
		text, links := p.input.Take()
		if text == "" {
			return nil
		}
		return func() tea.Msg {
			reason, err := m.Prompt(context.Background(), id, text, links...)
			if err != nil {
				err = agentError{err}
			}
			return promptDoneMsg{id, reason, err}
		}
	case key.Matches(msg, keyEscape):
		if p.state.TurnActive {
			return func() tea.Msg { return errMsgOf("cancel turn", m.Cancel(id)) }
		}
		return nil
	}
	return p.input.Type(typedText(msg))
}

// Title is the pane's box title: the chat and where keys go.
func (p *ChatPane) Title() string {
	if p.id == "" {
		return "chat"
	}
	t := p.name
	switch {
	case p.focused && p.Stopped():
		t += " · not running · " + p.c.Keys.Focus.Help().Key + " restarts it · " + p.c.Keys.Leave.Help().Key + " leaves"
	case p.focused && !p.IsACP():
		t += " · keys go to " + p.harnessName + " · " + p.c.Keys.Leave.Help().Key + " leaves"
	case p.focused:
		t += " · " + p.c.Keys.Leave.Help().Key + " leaves"
	case p.scroll > 0:
		t += fmt.Sprintf(" · scrolled back %d lines", p.scroll)
	}
	return t
}

// ShortHelp returns the bindings of the focused pane.
func (p *ChatPane) ShortHelp() []key.Binding {
	leave := p.c.Keys.Leave
	if p.Stopped() {
		return []key.Binding{key.NewBinding(key.WithKeys(""), key.WithHelp(p.c.Keys.Focus.Help().Key, "restart it")), leave}
	}
	if !p.IsACP() {
		return []key.Binding{leave, key.NewBinding(key.WithKeys(""), key.WithHelp("keys", "go to "+p.harnessName))}
	}
	if p.state.Permission != nil {
		return []key.Binding{keyDigit, key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "dismiss")), leave}
	}
	if p.find.on {
		return append(p.findHelp(), leave)
	}
	if h := p.input.PopupHelp(); h != nil {
		return append(h, leave)
	}
	// The composer's keys take the room a one-line bar has: esc only
	// while a turn runs.
	keys := append([]key.Binding{keySend}, p.input.ShortHelp(p.state.TurnActive)...)
	keys = append(keys, p.c.Keys.Fold)
	if p.state.TurnActive {
		keys = append(keys, keyEsc)
	}
	return append(keys, leave)
}

// View returns the pane's lines.
func (p *ChatPane) View() []string {
	if !p.IsACP() || p.id == "" {
		return p.screen
	}
	st := p.c.Styles
	var extra []string
	if perm := p.state.Permission; perm != nil {
		head := "⚠ permission: " + perm.Title
		if perm.Pending > 1 {
			head = fmt.Sprintf("⚠ permission 1 of %d: %s", perm.Pending, perm.Title)
		}
		extra = append(extra, st.Warn.Render(truncPlain(head, p.w)))
		extra = append(extra, p.permLines...)
		var opts []string
		for i, o := range perm.Options {
			opts = append(opts, fmt.Sprintf("%d %s", i+1, o.Name))
		}
		extra = append(extra, truncPlain(strings.Join(opts, " · "), p.w))
	}
	sep := strings.Repeat("─", p.w)
	banner := ""
	if p.state.Status != proto.StatusStopped || p.transcript != nil && p.transcript.Len() > 0 {
		// A chat that never ran has nothing to say it stopped.
		banner = p.stoppedBanner()
	}
	if p.state.TurnActive {
		label := "── turn running · "
		if d := p.quiet(); d >= proto.NoReplyAfter {
			label += fmt.Sprintf("no reply yet (%ds) · ", int(d/time.Second))
		}
		sep = ansi.Truncate(label+"esc cancels "+sep, p.w, "")
	}
	if p.find.on {
		extra = append(extra, p.findLine())
	} else if banner != "" {
		extra = append(extra, banner)
	} else {
		extra = append(extra, st.Dim.Render(sep))
	}
	extra = append(extra, strings.Split(p.input.View(), "\n")...)
	out := append([]string(nil), p.screen...)
	// The composer's popup covers the transcript's last lines, just above
	// the input.
	if pop := p.input.PopupView(len(out)); len(pop) > 0 {
		copy(out[len(out)-len(pop):], pop)
	}
	for _, l := range extra {
		out = append(out, fitLine(l, p.w))
	}
	return out
}

// centre places lines in the middle of a w x h area.
func centre(lines []string, w, h int) []string {
	out := make([]string, 0, h)
	top := max((h-len(lines))/2, 0)
	for range top {
		out = append(out, "")
	}
	for _, l := range lines {
		if len(out) >= h {
			break
		}
		pad := max((w-ansi.StringWidth(l))/2, 0)
		out = append(out, strings.Repeat(" ", pad)+l)
	}
	return out
}
