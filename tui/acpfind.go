package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	"github.com/acpmux/acpmux-tui/tui/transcript"
)

// finder is the search line over a focused ACP chat's transcript (the
// find key): what is looked for, the lines that hold it, and the one
// shown. It starts at the newest match.
type finder struct {
	on     bool
	chat   string
	query  string
	hits   []transcript.Hit
	cur    int // the match shown, an index of hits
	height int // the transcript's rows, as last laid out
}

// The keys of the search line.
var (
	keyFindOlder = key.NewBinding(key.WithKeys("enter", "ctrl+n"), key.WithHelp("enter", "older match"))
	keyFindNewer = key.NewBinding(key.WithKeys("shift+enter", "ctrl+p"), key.WithHelp("ctrl+p", "newer match"))
	keyFindClose = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close search"))
)

// openFind opens the search line, empty.
func (p *ChatPane) openFind() {
	p.find = finder{on: true, chat: p.id, height: p.find.height}
	p.Refresh()
}

// findKey handles a key while the search line is open: typing edits what
// is looked for, enter goes to the match before (older), ctrl+p back to
// the one after, esc closes.
func (p *ChatPane) findKey(msg tea.KeyMsg) tea.Cmd {
	f := &p.find
	switch {
	case key.Matches(msg, keyFindClose):
		f.on = false
		p.Refresh()
	case key.Matches(msg, keyFindOlder):
		if len(f.hits) > 0 {
			f.cur = (f.cur - 1 + len(f.hits)) % len(f.hits)
			p.showHit()
		}
	case key.Matches(msg, keyFindNewer):
		if len(f.hits) > 0 {
			f.cur = (f.cur + 1) % len(f.hits)
			p.showHit()
		}
	case key.Matches(msg, keyPgUp):
		p.ScrollBy(max(f.height/2, 1))
	case key.Matches(msg, keyPgDn):
		p.ScrollBy(-max(f.height/2, 1))
	case msg.Type == tea.KeyBackspace:
		if r := []rune(f.query); len(r) > 0 {
			f.query = string(r[:len(r)-1])
			p.refind()
		}
	case msg.Type == tea.KeyRunes || msg.Type == tea.KeySpace:
		if q := plaintext.Line(string(msg.Runes)); q != "" && len(f.query) < 256 {
			f.query += q
			p.refind()
		}
	}
	return nil
}

// refind looks for the query again from the newest match.
func (p *ChatPane) refind() {
	f := &p.find
	f.hits = p.transcript.Find(f.query)
	f.cur = len(f.hits) - 1
	p.showHit()
}

// showHit scrolls the transcript so the match shown is a third of the way
// down the pane.
func (p *ChatPane) showHit() {
	f := &p.find
	if f.cur >= 0 && f.cur < len(f.hits) {
		top := max(f.hits[f.cur].Line-f.height/3, 0)
		p.scroll = max(p.transcript.Len()-f.height-top, 0)
	}
	p.Refresh()
}

// findLaid follows the transcript as it was laid out again (the agent
// writes, the fold changes): the matches are found again, the one shown
// kept by its place.
func (p *ChatPane) findLaid(height int) {
	f := &p.find
	if f.chat != p.id || !p.focused {
		f.on = false
	}
	f.height = height
	if !f.on || f.query == "" {
		f.hits = nil
		return
	}
	cur := f.cur
	f.hits = p.transcript.Find(f.query)
	f.cur = min(max(cur, 0), len(f.hits)-1)
}

// findMark draws line (line number n of the transcript) with each match
// of the query reversed, the shown one in the warning colour too.
func (p *ChatPane) findMark(line string, n int) string {
	f := &p.find
	if !f.on || f.query == "" || len(f.hits) == 0 {
		return line
	}
	plain := ansi.Strip(line)
	lower, q := strings.ToLower(plain), strings.ToLower(f.query)
	if len(lower) != len(plain) { // case folding changed the bytes: match as typed
		lower, q = plain, f.query
	}
	if !strings.Contains(lower, q) {
		return line
	}
	st := p.c.Styles.Cursor
	if f.cur >= 0 && f.cur < len(f.hits) && f.hits[f.cur].Line == n {
		st = p.c.Styles.Redacted
	}
	var b strings.Builder
	for at := 0; ; {
		i := strings.Index(lower[at:], q)
		if i < 0 {
			b.WriteString(plain[at:])
			break
		}
		b.WriteString(plain[at : at+i])
		b.WriteString(st.Render(plain[at+i : at+i+len(q)]))
		at += i + len(q)
	}
	return b.String()
}

// findLine is the search line, where the separator above the prompt was.
func (p *ChatPane) findLine() string {
	f := &p.find
	count := "no match"
	switch {
	case f.query == "":
		count = "type to search"
	case len(f.hits) > 0:
		count = fmt.Sprintf("%d of %d", f.cur+1, len(f.hits))
	}
	text := "find: " + f.query + "▏ · " + count + " · enter older · ctrl+p newer · esc closes "
	return p.c.Styles.Accent.Render(fitPlain(text, p.w))
}

// findHelp is the help bar while the search line is open.
func (p *ChatPane) findHelp() []key.Binding {
	return []key.Binding{keyFindOlder, keyFindNewer, p.c.Keys.Copy, keyFindClose}
}

// copyEnd is where a copy looks back from: the message holding the match
// shown while searching, else the whole transcript.
func (p *ChatPane) copyEnd() int {
	if f := p.find; f.on && f.cur >= 0 && f.cur < len(f.hits) {
		return f.hits[f.cur].Entry + 1
	}
	return int(^uint(0) >> 1)
}
