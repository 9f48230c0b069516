package tui

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/acpmux/acpmux-tui/internal/mention"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/cursor"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/textarea"
)

// Composer is an ACP chat's prompt input: a text area that offers the
// agent's slash commands after a / at the start of the prompt and the
// chat's files after an @, puts a chosen file in the prompt as a chip
// (@name) whose link goes with the prompt while its token stays in the
// text, and walks the chat's past prompts with up and down.
type Composer struct {
	c     *Common
	lists ChatLists
	now   func() time.Time
	input textarea.Model
	w     int

	id       string
	commands []proto.Command

	// The popup: what it offers, where its token starts on the cursor's
	// line (in runes), the query typed after the / or @, the rows and the
	// selected one. dismissed is the token esc closed, kept closed until
	// the token changes.
	kind      popupKind
	tokStart  int
	query     string
	items     []popupItem
	sel       int
	dismissed string
	// hint is the completed command's input hint, shown dimmed while the
	// prompt is that command alone.
	hint, hintFor string

	// listings are the chats' file listings (a few chats, a short while);
	// listing is the chat whose listing is on its way.
	listings map[string]mentionListing
	listing  string

	// chips are the files chosen for this prompt, each with its token.
	chips []mentionChip

	// History: sent are the prompts sent from here per chat this run
	// (drafts the prompts left unsent in other chats);
	// hist is the walk's list (oldest first) while walking, histAt the
	// place in it (-1: the draft), draft and draftChips what was being
	// typed when the walk began.
	sent       map[string][]pastPrompt
	drafts     map[string]chatDraft
	hist       []pastPrompt
	histAt     int
	draft      string
	draftChips []mentionChip

	chip, dim, sel1, selDim lipgloss.Style
}

// popupKind is what the composer's popup offers.
type popupKind int

const (
	popupNone     popupKind = iota
	popupCommands           // the agent's slash commands
	popupFiles              // the chat's files
)

// popupItem is one row of the popup: what it shows, what completing it
// puts in the prompt, and for a file its path.
type popupItem struct {
	label, desc, insert, path, hint string
}

// mentionChip is a file chosen with @: its token in the prompt text and
// its absolute path.
type mentionChip struct {
	token, path string
}

// popupRows is the most rows the popup shows at once.
const popupRows = 8

// historyMax bounds the prompts kept per chat for the history walk.
const historyMax = 200

// The composer's keys, beside the pane's enter (send) and esc.
var (
	keyPopupComplete = key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete"))
	keyPopupUp       = key.NewBinding(key.WithKeys("up", "ctrl+p"))
	keyPopupDown     = key.NewBinding(key.WithKeys("down", "ctrl+n"))
	keyHistory       = key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑", "history"))
	keySlash         = key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "commands"))
	keyMention       = key.NewBinding(key.WithKeys("@"), key.WithHelp("@", "files"))
	keyBackspace     = tea.KeyMsg{Type: tea.KeyBackspace}
)

// NewComposer returns an empty composer; lists reads a chat's folders and
// files, now is the clock its file listings age by.
func NewComposer(c *Common, lists ChatLists, now func() time.Time) Composer {
	in := textarea.New()
	in.Placeholder = "Write a prompt; enter sends, alt+enter adds a line"
	in.ShowLineNumbers = false
	in.Prompt = "│ "
	in.SetHeight(promptHeight)
	in.KeyMap.InsertNewline = keyNL
	in.Cursor.SetMode(cursor.CursorStatic)
	in.FocusedStyle.CursorLine = c.Styles.Plain
	in.FocusedStyle.Prompt = c.Styles.Accent
	in.BlurredStyle.Prompt = c.Styles.Dim
	in.FocusedStyle.Placeholder = c.Styles.Dim
	in.BlurredStyle.Placeholder = c.Styles.Dim
	st := c.Styles
	return Composer{
		c: c, lists: lists, now: now, input: in, histAt: -1,
		listings: map[string]mentionListing{}, sent: map[string][]pastPrompt{}, drafts: map[string]chatDraft{},
		chip: st.SelectedName, dim: st.Dim, sel1: st.SelectedName, selDim: st.SelectedDim,
	}
}

// SetWidth sets the width of the input and the popup.
func (c *Composer) SetWidth(w int) {
	c.w = w
	c.input.SetWidth(max(w, 4))
}

