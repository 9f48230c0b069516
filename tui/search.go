package tui

import (
	"fmt"
	"strings"

	"github.com/acpmux/acpmux-tui/third_party/bubbles/cursor"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/acpmux/acpmux-tui/proto"
)

// This file is the search of every chat (F): a line of words, searched on
// the local server and every host that answers (_acpmux/search, as
// `acpmux-tui search` does), the hits listed per chat; enter on a hit
// selects its chat in the list, and opens it when the hit was on its
// screen. Words typed after a search search again on enter.

// Searcher is a backend that searches every host's chats (client.Router).
type Searcher interface {
	Search(p proto.SearchParams) (proto.SearchResult, error)
}

// The search dialog's keys: enter searches (or jumps to the hit), up and
// down move among the hits while the line keeps the letters.
var (
	keySearchGo   = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "search / go to hit"))
	keySearchUp   = key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑/↓", "hits"))
	keySearchDown = key.NewBinding(key.WithKeys("down", "ctrl+n"))
)

// searchDoneMsg is a search's answer; seq is the search it answers.
type searchDoneMsg struct {
	seq int
	res proto.SearchResult
	err error
}

// searchJumpMsg asks the root to select chat id (as the TUI names it:
// host:id for a host's) and, with open, to open it.
type searchJumpMsg struct {
	id   string
	open bool
}

// runSearch searches off the UI goroutine.
func runSearch(s Searcher, seq int, words []string) tea.Cmd {
	return func() tea.Msg {
		res, err := s.Search(proto.SearchParams{Words: words})
		return searchDoneMsg{seq: seq, res: res, err: err}
	}
}

// searchRow is one line of the hit list: a chat's heading (hit < 0) or
// one of its hits.
type searchRow struct {
	chat, hit int
}

// SearchDialog is the search of every chat.
type SearchDialog struct {
	c        *Common
	searcher Searcher
	input    textinput.Model
	// searched is the line the hits shown answer; seq the search asked
	// last (an older answer is dropped).
	searched string
	seq      int
	busy     bool
	res      proto.SearchResult
	rows     []searchRow
	cur      int // index in rows of the selected hit, -1 for none
	errText  string
	w, h     int
}

// NewSearchDialog returns the search dialog over s.
func NewSearchDialog(c *Common, s Searcher) *SearchDialog {
	in := textinput.New()
	in.Prompt = "search: "
	in.Placeholder = "words (all of them, in one line; a capital matches as written)"
	in.CharLimit = proto.MaxSearchWords * 64
	in.Cursor.SetMode(cursor.CursorStatic)
	in.Focus()
	return &SearchDialog{c: c, searcher: s, input: in, cur: -1}
}

// SetSize sets the screen size: the dialog takes most of it.
func (d *SearchDialog) SetSize(w, h int) {
	d.w = max(min(w-4, 120), minDialogW)
	d.h = max(h-4, 8)
	d.input.Width = max(d.w-14, 1)
}

// Selected is the hit under the cursor: its chat and the hit.
func (d *SearchDialog) Selected() (proto.SearchChat, proto.SearchHit, bool) {
	if d.cur < 0 || d.cur >= len(d.rows) {
		return proto.SearchChat{}, proto.SearchHit{}, false
	}
	r := d.rows[d.cur]
	c := d.res.Chats[r.chat]
	return c, c.Hits[r.hit], true
}

// Update edits the words, searches, moves among the hits and jumps.
func (d *SearchDialog) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case searchDoneMsg:
		if msg.seq != d.seq {
			return nil
		}
		d.busy = false
		d.show(msg.res, msg.err)
		return nil
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, keyCancel):
			return closeDialog
		case key.Matches(msg, keySearchUp):
			d.move(-1)
			return nil
		case key.Matches(msg, keySearchDown):
			d.move(1)
			return nil
		case key.Matches(msg, keySearchGo):
			return d.enter()
		}
		var cmd tea.Cmd
		d.input, cmd = d.input.Update(msg)
		return cmd
	}
	return nil
}

// enter searches for the line as typed, unless its hits are shown: then
// it goes to the hit under the cursor.
func (d *SearchDialog) enter() tea.Cmd {
	line := strings.TrimSpace(d.input.Value())
	if line == d.searched && !d.busy {
		c, h, ok := d.Selected()
		if !ok {
			return nil
		}
		jump := searchJumpMsg{id: hitChatID(c.Host, c.ID), open: h.Where == proto.SearchScreen}
		return tea.Batch(closeDialog, func() tea.Msg { return jump })
	}
	words := searchFields(line)
	if len(words) == 0 {
		d.errText = "type the words to search for"
		return nil
	}
	d.seq++
	d.busy, d.searched, d.errText = true, line, ""
	return runSearch(d.searcher, d.seq, words)
}

