package tui

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/acpmux/acpmux-tui/third_party/bubbles/cursor"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/textinput"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
)

// maxIndent bounds how deep forks of forks are indented.
const maxIndent = 4

// Sidebar is the list of chats: a status mark, an attention mark, the name
// and the harness of each (a sandboxed chat's marked ⊡), forks, side chats
// and handoffs indented under their parent, and a filter. Only the rows on
// screen are drawn, so a home of thousands of chats costs no more per
// frame than a home of ten.
type Sidebar struct {
	c    *Common
	w, h int

	all    []sideRow      // every chat, in tree order
	byID   map[string]int // index in all
	rows   []int          // the rows the filter lets through, as indices in all
	cur    int            // the selected row, an index in rows
	off    int            // the first row on screen
	states map[string]proto.State
	asking int // chats in states whose status is asking

	filter    textinput.Model
	filtering bool // keys go to the filter

	// hosts head the chats of each host when the mux has other hosts
	// (nil: no header); lines are then the rows on screen in order, each
	// an index in rows or -1-k for host k's header, and lineOfRow each
	// row's line.
	hosts     []proto.HostStatus
	lines     []int
	lineOfRow []int

	harnessLabels map[string]string   // rendered dim harness names
	drawnRows     map[string]drawnRow // each chat's row as last drawn (row)
	missing       map[string]bool     // harnesses not installed, marked "?"

	// showCost adds each chat's cost before its harness (ToggleCost).
	showCost bool
	// marked are the chats marked for one prompt to several (ToggleMark),
	// drawn with a + before the name.
	marked map[string]bool
}

// costWidth is the sidebar's cost column: "123.45 USD", "0.0030 USD".
const costWidth = 10

type sideRow struct {
	entry  sessions.Entry
	depth  int
	parent int    // the parent's index in Sidebar.all, -1 for a root
	orphan bool   // made from a chat that has since been deleted
	label  string // the name as shown, with its tree indent
	labelW int    // its width in cells
	// name and harness are fitted to the sidebar's width by layoutRow;
	// notInstalled marks a harness not found on PATH.
	name, harness string
	notInstalled  bool
	sandboxed     bool   // drawn with sandboxMark before the harness
	hay           string // what the filter searches: name, harness, folders, lowercased
}

var (
	keyHome = key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "first"))
	keyEnd  = key.NewBinding(key.WithKeys("end"), key.WithHelp("end", "last"))
)

// NewSidebar returns an empty sidebar.
func NewSidebar(c *Common) *Sidebar {
	f := textinput.New()
	f.Prompt = "/ "
	f.Placeholder = "name, harness or folder"
	f.Cursor.SetMode(cursor.CursorStatic)
	f.PromptStyle = c.Styles.Accent
	f.PlaceholderStyle = c.Styles.Dim
	return &Sidebar{c: c, byID: map[string]int{}, states: map[string]proto.State{}, filter: f}
}

// SetSize sets the inner size the sidebar draws in.
func (s *Sidebar) SetSize(w, h int) {
	if w != s.w {
		s.w = w
		for i := range s.all {
			s.layoutRow(&s.all[i])
		}
	}
	s.h = h
	s.filter.Width = max(w-3, 1)
	s.scrollIntoView()
}

// layoutRow fits a row's name and harness to the sidebar's width, once per
// width or change of the chat, so drawing a row cuts nothing.
func (s *Sidebar) layoutRow(r *sideRow) {
	r.harness, r.notInstalled = "broken", false
	if r.entry.Meta != nil {
		r.harness = plaintext.Line(r.entry.Meta.Harness) // the chat file's, unchecked
		if s.missing[r.harness] {
			r.harness, r.notInstalled = r.harness+"?", true
		}
	}
	nameW := s.w - 5
	if r.sandboxed {
		nameW -= 2 // the mark and a space
	}
	if s.showCost {
		nameW -= costWidth + 1
	}
	if s.w >= 22 {
		nameW -= len(r.harness) + 1
	} else {
		r.harness = ""
	}
	switch {
	case nameW < 1:
		r.name = ""
	case r.labelW > nameW && r.labelW == len(r.label): // ASCII: cut by bytes
		r.name = r.label[:nameW-1] + "…"
	case r.labelW > nameW:
		r.name = fitPlain(r.label, nameW)
	default:
		r.name = r.label + strings.Repeat(" ", nameW-r.labelW)
	}
}

// ToggleMark marks the selected chat for one prompt to several, or takes
// its mark away.
func (s *Sidebar) ToggleMark() {
	e, ok := s.Selected()
	if !ok || e.Meta == nil {
		return
	}
	if s.marked[e.ID] {
		delete(s.marked, e.ID)
		return
	}
	if s.marked == nil {
		s.marked = map[string]bool{}
	}
	s.marked[e.ID] = true
}

