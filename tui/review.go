package tui

import (
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/sessions"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/cursor"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	"github.com/acpmux/acpmux-tui/third_party/bubbles/textinput"
)

// This file is the review pane (d): what the selected chat changed. A list
// of the changed files, grouped by folder (the chat's own, then each added
// folder), with their counts; below it the selected file's diff, coloured
// and scrollable. b compares the chat's folder with another ref (empty: its
// own base again), p with the parent chat's branch. The server of the
// chat's host computes both (Reviews), so a chat of another machine is
// reviewed as one of this machine is; they are asked for in commands,
// never in View.

var (
	keyReviewScrollDn = key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "J"), key.WithHelp("pgdn/J", "scroll diff"))
	keyReviewScrollUp = key.NewBinding(key.WithKeys("pgup", "ctrl+u", "K"))
	keyReviewRef      = key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "compare with ref"))
	keyReviewParent   = key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "parent's branch"))
	keyReviewApply    = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "compare"))
	keyReviewFiles    = key.NewBinding(key.WithKeys("up", "down", "k", "j"), key.WithHelp("↑/↓", "file"))
)

// reviewComputedMsg carries the sections of a review, or why it failed;
// owner tags the pane that asked, side what it compared against.
type reviewComputedMsg struct {
	owner    int
	side     proto.ReviewSide
	sections []proto.ReviewSection
	err      error
}

// reviewDiffMsg carries one file's diff; gen drops a diff asked for before
// the selection moved on.
type reviewDiffMsg struct {
	owner, gen int
	diff       proto.ReviewDiff
	err        error
}

// computeReview asks for the review of chat id against side off the UI
// goroutine. The server reviews the chat as its file is then, with the
// baseline its first start recorded, which the list shown may predate.
func computeReview(owner int, rv Reviews, id string, side proto.ReviewSide) tea.Cmd {
	return func() tea.Msg {
		sections, err := rv.Review(id, side)
		return reviewComputedMsg{owner: owner, side: side, sections: sections, err: err}
	}
}

// loadDiff asks for one file's diff off the UI goroutine.
func loadDiff(owner, gen int, rv Reviews, id string, s proto.ReviewSection, f proto.ReviewFile) tea.Cmd {
	return func() tea.Msg {
		d, err := rv.ReviewDiff(id, s, f)
		return reviewDiffMsg{owner: owner, gen: gen, diff: d, err: err}
	}
}

// reviewRow is one row of the file list: a section's header or a file.
type reviewRow struct {
	section, file int // file -1 on a header
	text          string
}

// ReviewDialog is the review pane of one chat.
type ReviewDialog struct {
	c             *Common
	owner         int
	reviews       Reviews
	meta          *sessions.Meta
	side, pending proto.ReviewSide
	sections      []proto.ReviewSection
	rows          []reviewRow
	files         []int // indexes in rows of the file rows
	sel           int   // index in files
	gen           int
	diff          proto.ReviewDiff
	diffLines     []string // rendered, one per line of the diff
	scroll        int
	loading       bool
	errText       string
	asking        bool
	input         textinput.Model
	git           reviewGit // c, P, m (review_commit.go)
	now           func() time.Time
	w, h          int
}

// NewReviewDialog returns the pane for chat m, reviewed by its server
// through rv. Init starts it.
func NewReviewDialog(c *Common, owner int, rv Reviews, m *sessions.Meta) *ReviewDialog {
	in := textinput.New()
	in.Prompt = "ref: "
	in.CharLimit = 256
	in.Cursor.SetMode(cursor.CursorStatic)
	return &ReviewDialog{c: c, owner: owner, reviews: rv, meta: m, loading: true, input: in, git: newReviewGit(), now: time.Now}
}

// WithClock has the pane tell times by now (the model's clock, in its
// zone) and returns it.
func (d *ReviewDialog) WithClock(now func() time.Time) *ReviewDialog {
	if now != nil {
		d.now = now
	}
	return d
}

