package transcript

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/acpmux/acpmux-tui/internal/plaintext"
	"github.com/acpmux/acpmux-tui/proto"
	"github.com/acpmux/acpmux-tui/tui/markdown"
)

// layout lays out one entry for k (its width and fold).
func (v *View) layout(e *proto.Entry, k key, md **mdCache) []string {
	var out []string
	if k.gap {
		out = append(out, "")
	}
	w := max(k.width, 10)
	switch e.Kind {
	case proto.EntryUser:
		out = append(out, v.user(e, w)...)
	case proto.EntryAgent:
		out = append(out, v.message(e.Text, e.Size, w, k.open, md)...)
	case proto.EntryThought:
		out = append(out, v.thought(e, w, k.open)...)
	case proto.EntryTool:
		out = append(out, v.card(e, w, k)...)
	case proto.EntryPlan:
		out = append(out, v.plan(e, w)...)
	case proto.EntryNote:
		out = append(out, v.wrapped(e.Text, w, "· ", markdown.Dim)...)
	case proto.EntryError:
		out = append(out, v.wrapped(e.Text, w, "! ", markdown.Error)...)
	default:
		if k.gap {
			out = out[:0]
		}
	}
	return out
}

// wrapped is plain text wrapped at w after prefix, in class c.
func (v *View) wrapped(text string, w int, prefix string, c markdown.Class) []string {
	text, _ = headLines(text, MaxLines)
	text = plaintext.Foreign(text)
	pw := ansi.StringWidth(prefix)
	pad := strings.Repeat(" ", pw)
	var out []string
	for i, para := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		for j, l := range strings.Split(ansi.Wrap(para, max(w-pw, 1), " "), "\n") {
			l = strings.TrimRight(l, " ")
			p := pad
			if i == 0 && j == 0 {
				p = prefix
			}
			out = append(out, v.st.Paint(c, p+l))
		}
	}
	return out
}

// user is a user's prompt: its text after a mark, and the files it
// linked as chips.
func (v *View) user(e *proto.Entry, w int) []string {
	out := v.wrapped(e.Text, w, "> ", markdown.Bold)
	if len(e.Links) > 0 {
		var chips []string
		for _, l := range e.Links {
			chips = append(chips, "[@"+oneLine(l.Name)+"]")
		}
		for _, l := range strings.Split(ansi.Wrap(strings.Join(chips, " "), max(w-2, 1), " "), "\n") {
			out = append(out, "  "+v.st.Paint(markdown.Accent, l))
		}
	}
	return out
}

// message is an agent's message as markdown. One over FoldBytes is
// folded to its first lines until the fold key opens it, and even open
// lays out at most MaxLines; what is not shown is counted.
func (v *View) message(text string, size int64, w int, open bool, md **mdCache) []string {
	var out []string
	rest := 0
	if len(text) <= FoldBytes {
		// Laid out whole, and while it streams only past its last split.
		out = v.streamed(text, w, md)
	} else {
		limit := MaxLines
		if !open {
			limit = foldedLines
		}
		var head string
		head, rest = headLines(text, limit)
		*md = nil
		out = markdown.Render(head, w, v.st)
	}
	if rest > 0 {
		note := fmt.Sprintf("… (%s, %s lines not shown", humanSize(int64(len(text))), thousands(rest))
		if !open {
			note += "; ctrl+o shows more"
		}
		out = append(out, v.st.Paint(markdown.Dim, note+")"))
	}
	if size > int64(len(text)) {
		out = append(out, v.st.Paint(markdown.Dim, "… cut at "+humanSize(int64(len(text)))+" of "+humanSize(size)))
	}
	return out
}

// headLines returns text's first n lines, at most maxShown bytes of
// them, and how many lines (a line cut short counted) follow.
func headLines(text string, n int) (string, int) {
	limit := maxShown
	if n <= foldedLines {
		limit = maxShown / 16
	}
	at := 0
	for range n {
		k := strings.IndexByte(text[at:], '\n')
		if k < 0 {
			at = len(text)
			break
		}
		at += k + 1
	}
	if at > limit {
		at = limit
		for at > 0 && !utf8.RuneStart(text[at]) {
			at--
		}
	}
	if at >= len(text) {
		return text, 0
	}
	rest := strings.Count(text[at:], "\n")
	if !strings.HasSuffix(text, "\n") {
		rest++
	}
	return text[:at], rest
}