// Marked returns the marked chats still listed, in the list's order.
func (s *Sidebar) Marked() []string {
	var ids []string
	for _, r := range s.all {
		if s.marked[r.entry.ID] {
			ids = append(ids, r.entry.ID)
		}
	}
	return ids
}

// ClearMarks takes every mark away; it reports whether there was one.
func (s *Sidebar) ClearMarks() bool {
	had := len(s.marked) > 0
	s.marked = nil
	return had
}

// ToggleCost shows or hides each chat's cost, as its agent last said it,
// before its harness.
func (s *Sidebar) ToggleCost() {
	s.showCost = !s.showCost
	for i := range s.all {
		s.layoutRow(&s.all[i])
	}
}

// markOf is what comes before a row's name: "+" when it is marked.
func (s *Sidebar) markOf(r sideRow) string {
	if s.marked[r.entry.ID] {
		return "+"
	}
	return " "
}

// costCell is a chat's cost fitted to the cost column, right-aligned: its
// live usage's, else the one its file keeps; blank when none was said.
func costCell(st proto.State, m *sessions.Meta) string {
	u := st.Usage
	if u == nil {
		u = m.Usage()
	}
	text := ""
	if u != nil && u.Cost != nil {
		text = u.Cost.String()
		if len(text) > costWidth {
			// The amount alone, to the unit, when a long one leaves no room
			// for its currency.
			text = strconv.FormatFloat(u.Cost.Amount, 'f', 0, 64)
		}
		if len(text) > costWidth {
			text = text[:costWidth-1] + "…"
		}
	}
	return strings.Repeat(" ", costWidth-utf8.RuneCountInString(text)) + text
}

// SetEntries replaces the chats shown, keeping the selection on keepID (or
// the chat selected now) when it is still there.
func (s *Sidebar) SetEntries(entries []sessions.Entry, keepID string) {
	s.drawnRows = nil // rows of chats gone go too
	if keepID == "" {
		if e, ok := s.Selected(); ok {
			keepID = e.ID
		}
	}
	s.rows = s.rows[:0] // indices into the old list
	s.all = buildTree(entries)
	s.byID = make(map[string]int, len(s.all))
	for i := range s.all {
		s.byID[s.all[i].entry.ID] = i
		s.layoutRow(&s.all[i])
	}
	s.applyFilter(keepID)
}

// buildTree orders chats as a tree: each chat with a parent in the list
// follows that parent, indented; the rest are roots, in list order. A chat
// whose parent has been deleted is a root marked as an orphan.
func buildTree(entries []sessions.Entry) []sideRow {
	present := make(map[string]bool, len(entries))
	for _, e := range entries {
		present[e.ID] = true
	}
	children := map[string][]int{}
	var roots []int
	for i, e := range entries {
		if e.Meta != nil && e.Meta.Parent != "" && e.Meta.Parent != e.ID && present[e.Meta.Parent] {
			children[e.Meta.Parent] = append(children[e.Meta.Parent], i)
		} else {
			roots = append(roots, i)
		}
	}
	out := make([]sideRow, 0, len(entries))
	done := make([]bool, len(entries))
	var walk func(i, depth, parent int)
	walk = func(i, depth, parent int) {
		if done[i] {
			return
		}
		done[i] = true
		e := entries[i]
		orphan := depth == 0 && e.Meta != nil && e.Meta.Parent != "" && !present[e.Meta.Parent]
		at := len(out)
		out = append(out, newSideRow(e, depth, parent, orphan))
		for _, c := range children[e.ID] {
			walk(c, depth+1, at)
		}
	}
	for _, i := range roots {
		walk(i, 0, -1)
	}
	for i := range entries { // chats in a parent cycle, from hand-edited files
		walk(i, 0, -1)
	}
	return out
}

func newSideRow(e sessions.Entry, depth, parent int, orphan bool) sideRow {
	r := sideRow{entry: e, depth: depth, parent: parent, orphan: orphan, sandboxed: e.Meta != nil && e.Meta.Sandbox}
	name := e.Name()
	if e.Meta != nil {
		name = e.Meta.Label() // the agent's title where the user gave no name
	}
	switch {
	case e.Meta == nil:
		name = e.ID + " (broken file)"
	case orphan:
		// A branch from nothing: the summary says the parent was deleted.
		name = "↰ " + name
	}
	if depth > 0 {
		name = strings.Repeat("  ", min(depth, maxIndent)-1) + "↳ " + name
	}
	r.label, r.labelW = name, ansi.StringWidth(name)
	var hay strings.Builder
	hay.WriteString(e.Name())
	hay.WriteByte('\n')
	if e.Meta != nil && e.Meta.Title != "" {
		hay.WriteString(e.Meta.Title)
		hay.WriteByte('\n')
	}
	hay.WriteString(e.ID)
	if m := e.Meta; m != nil {
		hay.WriteByte('\n')
		hay.WriteString(m.Harness)
		hay.WriteByte('\n')
		hay.WriteString(m.Cwd)
		for _, d := range m.AdditionalDirectories {
			hay.WriteByte('\n')
			hay.WriteString(d)
		}
	}
	r.hay = strings.ToLower(hay.String())
	return r
}