// Init computes the review against the chat's own base.
func (d *ReviewDialog) Init() tea.Cmd {
	return computeReview(d.owner, d.reviews, d.meta.ID, d.side)
}

// SetSize takes the whole screen above the help line: a margin round the
// pane would show slivers of the boxes under it.
func (d *ReviewDialog) SetSize(w, h int) {
	d.w = max(w, minDialogW)
	d.h = max(h-1, 10)
	d.input.Width = max(d.w-12, 1)
}

// ErrText returns the error shown in the pane, if any.
func (d *ReviewDialog) ErrText() string { return d.errText }

// Selected returns the selected file's section and path ("" when none).
func (d *ReviewDialog) Selected() (string, string) {
	if d.sel >= len(d.files) {
		return "", ""
	}
	r := d.rows[d.files[d.sel]]
	return d.sections[r.section].Folder, d.sections[r.section].Files[r.file].Path
}

// Update moves in the list, scrolls the diff and changes the compare side.
func (d *ReviewDialog) Update(msg tea.Msg) tea.Cmd {
	if cmd, done := d.gitUpdate(msg); done {
		return cmd
	}
	switch msg := msg.(type) {
	case reviewComputedMsg:
		if msg.owner != d.owner {
			return nil
		}
		d.loading = false
		if msg.err != nil {
			d.errText = msg.err.Error()
			return nil
		}
		d.side, d.errText = msg.side, ""
		d.setSections(msg.sections)
		return d.selectFile(0)
	case reviewDiffMsg:
		if msg.owner != d.owner || msg.gen != d.gen {
			return nil
		}
		if msg.err != nil {
			d.errText = msg.err.Error()
			d.diff, d.diffLines = proto.ReviewDiff{}, nil
			return nil
		}
		d.diff, d.errText = msg.diff, ""
		d.diffLines = d.renderDiff(msg.diff)
		return nil
	case tea.KeyMsg:
		if d.asking {
			return d.askKey(msg)
		}
		km := d.c.Keys
		switch {
		case key.Matches(msg, keyCancel):
			return closeDialog
		case key.Matches(msg, km.Up):
			return d.selectFile(d.sel - 1)
		case key.Matches(msg, km.Down):
			return d.selectFile(d.sel + 1)
		case key.Matches(msg, keyReviewScrollDn):
			d.scrollBy(d.diffHeight() - 1)
		case key.Matches(msg, keyReviewScrollUp):
			d.scrollBy(-(d.diffHeight() - 1))
		case key.Matches(msg, keyReviewRef):
			d.asking = true
			d.input.SetValue(d.side.Ref)
			d.input.CursorEnd()
			d.input.Focus()
		case key.Matches(msg, keyReviewParent):
			if d.meta.Parent == "" {
				d.errText = "this chat has no parent chat"
				return nil
			}
			return d.compare(proto.ReviewSide{Parent: true})
		}
	}
	return nil
}

// askKey edits the ref typed: enter compares with it (empty: the chat's
// own base), esc leaves the side as it was.
func (d *ReviewDialog) askKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, keyCancel):
		d.asking = false
		d.input.Blur()
		return nil
	case key.Matches(msg, keyReviewApply):
		d.asking = false
		d.input.Blur()
		return d.compare(proto.ReviewSide{Ref: strings.TrimSpace(d.input.Value())})
	}
	var cmd tea.Cmd
	d.input, cmd = d.input.Update(msg)
	return cmd
}

// compare recomputes the review against side.
func (d *ReviewDialog) compare(side proto.ReviewSide) tea.Cmd {
	d.loading, d.errText, d.pending = true, "", side
	return computeReview(d.owner, d.reviews, d.meta.ID, side)
}

// setSections builds the list rows once per review.
func (d *ReviewDialog) setSections(sections []proto.ReviewSection) {
	d.sections, d.rows, d.files = sections, nil, nil
	now := d.now()
	for si, s := range sections {
		d.rows = append(d.rows, reviewRow{section: si, file: -1, text: sectionTitle(s, now)})
		for fi, f := range s.Files {
			d.files = append(d.files, len(d.rows))
			d.rows = append(d.rows, reviewRow{section: si, file: fi, text: fileRow(s, f)})
		}
	}
}