// thought is a thought folded to one line, or open, dimmed.
func (v *View) thought(e *proto.Entry, w int, open bool) []string {
	n := utf8.RuneCountInString(e.Text)
	if !open {
		return []string{v.st.Paint(markdown.Dim, "▸ thought · "+thousands(n)+" chars")}
	}
	out := []string{v.st.Paint(markdown.Dim, "▾ thought")}
	head, rest := headLines(e.Text, MaxLines)
	out = append(out, v.wrapped(head, w, "  ", markdown.Dim)...)
	if rest > 0 {
		out = append(out, v.st.Paint(markdown.Dim, "  … "+thousands(rest)+" more lines"))
	}
	return out
}

// plan is a plan as a checklist: done, running and pending told apart by
// mark and colour, each with its priority.
func (v *View) plan(e *proto.Entry, w int) []string {
	out := []string{v.st.Paint(markdown.Bold, "plan")}
	if len(e.PlanItems) == 0 {
		for _, p := range e.Plan {
			out = append(out, v.wrapped(p, w, "  ", 0)...)
		}
		return out
	}
	for _, it := range e.PlanItems {
		mark, c := "○", markdown.Dim
		switch it.Status {
		case "completed":
			mark, c = "✓", markdown.OK
		case "in_progress":
			mark, c = "▸", markdown.Warn
		}
		text := oneLine(it.Content)
		prio := ""
		if it.Priority != "" {
			prio = " · " + oneLine(it.Priority)
		}
		lines := strings.Split(ansi.Wrap(text, max(w-4-len(prio), 1), " "), "\n")
		for i, l := range lines {
			p := "    "
			if i == 0 {
				p = "  " + v.st.Paint(c, mark) + " "
			}
			line := p + v.st.Paint(c, l)
			if i == len(lines)-1 && prio != "" {
				pc := markdown.Dim
				if it.Priority == "high" {
					pc = markdown.Warn
				}
				line += v.st.Paint(pc, prio)
			}
			out = append(out, line)
		}
	}
	return out
}

// humanSize is n bytes said shortly: "812 B", "4.2 KB", "10.0 MB".
func humanSize(n int64) string {
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// thousands is n with its thousands apart: 1,234.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 || len(s) <= 3 {
		return s
	}
	var b strings.Builder
	first := len(s) % 3
	if first > 0 {
		b.WriteString(s[:first])
	}
	for i := first; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// oneLine is a field an agent sent, on one line with no control, no
// escape and no bidi control (the mux cleaned it; a view makes sure).
func oneLine(s string) string { return plaintext.Line(plaintext.Foreign(s)) }

// mdCache is a streamed message laid out up to a split (markdown.Split):
// what a chunk appended past it cannot change.
type mdCache struct {
	width int
	src   string // the message up to the split
	lines []string
}

// streamed lays out a message as markdown, again only past the last
// split *md holds, and moves the split on.
func (v *View) streamed(text string, w int, md **mdCache) []string {
	// Split reads clean text (a message is, where it enters; this does not
	// copy it then).
	text = plaintext.Foreign(text)
	c := *md
	if c == nil || c.width != w || !strings.HasPrefix(text, c.src) {
		c = &mdCache{width: w}
	}
	if b := markdown.Split(text, len(c.src)); b > len(c.src) {
		more := markdown.Render(text[len(c.src):b], w, v.st)
		c = &mdCache{width: w, src: text[:b], lines: stack(c.lines, more)}
	}
	*md = c
	return stack(c.lines, markdown.Render(text[len(c.src):], w, v.st))
}

// stack is the lines of two runs of blocks, a blank line between them
// (as markdown.Render puts blocks apart: not after a blank one).
func stack(a, b []string) []string {
	if len(a) == 0 {
		return b
	}
	out := make([]string, 0, len(a)+1+len(b))
	out = append(out, a...)
	if len(b) == 0 {
		return out
	}
	if a[len(a)-1] != "" { // as markdown.Render puts blocks apart
		out = append(out, "")
	}
	return append(out, b...)
}
