package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/tui/markdown"
)

// The palette is the terminal's own 16 colours (so the user's theme
// applies) plus one adaptive background for the selected row.
var (
	colAccent    = lipgloss.Color("6") // cyan: focus, titles
	colDim       = lipgloss.Color("8") // bright black: secondary text
	colOK        = lipgloss.Color("2")
	colWarn      = lipgloss.Color("3")
	colError     = lipgloss.Color("1")
	colWaiting   = lipgloss.Color("4")
	colAttention = lipgloss.Color("5")
	colSelected  = lipgloss.AdaptiveColor{Light: "254", Dark: "236"}
)

// markKind is the status mark shown for a chat.
type markKind int

const (
	markStopped markKind = iota
	markStarting
	markRunning
	markAsking
	markWaiting
	markExitedOK
	markExitedErr
	markFailed
	markBroken
	numMarks
)

// markGlyphs are the symbols of the marks; each is one column wide.
var markGlyphs = [numMarks]string{"○", "◐", "●", "?", "◆", "✓", "✗", "✗", "⚠"}

// sandboxMark marks a sandboxed chat in the sidebar, before its harness:
// a chat in a box. One column wide, and of neutral East Asian width (not
// ambiguous), so no terminal draws it two columns wide.
const sandboxMark = "⊡"

// markOf picks the mark of a chat from its harness state.
func markOf(st proto.State, broken bool) markKind {
	if broken {
		return markBroken
	}
	switch st.Status {
	case proto.StatusStarting:
		return markStarting
	case proto.StatusRunning:
		return markRunning
	case proto.StatusAsking:
		return markAsking
	case proto.StatusWaiting:
		return markWaiting
	case proto.StatusExited:
		if st.ExitCode == 0 {
			return markExitedOK
		}
		return markExitedErr
	case proto.StatusFailed:
		return markFailed
	}
	return markStopped
}

// Styles are every style of the app, built once from the palette. With
// colour off (NO_COLOR) they keep bold, faint and reverse but no colour.
type Styles struct {
	Renderer *lipgloss.Renderer

	Plain, Dim, Bold, Title, Accent, Error, Warn, OK lipgloss.Style
	// Selected is the background of the selected sidebar row; SelectedName
	// and SelectedDim are text on it.
	Selected, SelectedName, SelectedDim lipgloss.Style
	// HelpKey and HelpDesc draw the help bar.
	HelpKey, HelpDesc lipgloss.Style
	// Button and ButtonFocused draw dialog buttons.
	Button, ButtonFocused lipgloss.Style
	// Cursor draws the harness's cursor on a focused pty screen.
	Cursor lipgloss.Style
	// Redacted highlights a redaction mark in a capsule under review.
	Redacted lipgloss.Style
	// Markdown draws an ACP chat's transcript (tui/markdown): colours for
	// the terminal's background, read once here.
	Markdown *markdown.Styles

	border, borderFocused lipgloss.Style
	title, titleFocused   lipgloss.Style
	vbar, vbarFocused     string // the rendered "│" of each border
	marks, selMarks       [numMarks]string
	unread, selUnread     string
	sandbox, selSandbox   string // sandboxMark and a space
	pointer               string
	edges                 map[edgeKey]string
}

// NewStyles builds the styles for a renderer; color false leaves colours out.
func NewStyles(r *lipgloss.Renderer, color bool) *Styles {
	if r == nil {
		r = lipgloss.DefaultRenderer()
	}
	fg := func(st lipgloss.Style, c lipgloss.TerminalColor) lipgloss.Style {
		if color {
			return st.Foreground(c)
		}
		return st
	}
	base := r.NewStyle()
	s := &Styles{Renderer: r}
	s.Plain = base
	s.Dim = fg(base, colDim)
	if !color {
		s.Dim = base.Faint(true)
	}
	s.Bold = base.Bold(true)
	s.Title = fg(base.Bold(true), colAccent)
	s.Accent = fg(base, colAccent)
	s.Error = fg(base, colError)
	s.Warn = fg(base, colWarn)
	s.OK = fg(base, colOK)
	s.Selected = base
	if color {
		s.Selected = base.Background(colSelected)
	}
	s.SelectedName = s.Selected.Bold(true)
	s.SelectedDim = fg(s.Selected, colDim)
	s.HelpKey = fg(base.Bold(true), colAccent)
	s.HelpDesc = s.Dim
	s.Button = base.Padding(0, 1)
	s.ButtonFocused = base.Padding(0, 1).Reverse(true).Bold(true)
	s.Cursor = base.Reverse(true)
	s.Redacted = fg(base.Reverse(true), colWarn)
	// The background was asked of the terminal before the styles are made
	// (launch.go); without colour it is not asked at all.
	s.Markdown = markdown.NewStyles(r, color, !color || r.HasDarkBackground())

	s.border = s.Dim
	s.borderFocused = s.Accent
	s.title = s.Bold
	s.titleFocused = s.Title
	s.vbar = s.border.Render("│")
	s.vbarFocused = s.borderFocused.Render("│")

	markColors := [numMarks]lipgloss.TerminalColor{colDim, colWarn, colOK, colAttention, colWaiting, colOK, colError, colError, colWarn}
	for k := range numMarks {
		s.marks[k] = fg(base, markColors[k]).Render(markGlyphs[k])
		s.selMarks[k] = fg(s.Selected, markColors[k]).Render(markGlyphs[k])
	}
	s.unread = fg(base.Bold(true), colAttention).Render("•")
	s.selUnread = fg(s.Selected.Bold(true), colAttention).Render("•")
	s.pointer = fg(base.Bold(true), colAccent).Render("▌")
	s.sandbox = fg(base, colAccent).Render(sandboxMark) + " "
	s.selSandbox = fg(s.Selected, colAccent).Render(sandboxMark) + s.Selected.Render(" ")
	return s
}