// show lists what a search found.
func (d *SearchDialog) show(res proto.SearchResult, err error) {
	d.res, d.rows, d.cur = proto.SearchResult{}, nil, -1
	if err != nil {
		d.errText = err.Error()
		d.searched = "" // enter tries again
		return
	}
	d.res = res
	for ci, c := range res.Chats {
		d.rows = append(d.rows, searchRow{chat: ci, hit: -1})
		for hi := range c.Hits {
			d.rows = append(d.rows, searchRow{chat: ci, hit: hi})
		}
	}
	d.move(1)
}

// move puts the cursor on the next (or previous) hit, past the headings.
func (d *SearchDialog) move(by int) {
	for i := d.cur + by; i >= 0 && i < len(d.rows); i += by {
		if d.rows[i].hit >= 0 {
			d.cur = i
			return
		}
	}
}

// hitChatID is the id the TUI gives a chat of host ("" for this
// machine), as the Router qualifies it.
func hitChatID(host, id string) string {
	if host == "" {
		return id
	}
	return host + hostSep + id
}

// searchFields splits the typed line into words: on blanks, a quoted
// phrase being one word.
func searchFields(s string) []string {
	var out []string
	var b strings.Builder
	quoted := false
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
			flush()
		case (r == ' ' || r == '\t') && !quoted:
			flush()
		default:
			b.WriteRune(r)
		}
	}
	flush()
	return out
}

// ShortHelp returns enter, the hit keys and esc.
func (d *SearchDialog) ShortHelp() []key.Binding {
	return []key.Binding{keySearchGo, keySearchUp, keyCancel}
}

// View draws the line, then the hits (a window around the cursor) and
// what the search says of itself.
func (d *SearchDialog) View() []string {
	st := d.c.Styles
	iw := d.w - 4
	lines := []string{" " + d.input.View(), ""}
	var foot []string
	switch {
	case d.busy:
		foot = append(foot, st.Dim.Render(" searching every host…"))
	case d.errText != "":
		for _, l := range errorLines(st, d.errText, iw-1) {
			foot = append(foot, " "+l)
		}
	case d.searched != "" && len(d.rows) == 0:
		foot = append(foot, " "+st.Dim.Render("no chat holds every word"))
	case d.searched != "":
		s := plural(d.res.Hits, "hit") + " in " + plural(len(d.res.Chats), "chat")
		if d.res.Cut {
			s += ": the search stopped there (more words narrow it)"
		}
		foot = append(foot, " "+st.Dim.Render(truncPlain(s, iw-1)))
	}
	for _, n := range d.res.Notes {
		foot = append(foot, " "+st.Warn.Render(truncPlain(n, iw-1)))
	}
	room := max(d.h-2-len(lines)-len(foot)-1, 1)
	from := 0
	if d.cur >= room {
		from = d.cur - room + 1
	}
	for i := from; i < len(d.rows) && i < from+room; i++ {
		lines = append(lines, d.rowView(i, iw))
	}
	if len(d.rows) > 0 {
		lines = append(lines, "")
	}
	lines = append(lines, foot...)
	return st.Box("search every chat", lines, d.w, d.h, true)
}

// rowView draws one row: a chat's heading, or a hit (selected: marked).
func (d *SearchDialog) rowView(i, w int) string {
	st := d.c.Styles
	r := d.rows[i]
	c := d.res.Chats[r.chat]
	if r.hit < 0 {
		head := hitChatID(c.Host, c.ID) + "  " + c.Name
		if c.More > 0 {
			head += fmt.Sprintf("  (+%d more)", c.More)
		}
		return " " + st.Bold.Render(truncPlain(head, w-1))
	}
	h := c.Hits[r.hit]
	text := fmt.Sprintf("%-12s %s", h.Where, h.Excerpt)
	if i == d.cur {
		return st.Accent.Render(" ▌ ") + st.Selected.Render(truncPlain(text, w-3))
	}
	return "   " + truncPlain(text, w-3)
}

// openSearch opens the search of every chat, when the backend can.
func (m *Model) openSearch() tea.Cmd {
	s, ok := m.mux.(Searcher)
	if !ok {
		m.setWarning("search needs a server that answers")
		return nil
	}
	return m.openDialog(NewSearchDialog(m.c, s))
}

// searchJump selects the chat of a hit in the list and, for a hit on its
// screen, opens it.
func (m *Model) searchJump(msg searchJumpMsg) tea.Cmd {
	if !m.sidebar.Select(msg.id) {
		m.setWarning("chat " + msg.id + " is not in the list (gone since the search, or its host is down)")
		return nil
	}
	cmd := m.selectionChanged()
	if msg.open {
		return tea.Batch(cmd, m.open(msg.id))
	}
	return cmd
}