// sectionTitle is a section's row: its folder, how it is compared and its
// note; a time is told as reviewTime tells it at now.
func sectionTitle(s proto.ReviewSection, now time.Time) string {
	against := "since " + reviewTime(s.Base, now)
	if s.Kind == proto.ReviewGit {
		against = "against " + shortCommit(s.Base)
	}
	t := fmt.Sprintf("%s (%s, %s)", s.Folder, plural(len(s.Files), "file"), against)
	if s.Note != "" {
		t += ": " + s.Note
	}
	return plaintext.Line(t)
}

// reviewTime is the time an mtime section counts from (RFC 3339), as a
// reader wants it: in now's zone (the local one), "14:06 today", "09:10
// yesterday", "Dec 3 09:10" earlier this year, "2025-12-03 09:10" before.
// A text that is no such time is shown as it came.
func reviewTime(base string, now time.Time) string {
	t, err := time.Parse(time.RFC3339, base)
	if err != nil {
		return base
	}
	t = t.In(now.Location())
	day := func(t time.Time) string { return t.Format("2006-01-02") }
	switch {
	case day(t) == day(now):
		return t.Format("15:04") + " today"
	case day(t) == day(now.AddDate(0, 0, -1)):
		return t.Format("15:04") + " yesterday"
	case t.Year() == now.Year():
		return t.Format("Jan 2 15:04")
	}
	return t.Format("2006-01-02 15:04")
}

func shortCommit(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// statusLetters mark a file's status in the list, as git status -s does.
var statusLetters = map[proto.ReviewStatus]string{
	proto.ReviewAdded: "A", proto.ReviewModified: "M", proto.ReviewDeleted: "D",
	proto.ReviewUntracked: "?", proto.ReviewUnmerged: "U",
}

// fileRow is a file's row: its status letter, path and counts.
func fileRow(s proto.ReviewSection, f proto.ReviewFile) string {
	letter := statusLetters[f.Status]
	counts := fmt.Sprintf("+%d -%d", f.Added, f.Deleted)
	switch {
	case s.Kind != proto.ReviewGit:
		letter, counts = "~", "modified"
	case f.Binary:
		counts = "binary"
	}
	return plaintext.Line(fmt.Sprintf("%s %s  %s", letter, f.Path, counts))
}

// selectFile selects the i-th file (clamped) and asks for its diff.
func (d *ReviewDialog) selectFile(i int) tea.Cmd {
	if len(d.files) == 0 {
		d.diff, d.diffLines = proto.ReviewDiff{}, nil
		return nil
	}
	i = min(max(i, 0), len(d.files)-1)
	if i == d.sel && d.diffLines != nil && d.gen > 0 {
		return nil
	}
	d.sel, d.scroll = i, 0
	d.gen++
	d.diff, d.diffLines = proto.ReviewDiff{}, nil
	r := d.rows[d.files[i]]
	s := d.sections[r.section]
	return loadDiff(d.owner, d.gen, d.reviews, d.meta.ID, s, s.Files[r.file])
}

// renderDiff styles a diff's lines once: + green, - red, @@ cyan (plain
// under NO_COLOR); a diff not drawn is one line saying why.
func (d *ReviewDialog) renderDiff(df proto.ReviewDiff) []string {
	st := d.c.Styles
	if why := df.Reason(); why != "" {
		return []string{st.Dim.Render(plaintext.Line(df.Path + ": " + why))}
	}
	text := strings.TrimSuffix(plaintext.Clean(df.Text), "\n")
	lines := strings.Split(strings.ReplaceAll(text, "\t", "    "), "\n")
	out := make([]string, len(lines))
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "diff "), strings.HasPrefix(l, "index "):
			out[i] = st.Bold.Render(l)
		case strings.HasPrefix(l, "@@"):
			out[i] = st.Accent.Render(l)
		case strings.HasPrefix(l, "+"):
			out[i] = st.OK.Render(l)
		case strings.HasPrefix(l, "-"):
			out[i] = st.Error.Render(l)
		default:
			out[i] = l
		}
	}
	return out
}