// applyFilter recomputes the rows the filter lets through and selects keepID
// (by default the chat selected now) if it is among them, else the nearest
// row.
func (s *Sidebar) applyFilter(keepID string) {
	if keepID == "" {
		if e, ok := s.Selected(); ok {
			keepID = e.ID
		}
	}
	// A chat that matches keeps its ancestors in view, so the tree still
	// reads right: a fork is never shown under another chat's row.
	q := strings.ToLower(strings.TrimSpace(s.filter.Value()))
	keep := make([]bool, len(s.all))
	for i := range s.all {
		if q == "" || strings.Contains(s.all[i].hay, q) {
			for j := i; j >= 0 && !keep[j]; j = s.all[j].parent {
				keep[j] = true
			}
		}
	}
	s.rows = s.rows[:0]
	for i, k := range keep {
		if k {
			s.rows = append(s.rows, i)
		}
	}
	s.buildLines()
	if i, ok := s.byID[keepID]; ok {
		for j, r := range s.rows {
			if r == i {
				s.cur = j
				s.scrollIntoView()
				return
			}
		}
	}
	s.cur = min(s.cur, max(len(s.rows)-1, 0))
	s.scrollIntoView()
}

// SetMissing names the harnesses that are not installed: their chats show
// the harness with a "?", in the warning colour.
func (s *Sidebar) SetMissing(missing map[string]bool) {
	s.missing = missing
	for i := range s.all {
		s.layoutRow(&s.all[i])
	}
}

// SetState records a chat's harness state for its mark, and reports
// whether its row is drawn differently now.
func (s *Sidebar) SetState(id string, st proto.State) bool {
	old, had := s.states[id]
	s.states[id] = st
	if was, is := had && old.Status == proto.StatusAsking, st.Status == proto.StatusAsking; was != is {
		if is {
			s.asking++
		} else {
			s.asking--
		}
	}
	return !had || rowLook(old) != rowLook(st)
}

// look is what a row shows of a chat's state: its mark and its attention
// sign.
type look struct {
	mark   markKind
	unread bool
	cost   proto.Cost // what a shown cost reads
}

func rowLook(st proto.State) look {
	l := look{mark: markOf(st, false), unread: st.Unread}
	if st.Usage != nil && st.Usage.Cost != nil {
		l.cost = *st.Usage.Cost
	}
	return l
}

// Len returns the number of chats listed.
func (s *Sidebar) Len() int { return len(s.all) }

// Shown returns the number of chats the filter lets through.
func (s *Sidebar) Shown() int { return len(s.rows) }

// Selected returns the selected chat.
func (s *Sidebar) Selected() (sessions.Entry, bool) {
	if s.cur < 0 || s.cur >= len(s.rows) {
		return sessions.Entry{}, false
	}
	return s.all[s.rows[s.cur]].entry, true
}

// UpdateEntry replaces one listed chat's metadata (read again after a
// start stored its session id, say); its place in the tree is kept.
func (s *Sidebar) UpdateEntry(e sessions.Entry) {
	i, ok := s.byID[e.ID]
	if !ok {
		return
	}
	old := s.all[i]
	row := newSideRow(e, old.depth, old.parent, old.orphan)
	s.layoutRow(&row)
	s.all[i] = row
}

// Entry returns a listed chat by id.
func (s *Sidebar) Entry(id string) (sessions.Entry, bool) {
	i, ok := s.byID[id]
	if !ok {
		return sessions.Entry{}, false
	}
	return s.all[i].entry, true
}

// Select selects the chat with id, clearing a filter that hides it.
func (s *Sidebar) Select(id string) bool {
	if _, ok := s.byID[id]; !ok {
		return false
	}
	if s.filter.Value() != "" {
		s.filter.SetValue("")
		s.filtering = false
		s.filter.Blur()
	}
	s.applyFilter(id)
	return true
}

// Filtering reports whether keys go to the filter.
func (s *Sidebar) Filtering() bool { return s.filtering }

// FilterText returns the filter in effect.
func (s *Sidebar) FilterText() string { return s.filter.Value() }

// Move moves the selection by n rows.
func (s *Sidebar) Move(n int) {
	if len(s.rows) == 0 {
		return
	}
	s.cur = min(max(s.cur+n, 0), len(s.rows)-1)
	s.scrollIntoView()
}