// SetChat shows chat id's prompt when it is another chat: the draft left
// there (kept with its chips while another chat was shown), else none.
func (c *Composer) SetChat(id string) {
	if id == c.id {
		return
	}
	text, chips := c.input.Value(), c.chips
	if c.histAt >= 0 {
		text, chips = c.draft, c.draftChips
	}
	if text != "" {
		c.drafts[c.id] = chatDraft{text, chips}
	} else {
		delete(c.drafts, c.id)
	}
	c.id = id
	c.reset()
	if d, ok := c.drafts[id]; ok {
		c.input.SetValue(d.text)
		c.chips = d.chips
		delete(c.drafts, id)
	}
}

// chatDraft is a prompt left unsent in a chat while another is shown.
type chatDraft struct {
	text  string
	chips []mentionChip
}

// reset empties the prompt, its chips, the popup and the history walk.
func (c *Composer) reset() {
	c.input.Reset()
	c.chips, c.draftChips = nil, nil
	c.hist, c.histAt, c.draft = nil, -1, ""
	c.closePopup()
	c.dismissed, c.hint, c.hintFor = "", "", ""
}

// SetCommands sets the agent's slash commands (cleaned by the mux); an
// open popup of commands shows the new ones.
func (c *Composer) SetCommands(cmds []proto.Command) {
	c.commands = cmds
	if c.kind == popupCommands {
		c.filter()
	}
}

// Focus and Blur give the input the keyboard and take it away.
func (c *Composer) Focus() { c.input.Focus() }

// Blur takes the keyboard away.
func (c *Composer) Blur() { c.input.Blur() }

// Value is the prompt's text as typed.
func (c *Composer) Value() string { return c.input.Value() }

// PopupOpen reports whether the popup is open with rows to choose from:
// the keys it takes (up, down, tab, enter, esc) go to it then.
func (c *Composer) PopupOpen() bool { return c.kind != popupNone && len(c.items) > 0 }

// HandleKey takes the keys the composer answers before the pane's own:
// the popup's while it is open, and up and down where they walk the
// history (past reads the chat's transcript for it). handled is false for
// every other key.
func (c *Composer) HandleKey(msg tea.KeyMsg, past func() []proto.Entry) (tea.Cmd, bool) {
	if msg.Paste {
		return nil, false
	}
	// A popup of commands with none to show is not drawn: esc is the
	// pane's then.
	if c.kind == popupFiles || c.PopupOpen() {
		switch {
		case key.Matches(msg, keyEscape):
			c.dismissed = tokenKey(c.token())
			c.closePopup()
			return nil, true
		case !c.PopupOpen():
		case key.Matches(msg, keyPopupUp):
			c.sel = (c.sel + len(c.items) - 1) % len(c.items)
			return nil, true
		case key.Matches(msg, keyPopupDown):
			c.sel = (c.sel + 1) % len(c.items)
			return nil, true
		case key.Matches(msg, keyPopupComplete), key.Matches(msg, keySend):
			c.complete(c.items[c.sel])
			return nil, true
		}
	}
	switch {
	case key.Matches(msg, keyPopupUp) && msg.Type == tea.KeyUp && c.canWalk(true):
		c.walk(+1, past)
		return nil, true
	case key.Matches(msg, keyPopupDown) && msg.Type == tea.KeyDown && c.canWalk(false):
		c.walk(-1, past)
		return nil, true
	}
	return nil, false
}

// Type gives a key to the text area, then opens, filters or closes the
// popup for the token at the cursor; it may return the listing of the
// chat's files.
func (c *Composer) Type(msg tea.KeyMsg) tea.Cmd {
	before := c.input.Value()
	var cmd tea.Cmd
	c.input, cmd = c.input.Update(msg)
	if c.input.Value() != before {
		// An edit ends a history walk: what is shown is the draft now.
		c.hist, c.histAt = nil, -1
		c.pruneChips()
	}
	return tea.Batch(cmd, c.updatePopup())
}

// Take returns the prompt to send, trimmed, with the links of the chips
// whose tokens are still in it, and empties the composer; the prompt goes
// into the chat's history. text is "" when there is nothing to send.
func (c *Composer) Take() (text string, links []proto.Link) {
	text = strings.TrimSpace(c.input.Value())
	if text == "" {
		return "", nil
	}
	seen := map[string]bool{}
	for _, ch := range c.chips {
		if seen[ch.path] || !strings.Contains(text, ch.token) || len(links) >= proto.MaxPromptLinks {
			continue
		}
		seen[ch.path] = true
		links = append(links, fileLink(ch.path))
	}
	sent := append(c.sent[c.id], pastPrompt{text, links})
	if len(sent) > historyMax {
		sent = sent[len(sent)-historyMax:]
	}
	c.sent[c.id] = sent
	c.reset()
	return text, links
}