// listHeight is how many rows the file list gets: a third of the pane, at
// least 3, no more than it has.
func (d *ReviewDialog) listHeight() int {
	inner := d.h - 2
	return max(min(len(d.rows), inner/3), min(3, len(d.rows)), 1)
}

// diffHeight is how many lines of diff are shown.
func (d *ReviewDialog) diffHeight() int {
	return max(d.h-2-2-d.listHeight()-1, 1)
}

func (d *ReviewDialog) scrollBy(n int) {
	d.scroll = min(max(d.scroll+n, 0), max(len(d.diffLines)-d.diffHeight(), 0))
}

// ShortHelp returns the pane's keys.
func (d *ReviewDialog) ShortHelp() []key.Binding {
	if d.asking {
		return []key.Binding{keyReviewApply, keyCancel}
	}
	if h := d.gitHelp(); h != nil {
		return h
	}
	keys := []key.Binding{keyReviewFiles, keyReviewScrollDn, keyReviewRef, keyReviewParent}
	return append(append(keys, d.gitKeys()...), keyCancel)
}

// View draws the header, the list, the selected file's diff and the last
// line (the ref being typed, an error, or the compare side).
func (d *ReviewDialog) View() []string {
	st := d.c.Styles
	iw := d.w - 2
	lines := make([]string, 0, d.h)
	side := d.side.String()
	if d.loading {
		side = "computing against " + d.pending.String() + "…"
	}
	lines = append(lines, st.Dim.Render(truncPlain(fmt.Sprintf("%s · %d changed · against %s", d.meta.Name, len(d.files), side), iw)))
	lh := d.listHeight()
	selRow := -1
	if d.sel < len(d.files) {
		selRow = d.files[d.sel]
	}
	top := 0
	if selRow >= lh {
		top = selRow - lh + 1
	}
	for i := top; i < top+lh; i++ {
		switch {
		case i >= len(d.rows):
			lines = append(lines, "")
		case d.rows[i].file < 0:
			lines = append(lines, st.Title.Render(truncPlain(d.rows[i].text, iw)))
		case i == selRow:
			lines = append(lines, st.SelectedName.Render(fitPlain("> "+d.rows[i].text, iw)))
		default:
			lines = append(lines, "  "+truncPlain(d.rows[i].text, iw-2))
		}
	}
	// The rule names the file shown below it (its name kept, a long path
	// cut at its start), and is a plain rule when none is.
	rule := ""
	if _, path := d.Selected(); path != "" {
		rule = "── " + truncPathLeft(path, max(iw-6, 1)) + " "
	}
	lines = append(lines, st.Dim.Render(rule+strings.Repeat("─", max(iw-ansi.StringWidth(rule), 0))))
	dh := d.diffHeight()
	for i := d.scroll; i < d.scroll+dh; i++ {
		if i < len(d.diffLines) {
			lines = append(lines, d.diffLines[i])
		} else {
			lines = append(lines, "")
		}
	}
	switch git := d.gitLine(iw); {
	case d.asking:
		lines = append(lines, d.input.View())
	case git != "":
		lines = append(lines, git)
	case d.errText != "":
		lines = append(lines, st.Error.Render(truncPlain(d.errText, iw)))
	case len(d.files) == 0 && !d.loading:
		lines = append(lines, st.Dim.Render("no changes"))
	default:
		lines = append(lines, st.Dim.Render(truncPlain(fmt.Sprintf("line %d of %d", min(d.scroll+1, len(d.diffLines)), len(d.diffLines)), iw)))
	}
	return st.Box("review", lines, d.w, d.h, true)
}
