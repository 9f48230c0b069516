package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acpmux/acpmux-tui/third_party/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// layout is where each pane goes, computed once per window size.
type layout struct {
	ready              bool
	width, height      int
	bodyH              int // everything above the help bar
	sideW, rightW      int // the sidebar's and the right column's widths
	sumH, chatH        int // the summary's and the chat pane's heights
	chatCols, chatRows int // the chat pane's inner size: every pty's size
}

func computeLayout(w, h int) layout {
	l := layout{ready: true, width: max(w, 1), height: max(h, 1)}
	l.bodyH = max(l.height-1, 0)
	l.sideW = min(max(l.width*28/100, 24), 44)
	if l.width < 60 {
		l.sideW = l.width / 3
	}
	l.rightW = l.width - l.sideW
	l.sumH = min(max(l.bodyH/3, 8), 12)
	if l.bodyH-l.sumH < 6 {
		l.sumH = max(l.bodyH/2, 0)
	}
	l.chatH = l.bodyH - l.sumH
	l.chatCols, l.chatRows = max(l.rightW-2, 1), max(l.chatH-2, 1)
	return l
}

// resize lays the screen out for a new window size, and sizes every pty to
// the chat pane.
func (m *Model) resize(w, h int) tea.Cmd {
	first := !m.lay.ready
	m.lay = computeLayout(w, h)
	l := m.lay
	m.sidebar.SetSize(max(l.sideW-2, 0), max(l.bodyH-2, 0))
	m.summary.SetSize(max(l.rightW-2, 0), max(l.sumH-2, 0))
	m.pane.SetSize(l.chatCols, l.chatRows)
	if m.dialog != nil {
		m.dialog.SetSize(l.width, l.height)
	}
	for _, d := range m.below {
		d.SetSize(l.width, l.height)
	}
	cmds := []tea.Cmd{resizeAll(m.mux, l.chatCols, l.chatRows)}
	if first {
		cmds = append(cmds, m.openPending())
	}
	return tea.Batch(cmds...)
}

// View draws the frame from what Update prepared: the sidebar, the summary
// and chat panes, the status and help line, and a dialog over them.
func (m *Model) View() string { return strings.Join(m.ViewLines(), "\n") }

// ViewLines is View's lines, which package frame takes as they are. A
// box whose lines and title are what they were last time is not drawn
// again, nor a row whose two halves are: a key's echo draws the chat
// pane's box and joins the rows it changed, and the rest is the last
// frame's strings.
func (m *Model) ViewLines() []string {
	l := m.lay
	if !l.ready {
		return nil
	}
	st := m.c.Styles
	vc := &m.vc
	focused := m.pane.Focused()
	left := vc.side.box(st, m.sidebar.Title(), m.sidebar.View(), l.sideW, l.bodyH, !focused && m.dialog == nil)
	var right []string
	if m.loaded && m.sidebar.Len() == 0 {
		right = st.Box("welcome", m.welcome(l.rightW-2, l.bodyH-2), l.rightW, l.bodyH, false)
	} else {
		right = append(vc.right[:0], vc.summary.box(st, "summary", m.summary.View(), l.rightW, l.sumH, false)...)
		right = append(right, st.BoxFitted(m.pane.Title(), m.pane.View(), l.rightW, l.chatH, focused)...)
		vc.right = right
	}
	lines := make([]string, 0, l.height)
	vc.rows = growRows(vc.rows, l.bodyH)
	for i := range l.bodyH {
		lines = append(lines, vc.rows[i].join(left[i], right[i]))
	}
	lines = append(lines, m.footerLine)
	if m.dialog != nil {
		overlay(lines, m.dialog.View(), l.width, l.bodyH)
	}
	return lines
}

// viewCache is what the last frame drew, kept for the next (ViewLines).
type viewCache struct {
	side, summary boxCache
	right         []string
	rows          []rowCache
}

// boxCache is a box as last drawn, and what it was drawn from.
type boxCache struct {
	title    string
	in       []string
	w, h     int
	focused  bool
	out      []string
	drawnAny bool
}

// box is st.BoxFitted(title, lines, w, h, focused), drawn again only when
// one of them changed. lines are copied: a pane may reuse its slice.
func (c *boxCache) box(st *Styles, title string, lines []string, w, h int, focused bool) []string {
	if c.drawnAny && c.title == title && c.w == w && c.h == h && c.focused == focused && slices.Equal(c.in, lines) {
		return c.out
	}
	c.title, c.w, c.h, c.focused, c.drawnAny = title, w, h, focused, true
	c.in = append(c.in[:0], lines...)
	c.out = st.BoxFitted(title, lines, w, h, focused)
	return c.out
}