// fileLink is the resource link of the file at path (absolute).
func fileLink(path string) proto.Link {
	u := url.URL{Scheme: "file", Path: path}
	return proto.Link{URI: u.String(), Name: filepath.Base(path)}
}

// FilesListed keeps a chat's file listing and, when the popup waits for
// it, fills the popup; when the query has moved past what the listing
// serves meanwhile, it lists again.
func (c *Composer) FilesListed(msg mentionFilesMsg) tea.Cmd {
	if c.listing == msg.id {
		c.listing = ""
	}
	c.listings[msg.id] = mentionListing{files: msg.files, note: msg.note, at: msg.at, query: msg.query, partial: msg.partial}
	if len(c.listings) > mention.Cached {
		oldest := ""
		for id, l := range c.listings {
			if id != c.id && (oldest == "" || l.at.Before(c.listings[oldest].at)) {
				oldest = id
			}
		}
		delete(c.listings, oldest)
	}
	if msg.id == c.id && c.kind == popupFiles {
		c.filter()
		return c.listFiles()
	}
	return nil
}

// cursorLine returns the cursor's line of text and the cursor's column in
// runes.
func (c *Composer) cursorLine() ([]rune, int) {
	lines := strings.Split(c.input.Value(), "\n")
	row := min(c.input.Line(), len(lines)-1)
	li := c.input.LineInfo()
	line := []rune(lines[row])
	return line, min(li.StartColumn+li.ColumnOffset, len(line))
}