// listHeight is the number of rows on screen below the filter line.
func (s *Sidebar) listHeight() int {
	if s.filtering || s.filter.Value() != "" {
		return max(s.h-1, 0)
	}
	return s.h
}

func (s *Sidebar) scrollIntoView() {
	lh := s.listHeight()
	if lh <= 0 {
		return
	}
	cur, top := s.cur, s.cur
	if s.hosts != nil {
		cur, top = s.lineOf(s.cur), s.topOf(s.cur)
	}
	if top < s.off {
		s.off = top
	}
	if cur >= s.off+lh {
		s.off = cur - lh + 1
	}
	s.off = min(s.off, max(s.lineCount()-lh, 0))
	s.off = max(s.off, 0)
}

// Update handles a key for the sidebar and reports whether it used it.
func (s *Sidebar) Update(msg tea.KeyMsg) (bool, tea.Cmd) {
	km := s.c.Keys
	if s.filtering {
		switch {
		case key.Matches(msg, keyEscape):
			s.filter.SetValue("")
			s.filtering = false
			s.filter.Blur()
			s.applyFilter("")
			return true, nil
		case key.Matches(msg, keyEnterKey):
			s.filtering = false
			s.filter.Blur()
			s.scrollIntoView()
			return true, nil
		case key.Matches(msg, keyUp):
			s.Move(-1)
			return true, nil
		case key.Matches(msg, keyDown):
			s.Move(1)
			return true, nil
		}
		keep := ""
		if e, ok := s.Selected(); ok {
			keep = e.ID
		}
		var cmd tea.Cmd
		s.filter, cmd = s.filter.Update(msg)
		s.applyFilter(keep)
		return true, cmd
	}
	switch {
	case key.Matches(msg, km.Up):
		s.Move(-1)
	case key.Matches(msg, km.Down):
		s.Move(1)
	case key.Matches(msg, keyHome):
		s.Move(-len(s.rows))
	case key.Matches(msg, keyEnd):
		s.Move(len(s.rows))
	case key.Matches(msg, km.Filter):
		s.filtering = true
		s.scrollIntoView()
		return true, s.filter.Focus()
	case key.Matches(msg, keyEscape) && s.filter.Value() != "":
		s.filter.SetValue("")
		s.applyFilter("")
	case key.Matches(msg, keyEscape) && len(s.marked) > 0:
		s.ClearMarks()
	default:
		return false, nil
	}
	return true, nil
}

// RowAt returns the index in the shown rows of the line y of the sidebar's
// inner area, for mouse clicks.
func (s *Sidebar) RowAt(y int) (int, bool) {
	if s.listHeight() != s.h {
		y--
	}
	i := s.off + y
	if s.hosts != nil {
		return s.rowOfLine(i, y >= 0)
	}
	return i, y >= 0 && i < len(s.rows)
}

// SelectRow selects a shown row by index.
func (s *Sidebar) SelectRow(i int) { s.Move(i - s.cur) }

// Title is the sidebar's box title: the number of chats, and how many the
// filter shows.
func (s *Sidebar) Title() string {
	if s.filter.Value() != "" {
		return fmt.Sprintf("chats %d/%d", len(s.rows), len(s.all))
	}
	return fmt.Sprintf("chats %d", len(s.all))
}

// ShortHelp returns the sidebar's bindings for the help bar.
func (s *Sidebar) ShortHelp() []key.Binding {
	if s.filtering {
		return []key.Binding{
			key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep filter")),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear")),
			key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", "move")),
		}
	}
	km := s.c.Keys
	return []key.Binding{km.Focus, km.New, km.AddFolders, km.Fork, km.Filter, km.Help, km.Quit}
}

// View draws the visible rows, each exactly w cells wide.
func (s *Sidebar) View() []string {
	st := s.c.Styles
	lines := make([]string, 0, s.h)
	if s.listHeight() != s.h && s.h > 0 {
		if s.filtering {
			lines = append(lines, fitLine(s.filter.View(), s.w))
		} else {
			lines = append(lines, fitLine(st.Accent.Render("/ ")+truncPlain(s.filter.Value(), s.w-2), s.w))
		}
	}
	lh := s.listHeight()
	if s.hosts != nil {
		for i := s.off; i < len(s.lines) && i < s.off+lh; i++ {
			lines = append(lines, s.drawLine(s.lines[i]))
		}
	} else {
		for i := s.off; i < len(s.rows) && i < s.off+lh; i++ {
			lines = append(lines, s.row(s.all[s.rows[i]], i == s.cur))
		}
	}
	if len(s.all) > 0 && len(s.rows) == 0 && lh > 0 {
		lines = append(lines, fitLine(st.Dim.Render(truncPlain(" no chat matches", s.w)), s.w))
	}
	return lines
}
