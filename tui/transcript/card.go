package transcript

import (
	"strconv"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/charmbracelet/x/ansi"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/tui/markdown"
)

// spinner is the frames of a running tool card's mark, one a tick.
var spinner = [...]string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// maxDiffBytes bounds the texts a diff is computed of; a larger edit is
// named with its sizes and its first new lines.
const maxDiffBytes = 128 << 10

// kindIcon is a tool call's mark by its kind, one cell wide.
func kindIcon(kind string) string {
	switch kind {
	case "read":
		return "⎘"
	case "edit":
		return "✎"
	case "delete":
		return "✂"
	case "move":
		return "⇄"
	case "search":
		return "⌕"
	case "execute":
		return "$"
	case "think":
		return "◌"
	case "fetch":
		return "⇣"
	case "switch_mode":
		return "⇆"
	}
	return "⚙"
}

// card is a tool call: a header line (kind, title, status, locations)
// and, unless it completed and is folded, its content.
func (v *View) card(e *proto.Entry, w int, k key) []string {
	st := v.st
	var status string
	switch e.ToolStatus {
	case "completed":
		status = st.Paint(markdown.OK, "✓")
	case "failed":
		status = st.Paint(markdown.Error, "✗ failed")
	default:
		frame := spinner[(k.frame%len(spinner)+len(spinner))%len(spinner)]
		status = st.Paint(markdown.Warn, frame+" running")
		if e.ToolStatus == "pending" {
			status = st.Paint(markdown.Warn, frame+" pending")
		}
	}
	title := oneLine(e.Title)
	if title == "" {
		title = e.ToolKind
	}
	head := st.Paint(markdown.Accent, kindIcon(e.ToolKind)) + " " + st.Paint(markdown.Bold, title) + " " + status
	if loc := v.locations(e.Locations); loc != "" {
		head += st.Paint(markdown.Dim, " · "+loc)
	}
	out := []string{ansi.Truncate(head, w, "…")}
	folded := e.ToolStatus == "completed" && !k.open
	if folded || len(e.Content) == 0 {
		return out
	}
	limit := boxLines
	if k.open {
		limit = MaxLines
	}
	for _, c := range e.Content {
		out = append(out, v.content(c, w, limit, k.open)...)
	}
	return out
}

// maxLocations is how many of a tool call's locations its header names.
const maxLocations = 3

// locations is where a tool call works: "main.go:42, util.go (+2 more)".
func (v *View) locations(locs []proto.Location) string {
	var parts []string
	for _, l := range locs[:min(len(locs), maxLocations)] {
		s := v.path(l.Path)
		if l.Line != nil {
			s += ":" + strconv.Itoa(*l.Line)
		}
		parts = append(parts, s)
	}
	text := strings.Join(parts, ", ")
	if n := len(locs) - maxLocations; n > 0 {
		text += " (+" + strconv.Itoa(n) + " more)"
	}
	return text
}

// path is a file's path as a card shows it: relative to the chat's folder
// when it is inside it (agents send absolute paths, which the pane's edge
// would cut before the file's name), else as the agent sent it.
func (v *View) path(p string) string {
	p = oneLine(p)
	if v.root == "" || v.root == "/" {
		return p
	}
	if rel, ok := strings.CutPrefix(p, v.root+"/"); ok && rel != "" {
		return rel
	}
	return p
}

// content is one piece of a tool call's content, each line indented
// under the card's header, at most limit lines of it.
func (v *View) content(c proto.ToolContent, w, limit int, open bool) []string {
	var out []string
	switch c.Type {
	case proto.ToolContentDiff:
		out = v.diff(c, w, limit, open)
	case proto.ToolContentText, proto.ToolContentTerminal:
		out = v.box(c.Text, w, limit, c.Type == proto.ToolContentTerminal)
	default:
		return nil
	}
	if c.Size > 0 {
		shown := int64(len(c.Text) + len(c.NewText))
		if c.OldText != nil {
			shown += int64(len(*c.OldText))
		}
		out = append(out, "  "+v.st.Paint(markdown.Dim, "… cut at "+humanSize(shown)+" of "+humanSize(c.Size)))
	}
	return out
}