// Mark returns the rendered status mark of a chat.
func (s *Styles) Mark(st proto.State, broken bool) string { return s.marks[markOf(st, broken)] }

// Box draws lines inside a rounded border of w x h cells with title in the
// top edge. Each content line is padded or cut to the inner width; missing
// lines are blank. It returns exactly h lines, each w cells wide.
func (s *Styles) Box(title string, lines []string, w, h int, focused bool) []string {
	return s.box(title, lines, w, h, focused, false)
}

// BoxFitted is Box for lines already exactly w-2 cells wide, which are not
// measured again: the chat pane's screen and the sidebar's rows.
func (s *Styles) BoxFitted(title string, lines []string, w, h int, focused bool) []string {
	return s.box(title, lines, w, h, focused, true)
}

func (s *Styles) box(title string, lines []string, w, h int, focused, fitted bool) []string {
	if w < 2 || h < 2 {
		return blankLines(max(w, 0), max(h, 0))
	}
	bst, tst, bar := s.border, s.title, s.vbar
	if focused {
		bst, tst, bar = s.borderFocused, s.titleFocused, s.vbarFocused
	}
	inner := w - 2
	out := make([]string, 0, h)
	out = append(out, s.edge(edgeKey{title, inner, focused, true}, func() string { return s.topEdge(title, inner, bst, tst) }))
	for i := range h - 2 {
		line := ""
		switch {
		case i < len(lines) && fitted:
			line = lines[i]
		case i < len(lines):
			line = fitLine(lines[i], inner)
		default:
			line = strings.Repeat(" ", inner)
		}
		out = append(out, bar+line+bar)
	}
	out = append(out, s.edge(edgeKey{"", inner, focused, false}, func() string {
		return bst.Render("╰" + strings.Repeat("─", inner) + "╯")
	}))
	return out
}

// edgeKey names a drawn box edge.
type edgeKey struct {
	title   string
	inner   int
	focused bool
	top     bool
}

// maxEdges bounds the cache of drawn edges (titles change as chats do).
const maxEdges = 64

// edge returns a box edge, drawn once: frames redraw the same few edges.
// Styles are only used from the UI goroutine.
func (s *Styles) edge(k edgeKey, draw func() string) string {
	if e, ok := s.edges[k]; ok {
		return e
	}
	if s.edges == nil || len(s.edges) >= maxEdges {
		s.edges = make(map[edgeKey]string, maxEdges)
	}
	e := draw()
	s.edges[k] = e
	return e
}

// topEdge is "╭─ title ─────╮".
func (s *Styles) topEdge(title string, inner int, bst, tst lipgloss.Style) string {
	if title == "" || inner < 6 {
		return bst.Render("╭" + strings.Repeat("─", inner) + "╮")
	}
	title = ansi.Truncate(title, inner-4, "…")
	rest := inner - 3 - ansi.StringWidth(title)
	return bst.Render("╭─ ") + tst.Render(title) + bst.Render(" "+strings.Repeat("─", rest)+"╮")
}

// fitLine pads or cuts a (possibly styled) line to exactly w cells.
func fitLine(line string, w int) string {
	lw := ansi.StringWidth(line)
	switch {
	case lw == w:
		return line
	case lw < w:
		return line + strings.Repeat(" ", w-lw)
	}
	cut := ansi.Truncate(line, w, "")
	if cw := ansi.StringWidth(cut); cw < w { // a wide character did not fit
		cut += strings.Repeat(" ", w-cw)
	}
	if strings.IndexByte(cut, 0x1b) >= 0 {
		cut += "\x1b[0m"
	}
	return cut
}

// fitPlain pads or cuts plain text to w cells, ending a cut with "…".
func fitPlain(text string, w int) string {
	if w <= 0 {
		return ""
	}
	tw := ansi.StringWidth(text)
	if tw > w {
		text = ansi.Truncate(text, w, "…")
		tw = ansi.StringWidth(text)
	}
	return text + strings.Repeat(" ", max(w-tw, 0))
}

// truncPathLeft cuts a path from the left to w cells, so its end (the
// file's name) stays: "…/bundles/fix-k3x9q2.acpmux.tgz".
func truncPathLeft(p string, w int) string {
	p = plainOneLine(p)
	if ansi.StringWidth(p) <= w || w < 2 {
		return truncPlain(p, w)
	}
	r := []rune(p)
	i, used := len(r), 0
	for i > 0 {
		cw := ansi.StringWidth(string(r[i-1]))
		if used+cw > w-1 {
			break
		}
		used += cw
		i--
	}
	return "…" + string(r[i:])
}

// truncPlain cuts plain text to at most w cells, ending a cut with "…".
func truncPlain(text string, w int) string {
	// Names, folders, session ids and reasons come from chat files and
	// agents: shown as transcripts are, with no escape sequence.
	text = plaintext.Line(text)
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(text) <= w {
		return text
	}
	return ansi.Truncate(text, w, "…")
}

func blankLines(w, h int) []string {
	out := make([]string, h)
	blank := strings.Repeat(" ", w)
	for i := range out {
		out[i] = blank
	}
	return out
}