// rowCache is a row of the screen as last joined from its two halves.
type rowCache struct{ left, right, line string }

// join is left+right, the last string made when both are as they were (a
// string compares with itself at once).
func (r *rowCache) join(left, right string) string {
	if r.line == "" || left != r.left || right != r.right {
		r.left, r.right, r.line = left, right, left+right
	}
	return r.line
}

// growRows has rows hold at least n.
func growRows(rows []rowCache, n int) []rowCache {
	if len(rows) >= n {
		return rows
	}
	return append(rows, make([]rowCache, n-len(rows))...)
}

// welcome is the empty home's invitation to start a first chat.
func (m *Model) welcome(w, h int) []string {
	st := m.c.Styles
	km := m.c.Keys
	return centre([]string{
		st.Title.Render("No chats yet"),
		"",
		"press " + st.HelpKey.Render(km.New.Help().Key) + " for a new chat, or " + st.HelpKey.Render(km.Focus.Help().Key) + " to start",
		"a " + st.Bold.Render(m.opt.DefaultHarness) + " chat in an empty folder of its own",
	}, w, h)
}

// prepareFooter draws the status and help line when what it shows has
// changed: most frames (pty output) leave it as it was.
func (m *Model) prepareFooter() {
	bindings := m.shortHelp()
	var k strings.Builder
	fmt.Fprintf(&k, "%d\x00%v\x00%v\x00%s\x00%v\x00%v", m.lay.width, m.isErr, m.isWarn, m.status, m.linkLost != nil, m.startingServer)
	for _, b := range bindings {
		h := b.Help()
		k.WriteString("\x00" + h.Key + "\x00" + h.Desc)
	}
	if k.String() == m.footerKey {
		return
	}
	m.footerKey, m.footerLine = k.String(), m.footer(bindings)
}

// footer is the status line and the help of whatever has the keyboard.
func (m *Model) footer(bindings []key.Binding) string {
	st := m.c.Styles
	w := m.lay.width
	left := ""
	if m.linkLost != nil {
		// It stays until the server is back, whatever else is said.
		line := m.linkLine()
		if m.status != "" {
			line += " · " + m.status
		}
		left = st.Error.Render(truncPlain("✗ "+line, w*2/3)) + "  "
	} else if m.status != "" {
		switch {
		case m.isErr:
			left = st.Error.Render(truncPlain("✗ "+m.status, w*2/3))
		case m.isWarn:
			left = st.Warn.Render(truncPlain("⚠ "+m.status, w*2/3))
		default:
			left = st.OK.Render(truncPlain("✓ "+m.status, w*2/3))
		}
		left += "  "
	}
	h := newHelp(m.c)
	h.Width = max(w-1-ansi.StringWidth(left), 0)
	return fitLine(" "+left+h.ShortHelpView(bindings), w)
}

// overlay draws box centred over lines (the body, not the help bar).
func overlay(lines, box []string, w, bodyH int) {
	if len(box) == 0 {
		return
	}
	bw := ansi.StringWidth(box[0])
	x := max((w-bw)/2, 0)
	y := max((bodyH-len(box))/2, 0)
	for i, b := range box {
		if y+i >= len(lines) {
			break
		}
		if bw > w { // a screen narrower than the narrowest dialog
			b = ansi.Truncate(b, w, "")
		}
		bg := lines[y+i]
		before, after := overlayEdges(bg, x, bw)
		if strings.Contains(bg, "\x1b") || strings.Contains(b, "\x1b") {
			lines[y+i] = before + "\x1b[0m" + b + "\x1b[0m" + after
		} else {
			lines[y+i] = before + b + after
		}
	}
}

// overlayEdges is what of bg shows left of a box at x, bw wide, and right
// of it, each exactly as wide as the cells it stands for: a wide character
// the box's edge cuts in two is a blank, not half of it pushing the rest
// of the line (and the borders on it) a column aside.
func overlayEdges(bg string, x, bw int) (before, after string) {
	before = ansi.Truncate(bg, x, "")
	before += strings.Repeat(" ", max(x-ansi.StringWidth(before), 0))
	want := max(ansi.StringWidth(bg)-x-bw, 0)
	for cut := x + bw; ; cut++ {
		after = ansi.TruncateLeft(bg, cut, "")
		if ansi.StringWidth(after) <= want {
			break
		}
	}
	return before, strings.Repeat(" ", want-ansi.StringWidth(after)) + after
}