// box is a tool's text or a terminal's output, dimmed, at most limit
// lines and "… K more lines". Output lines are cut at the width, text
// wraps.
func (v *View) box(text string, w, limit int, cut bool) []string {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return nil
	}
	head, rest := headLines(text, limit)
	head = plaintext.Foreign(strings.TrimRight(head, "\n"))
	bar := v.st.Paint(markdown.Dim, "  │ ")
	var out []string
	for _, l := range strings.Split(head, "\n") {
		l = markdown.ExpandTabs(l)
		if cut {
			out = append(out, bar+v.st.Paint(markdown.Dim, ansi.Truncate(l, max(w-4, 1), "…")))
			continue
		}
		for _, wl := range strings.Split(ansi.Wrap(l, max(w-4, 1), " "), "\n") {
			out = append(out, bar+v.st.Paint(markdown.Dim, wl))
		}
	}
	if len(out) > limit {
		rest += len(out) - limit
		out = out[:limit]
	}
	if rest > 0 {
		out = append(out, "  "+v.st.Paint(markdown.Dim, "… "+thousands(rest)+" more lines"))
	}
	return out
}

// diff is an edit as a unified diff under its path: added lines green,
// removed red, a new file marked. At most limit lines of it show.
func (v *View) diff(c proto.ToolContent, w, limit int, open bool) []string {
	st := v.st
	path := v.path(c.Path)
	old := ""
	label := path
	if c.OldText == nil {
		label += " (new file)"
	} else {
		old = *c.OldText
	}
	out := []string{"  " + st.Paint(markdown.Bold, ansi.Truncate(label, max(w-2, 1), "…"))}
	// A new file is all added lines; an edit too big to diff on the UI
	// goroutine is named with its size and its first new lines.
	whole := c.OldText == nil
	if size := len(old) + len(c.NewText); size > maxDiffBytes && !open || size > maxShown {
		out[0] += st.Paint(markdown.Dim, " · "+humanSize(int64(size))+" edit, not diffed")
		whole = true
	}
	var lines []string
	more := 0
	if whole {
		head, rest := headLines(c.NewText, limit)
		for _, l := range strings.Split(strings.TrimRight(head, "\n"), "\n") {
			lines = append(lines, "+"+l)
		}
		more = rest
	} else {
		u := udiff.Unified(path, path, old, c.NewText)
		lines = strings.Split(strings.TrimRight(u, "\n"), "\n")
		// The ---/+++ header names the path already shown.
		for len(lines) > 0 && (strings.HasPrefix(lines[0], "--- ") || strings.HasPrefix(lines[0], "+++ ")) {
			lines = lines[1:]
		}
		if len(lines) == 0 {
			lines = []string{"(no change)"}
		}
	}
	shown := lines[:min(len(lines), limit)]
	for _, l := range shown {
		l = plaintext.Foreign(l)
		if l != "" && (l[0] == '+' || l[0] == '-' || l[0] == ' ') {
			// Tabs stop as they do in the file, after the diff's mark.
			l = l[:1] + markdown.ExpandTabs(l[1:])
		}
		l = ansi.Truncate(markdown.ExpandTabs(l), max(w-4, 1), "…")
		cl := markdown.Class(0)
		switch {
		case strings.HasPrefix(l, "@@"):
			cl = markdown.Hunk
		case strings.HasPrefix(l, "+"):
			cl = markdown.Added
		case strings.HasPrefix(l, "-"):
			cl = markdown.Removed
		case strings.HasPrefix(l, `\`):
			cl = markdown.Dim
		}
		out = append(out, "    "+st.Paint(cl, l))
	}
	if n := len(lines) - len(shown) + more; n > 0 {
		out = append(out, "    "+st.Paint(markdown.Dim, "… "+thousands(n)+" more lines"))
	}
	return out
}

// PermissionLines are what a permission request is about, for its card:
// the diff of the edit or the command to run, at most limit lines (the
// rest counted), at width w.
func PermissionLines(st *markdown.Styles, content []proto.ToolContent, w, limit int) []string {
	v := &View{st: st}
	var out []string
	for i, c := range content {
		left := limit - len(out)
		if left < 3 {
			if n := len(content) - i; n > 0 {
				out = append(out, "  "+st.Paint(markdown.Dim, "… "+thousands(n)+" more"))
			}
			break
		}
		// Each content's own header and count fit in what is left.
		out = append(out, v.content(c, w, left-2, false)...)
	}
	return out
}