// token finds what the popup offers for the text before the cursor: a /
// at the very start of the prompt with no space after it, or an @ at the
// start of a word; start is where the token begins.
func (c *Composer) token() (kind popupKind, start int, query string) {
	line, col := c.cursorLine()
	before := line[:col]
	if c.input.Line() == 0 && len(before) > 0 && before[0] == '/' && !slices.ContainsFunc(before, isSpace) {
		return popupCommands, 0, string(before[1:])
	}
	i := len(before)
	for i > 0 && !isSpace(before[i-1]) {
		i--
	}
	if i < len(before) && before[i] == '@' {
		return popupFiles, i, string(before[i+1:])
	}
	return popupNone, 0, ""
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' }

// tokenKey names a token, for dismissed.
func tokenKey(kind popupKind, start int, query string) string {
	return fmt.Sprint(kind, ":", start, ":", query)
}

// updatePopup opens, filters or closes the popup for the token at the
// cursor; opening the files' popup lists the chat's files when no fresh
// listing is kept.
func (c *Composer) updatePopup() tea.Cmd {
	kind, start, query := c.token()
	if kind == popupNone || tokenKey(kind, start, query) == c.dismissed {
		c.closePopup()
		return nil
	}
	c.dismissed = ""
	if kind != c.kind || start != c.tokStart || query != c.query {
		c.sel = 0
	}
	c.kind, c.tokStart, c.query = kind, start, query
	c.filter()
	if kind != popupFiles {
		return nil
	}
	return c.listFiles()
}

// listFiles lists the chat's files for the files' popup unless a listing
// is on its way, or one is kept that is fresh and serves the query.
func (c *Composer) listFiles() tea.Cmd {
	if c.id == "" || c.lists == nil || c.listing == c.id {
		return nil
	}
	if l, ok := c.listings[c.id]; ok && c.now().Sub(l.at) < mention.Fresh && l.serves(c.query) {
		return nil
	}
	c.listing = c.id
	return listMentionFiles(c.lists, c.id, c.query, c.now)
}

func (c *Composer) closePopup() {
	c.kind, c.items, c.sel, c.query, c.tokStart = popupNone, nil, 0, "", 0
}

// filter fills the popup's rows for its query.
func (c *Composer) filter() {
	switch c.kind {
	case popupCommands:
		c.items = filterCommands(c.commands, c.query)
	case popupFiles:
		c.items = filterFiles(c.listings[c.id].files, c.query)
	default:
		c.items = nil
	}
	c.sel = min(c.sel, max(len(c.items)-1, 0))
}

// filterCommands offers the commands whose names start with query first,
// in the agent's order, then those it matches fuzzily, best first.
func filterCommands(cmds []proto.Command, query string) []popupItem {
	type scored struct {
		cmd   proto.Command
		score int
	}
	var head []proto.Command
	var fuzzy []scored
	for _, cmd := range cmds {
		if mention.HasPrefixFold(cmd.Name, query) {
			head = append(head, cmd)
		} else if s, ok := mention.Score(query, cmd.Name); ok {
			fuzzy = append(fuzzy, scored{cmd, s})
		}
	}
	slices.SortStableFunc(fuzzy, func(a, b scored) int { return b.score - a.score })
	for _, f := range fuzzy {
		head = append(head, f.cmd)
	}
	items := make([]popupItem, 0, len(head))
	for _, cmd := range head {
		items = append(items, popupItem{label: "/" + cmd.Name, desc: cmd.Description, insert: "/" + cmd.Name + " ", hint: cmd.Hint})
	}
	return items
}

// mentionShown bounds the files the popup's filter keeps (the popup
// scrolls through them).
const mentionShown = 200

// filterFiles offers the chat's own files that match query first, then
// its folders' files, each group best first (mention.Rank: the order
// _acpmux/files answers too).
func filterFiles(files []mention.File, query string) []popupItem {
	ranked, _ := mention.Rank(files, query, mentionShown)
	items := make([]popupItem, 0, len(ranked))
	for _, f := range ranked {
		desc := ""
		if f.Own {
			desc = "chat file"
		}
		items = append(items, popupItem{label: f.Label, desc: desc, path: f.Path})
	}
	return items
}

// complete replaces the token at the cursor with the chosen row: a
// command's "/name ", or a file's chip "@name " whose link is kept.
func (c *Composer) complete(it popupItem) {
	_, col := c.cursorLine()
	for range col - c.tokStart {
		c.input, _ = c.input.Update(keyBackspace)
	}
	insert := it.insert
	if it.path != "" {
		token := c.chipToken(it)
		c.chips = append(c.chips, mentionChip{token: token, path: it.path})
		insert = token + " "
	}
	c.input.InsertString(insert)
	c.hint, c.hintFor = "", ""
	if c.kind == popupCommands && it.hint != "" {
		c.hint, c.hintFor = it.hint, insert
	}
	c.hist, c.histAt = nil, -1
	c.closePopup()
	c.dismissed = ""
}

// chipToken is the token of a file chip: @ and its base name, or its
// label when another chip of the prompt has that name for another file.
func (c *Composer) chipToken(it popupItem) string {
	// The name is cleaned as the label was: a file's name is outside
	// text, and the token goes into the prompt.
	token := "@" + mention.Text(filepath.Base(it.path))
	for _, ch := range c.chips {
		if ch.token == token && ch.path != it.path {
			return "@" + it.label
		}
	}
	return token
}

// pruneChips drops the chips whose tokens the text no longer holds.
func (c *Composer) pruneChips() {
	text := c.input.Value()
	c.chips = slices.DeleteFunc(c.chips, func(ch mentionChip) bool { return !strings.Contains(text, ch.token) })
}

// FilesListed gives the composer the files listed for a chat's @ popup.
func (p *ChatPane) FilesListed(msg mentionFilesMsg) tea.Cmd { return p.input.FilesListed(msg) }

// The popup's keys as the help bar names them.
var (
	keyPopupMove  = key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", "choose"))
	keyPopupTake  = key.NewBinding(key.WithKeys("tab", "enter"), key.WithHelp("tab/enter", "complete"))
	keyPopupClose = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close"))
)

// PopupHelp returns the popup's keys while it is open, nil otherwise.
func (c *Composer) PopupHelp() []key.Binding {
	switch {
	case c.PopupOpen():
		return []key.Binding{keyPopupMove, keyPopupTake, keyPopupClose}
	case c.kind != popupNone:
		return []key.Binding{keyPopupClose}
	}
	return nil
}

// ShortHelp returns the composer's keys for the help bar (enter aside):
// with an empty prompt what starts one (/, @, and the history but while a
// turn runs, when the bar needs the room for esc), else the new line.
func (c *Composer) ShortHelp(turn bool) []key.Binding {
	if c.input.Value() != "" {
		return []key.Binding{keyNL}
	}
	if turn {
		return []key.Binding{keySlash, keyMention}
	}
	return []key.Binding{keySlash, keyMention, keyHistory}
}
